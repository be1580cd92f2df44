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

Totals totals_of(const std::vector<StreamStatus>& streams) {
  Totals totals;
  for (const auto& r : streams) {
    totals.frames += r.stats.frames;
    totals.dropped += r.stats.frames_dropped;
    totals.failed += stream_error(r).empty() ? 0 : 1;
    totals.not_started += stream_started(r) ? 0 : 1;
  }
  return totals;
}

}  // namespace

bool stream_started(const StreamStatus& stream) { return stream.state != StreamState::Waiting; }

std::string stream_error(const StreamStatus& stream) {
  return stream.state == StreamState::Failed ? stream.last_error : std::string();
}

bool stopped_by_failure(const StreamsReport& report, const StreamStatus& stream) {
  return report.fail_fast_stopped && !report.interrupted && stream_error(stream).empty() &&
         (!stream_started(stream) || stream.stats.interrupted);
}

std::string streams_to_json(const StreamsReport& report, double wall_seconds) {
  const auto& results = report.streams;
  const Totals totals = totals_of(results);
  nlohmann::ordered_json doc;
  auto& streams = doc["streams"] = nlohmann::ordered_json::array();
  for (const auto& r : results) {
    nlohmann::ordered_json stream = {{"name", r.name}, {"started", stream_started(r)}};
    if (const std::string error = stream_error(r); !error.empty()) stream["error"] = error;
    if (stopped_by_failure(report, r)) stream["stopped_by_failure"] = true;
    stream.update(nlohmann::ordered_json::parse(stats_to_json(r.stats)));
    streams.push_back(std::move(stream));
  }
  doc["frames"] = totals.frames;
  doc["frames_dropped"] = totals.dropped;
  doc["wall_seconds"] = wall_seconds;
  doc["fps"] = wall_seconds > 0 ? static_cast<double>(totals.frames) / wall_seconds : 0.0;
  doc["streams_failed"] = totals.failed;
  doc["streams_not_started"] = totals.not_started;
  doc["jobs"] = report.jobs;
  doc["max_concurrent_streams"] = report.max_running;
  return doc.dump(2);
}

std::string streams_summary(const StreamsReport& report, double wall_seconds) {
  const auto& results = report.streams;
  std::string text;
  for (const auto& r : results) {
    const RunStats& s = r.stats;
    const std::string error = stream_error(r);
    const bool started = stream_started(r);
    const bool stopped = stopped_by_failure(report, r);
    std::string state = !error.empty()        ? "FAILED: " + error
                        : !started && stopped ? "not started (another stream failed)"
                        : !started            ? "not started" + std::string(report.interrupted ? " (interrupted)" : "")
                        : stopped             ? "stopped (another stream failed)"
                        : s.interrupted       ? "interrupted"
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
                      wall_seconds > 0 ? static_cast<double>(totals.frames) / wall_seconds : 0.0, report.max_running,
                      report.jobs, totals.failed > 0 ? fmt::format(", {} failed", totals.failed) : "",
                      totals.not_started > 0 ? fmt::format(", {} not started", totals.not_started) : "");
  return text;
}

}  // namespace fp
