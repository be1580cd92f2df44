#include "pipeline/streams/stats.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace fp {

namespace {

struct Totals {
  std::int64_t frames = 0;
  std::int64_t dropped = 0;
  int failed = 0;
  int not_started = 0;
};

Totals totals_of(const std::vector<StreamResult>& results) {
  Totals totals;
  for (const auto& r : results) {
    totals.frames += r.stats.frames;
    totals.dropped += r.stats.frames_dropped;
    totals.failed += r.error.empty() ? 0 : 1;
    totals.not_started += r.started ? 0 : 1;
  }
  return totals;
}

}  // namespace

std::string streams_to_json(const StreamsRun& run, double wall_seconds) {
  const auto& results = run.streams;
  const Totals totals = totals_of(results);
  nlohmann::ordered_json doc;
  auto& streams = doc["streams"] = nlohmann::ordered_json::array();
  for (const auto& r : results) {
    nlohmann::ordered_json stream = {{"name", r.name}, {"started", r.started}};
    if (!r.error.empty()) stream["error"] = r.error;
    if (r.stopped_by_failure) stream["stopped_by_failure"] = true;
    stream.update(nlohmann::ordered_json::parse(stats_to_json(r.stats)));
    streams.push_back(std::move(stream));
  }
  doc["frames"] = totals.frames;
  doc["frames_dropped"] = totals.dropped;
  doc["wall_seconds"] = wall_seconds;
  doc["fps"] = wall_seconds > 0 ? static_cast<double>(totals.frames) / wall_seconds : 0.0;
  doc["streams_failed"] = totals.failed;
  doc["streams_not_started"] = totals.not_started;
  doc["jobs"] = run.jobs;
  doc["max_concurrent_streams"] = run.max_running;
  return doc.dump(2);
}

std::string streams_summary(const StreamsRun& run, double wall_seconds) {
  const auto& results = run.streams;
  std::string text;
  for (const auto& r : results) {
    const RunStats& s = r.stats;
    std::string state = !r.error.empty()        ? "FAILED: " + r.error
                        : !r.started && r.stopped_by_failure ? "not started (another stream failed)"
                        : !r.started            ? "not started" + std::string(run.interrupted ? " (interrupted)" : "")
                        : r.stopped_by_failure  ? "stopped (another stream failed)"
                        : s.interrupted         ? "interrupted"
                                                : "ok";
    std::string latency;
    if (s.latency_ms.count() > 0)
      latency = fmt::format(", latency p50 {:.1f} ms p99 {:.1f} ms", s.latency_ms.percentile(50), s.latency_ms.percentile(99));
    const std::string dropped = s.frames_dropped > 0 ? fmt::format(", {} dropped", s.frames_dropped) : "";
    text += fmt::format("  {:<12} {:>7} frames ({:.1f} fps){}{}  {}\n", r.name, s.frames, s.fps(), dropped, latency, state);
  }
  const Totals totals = totals_of(results);
  text += fmt::format("{} frames from {} streams in {:.2f} s ({:.1f} fps in all; at most {} at once of {} allowed){}{}\n",
                      totals.frames, results.size(), wall_seconds,
                      wall_seconds > 0 ? static_cast<double>(totals.frames) / wall_seconds : 0.0, run.max_running,
                      run.jobs, totals.failed > 0 ? fmt::format(", {} failed", totals.failed) : "",
                      totals.not_started > 0 ? fmt::format(", {} not started", totals.not_started) : "");
  return text;
}

}  // namespace fp
