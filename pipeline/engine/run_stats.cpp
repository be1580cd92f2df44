#include "pipeline/engine/run_stats.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace fp {

namespace {

// {"damaged_packets": N, "damaged_frames": M, "first": [{"packet": 42, "pts": 151200,
// "time": 1.68, "error": "..."}, ...]}; unknown positions are left out.
nlohmann::ordered_json decode_errors_json(const DecodeErrors& errors) {
  auto first = nlohmann::ordered_json::array();
  for (const auto& p : errors.first) {
    nlohmann::ordered_json position;
    if (p.packet >= 0) position["packet"] = p.packet;
    if (p.frame >= 0) position["frame"] = p.frame;
    if (p.has_time()) {
      position["pts"] = p.pts;
      position["time"] = p.seconds();
    }
    position["error"] = p.reason;
    first.push_back(std::move(position));
  }
  return {{"damaged_packets", errors.packets}, {"damaged_frames", errors.frames}, {"first", std::move(first)}};
}

// {"reconnects": 1, "failed_attempts": 5, "gaps_total": 1, "total_gap_ms": ..., "longest_gap_ms": ...,
//  "gaps": [{"lost_at_s": 3.0, "gap_ms": 3400, "reconnect_ms": 3350, "attempts": 6, "back": true,
//            "reason": "..."}]}
nlohmann::ordered_json reconnect_json(const ReconnectStats& stats) {
  auto gaps = nlohmann::ordered_json::array();
  for (const auto& g : stats.gaps)
    gaps.push_back({{"lost_at_s", g.lost_at_s}, {"gap_ms", g.gap_ms}, {"reconnect_ms", g.reconnect_ms},
                    {"attempts", g.attempts}, {"back", g.back}, {"reason", g.reason}});
  return {{"reconnects", stats.reconnects},     {"failed_attempts", stats.failed_attempts},
          {"gaps_total", stats.gaps_total},     {"total_gap_ms", stats.total_gap_ms},
          {"longest_gap_ms", stats.longest_gap_ms}, {"gaps", std::move(gaps)}};
}

}  // namespace

std::string stats_to_json(const RunStats& stats) {
  nlohmann::ordered_json doc;
  doc["pipeline"] = stats.pipeline;
  doc["device"] = stats.device;
  doc["frames"] = stats.frames;
  doc["wall_seconds"] = stats.wall_seconds;
  doc["fps"] = stats.fps();
  doc["first_frame_seconds"] = stats.first_frame_seconds;
  doc["interrupted"] = stats.interrupted;
  doc["frames_dropped"] = stats.frames_dropped;
  const auto& latency = stats.latency_ms;
  doc["latency_ms"] = {{"frames", latency.count()},  {"p50", latency.percentile(50)}, {"p95", latency.percentile(95)},
                       {"p99", latency.percentile(99)}, {"max", latency.max()}};
  auto& stages = doc["stages"] = nlohmann::ordered_json::array();
  for (const auto& s : stats.stages) {
    nlohmann::ordered_json stage = {{"id", s.id}, {"type", s.type}};
    if (!s.decoder.empty()) {
      stage["decoder"] = s.decoder;
      stage["decode_errors"] = decode_errors_json(s.decode_errors);
      stage["drop"] = s.drop_policy;
      stage["frames_dropped"] = s.frames_dropped;
      if (s.frames_skipped_to_live > 0) stage["frames_skipped_to_live"] = s.frames_skipped_to_live;
    }
    if (s.reconnect) stage["reconnect"] = reconnect_json(*s.reconnect);
    if (!s.encoder.empty()) {
      stage["encoder"] = s.encoder;
      stage["drop"] = s.drop_policy;
      stage["frames_dropped"] = s.frames_dropped;
    }
    if (!s.output.empty()) stage["output"] = s.output;
    stage["frames"] = s.frames;
    stage["total_ms"] = s.total_ms;
    stage["mean_ms"] = s.mean_ms();
    if (s.enqueue_ms > 0 && stats.frames > 0)
      stage["enqueue_us_per_frame"] = 1000.0 * s.enqueue_ms / static_cast<double>(stats.frames);
    stages.push_back(std::move(stage));
  }
  doc["outputs"] = stats.outputs;
  const double frames = stats.frames > 0 ? static_cast<double>(stats.frames) : 1.0;
  doc["graph_thread"] = {{"enqueue_ms", stats.enqueue_ms},
                         {"wait_ms", stats.wait_ms},
                         {"enqueue_us_per_frame", 1000.0 * stats.enqueue_ms / frames},
                         {"wait_us_per_frame", 1000.0 * stats.wait_ms / frames}};
  doc["host"] = {{"cpu_ms", stats.host_cpu_ms},
                 {"cpu_ms_per_frame", stats.host_cpu_ms / frames},
                 {"bytes_uploaded", stats.bytes_uploaded},
                 {"bytes_downloaded", stats.bytes_downloaded},
                 {"upload_bytes_per_frame", static_cast<double>(stats.bytes_uploaded) / frames},
                 {"download_bytes_per_frame", static_cast<double>(stats.bytes_downloaded) / frames}};
  return doc.dump(2);
}

std::string stats_summary(const RunStats& stats) {
  std::string text = fmt::format("{} frames in {:.2f} s ({:.1f} fps) on {}{}\n", stats.frames, stats.wall_seconds,
                                 stats.fps(), stats.device, stats.interrupted ? ", interrupted" : "");
  text += fmt::format("  {:<16} {:<15} {:>7} {:>10}  {}\n", "stage", "type", "frames", "ms/frame", "");
  for (const auto& s : stats.stages) {
    const std::string detail = !s.decoder.empty() ? s.decoder
                               : !s.encoder.empty() ? s.encoder + " -> " + s.output
                                                    : std::string();
    text += fmt::format("  {:<16} {:<15} {:>7} {:>10.3f}  {}\n", s.id, s.type, s.frames, s.mean_ms(), detail);
  }
  for (const auto& s : stats.stages) {
    if (s.decode_errors.total() == 0) continue;
    const DecodeErrorPosition& first = s.decode_errors.first.front();
    text += fmt::format("  {}: skipped {}; the first at {}: {}\n", s.id, s.decode_errors.summary(), first.where(),
                        first.reason);
  }
  for (const auto& s : stats.stages)
    if (s.frames_dropped > 0)
      text += fmt::format("  {}: dropped {} of {} frames, {} being behind (drop: {})\n", s.id, s.frames_dropped,
                          s.decoder.empty() ? s.frames + s.frames_dropped : s.frames,
                          s.decoder.empty() ? "the output" : "the graph", s.drop_policy);
  for (const auto& s : stats.stages)
    if (s.frames_skipped_to_live > 0)
      text += fmt::format("  {}: started at the live edge: {} frames that were waiting skipped\n", s.id,
                          s.frames_skipped_to_live);
  for (const auto& s : stats.stages) {
    if (!s.reconnect || s.reconnect->gaps_total == 0) continue;
    text += fmt::format("  {}: {} gap{} in the stream, {} reconnect{}, {:.2f} s without frames (longest {:.2f} s)\n", s.id,
                        s.reconnect->gaps_total, s.reconnect->gaps_total == 1 ? "" : "s", s.reconnect->reconnects,
                        s.reconnect->reconnects == 1 ? "" : "s", s.reconnect->total_gap_ms / 1000.0,
                        s.reconnect->longest_gap_ms / 1000.0);
  }
  if (stats.frames > 0 && stats.bytes_uploaded + stats.bytes_downloaded > 0) {
    const double frames = static_cast<double>(stats.frames);
    text += fmt::format("  host: {:.2f} ms CPU a frame (the run's threads); PCIe {:.2f} MB up, {:.2f} MB down a frame\n",
                        stats.host_cpu_ms / frames, static_cast<double>(stats.bytes_uploaded) / frames / 1e6,
                        static_cast<double>(stats.bytes_downloaded) / frames / 1e6);
  }
  if (const auto& latency = stats.latency_ms; latency.count() > 0)
    text += fmt::format("  latency p50 {:.1f} ms, p95 {:.1f} ms, p99 {:.1f} ms, max {:.1f} ms\n", latency.percentile(50),
                        latency.percentile(95), latency.percentile(99), latency.max());
  return text;
}

}  // namespace fp
