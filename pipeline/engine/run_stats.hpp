// What a run measured: frames, throughput, time per stage, latency, the codecs used, and
// the damaged input that the decoders skipped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "media/decode_errors.hpp"
#include "media/reconnect.hpp"
#include "pipeline/engine/latency_histogram.hpp"

namespace fp {

struct StageTiming {
  std::string id;
  std::string type;
  std::string decoder;  // sources: the decoder in use
  std::string encoder;  // sinks: the encoder in use
  std::string output;   // sinks: the file written
  std::int64_t frames = 0;
  double total_ms = 0;  // busy time of the stage
  // Sources and processing stages: the graph thread's host time a frame spent enqueueing the
  // node's work (its upload; its launches) — on CUDA, apart from its GPU time in total_ms.
  double enqueue_ms = 0;
  DecodeErrors decode_errors;  // sources: damaged packets and frames skipped
  std::string drop_policy;            // sources and sinks: what their full queue did (oldest, newest, never)
  // Sources: frames decoded but dropped because the graph was behind; sinks (drop: oldest):
  // frames this output left out because it was behind (`frames` counts those written).
  std::int64_t frames_dropped = 0;
  // Live sources that drop when behind: frames that were already waiting when reading began
  // (or a reconnected session began), skipped so that the first frame processed is current.
  std::int64_t frames_skipped_to_live = 0;
  std::optional<ReconnectStats> reconnect;  // sources that reconnect: gaps and reconnects
  double mean_ms() const { return frames > 0 ? total_ms / static_cast<double>(frames) : 0.0; }
};

struct RunStats {
  std::string pipeline;  // the pipeline file
  std::string device;    // e.g. "cpu"
  std::int64_t frames = 0;  // frames that went through the whole graph
  std::int64_t frames_dropped = 0;  // by every source's and sink's queue (drop policy), in all
  double wall_seconds = 0;
  // From the start of the run to the first frame through the graph: opening the inputs,
  // the decoders' and the stages' set-up, the first frame's latency. -1 without frames.
  double first_frame_seconds = -1;
  bool interrupted = false;  // stopped early by Ctrl-C
  std::vector<StageTiming> stages;  // in the pipeline's order, sources and sinks included
  LatencyHistogram latency_ms;      // per frame, arrival at the source -> written by each sink
  std::vector<std::string> outputs;  // files written
  // The graph's thread: host time spent enqueueing frames (uploads, the stages' launches;
  // on the CPU, the stages themselves) and blocked waiting for a slot's frame to complete.
  // Enqueue time is what capturing a slot's work into a CUDA Graph could at most save.
  double enqueue_ms = 0;
  double wait_ms = 0;
  // The host side of the frames: CPU time of the run's own threads (the graph's, each
  // source's and each sink's, while frames flowed: decoding, uploads and launches, the
  // encoder's input copies; not FFmpeg's worker threads), and the bytes copied between host
  // and device (PCIe; 0 on the CPU).
  double host_cpu_ms = 0;
  std::int64_t bytes_uploaded = 0;
  std::int64_t bytes_downloaded = 0;

  double fps() const { return wall_seconds > 0 ? static_cast<double>(frames) / wall_seconds : 0.0; }
};

std::string stats_to_json(const RunStats& stats);  // pretty-printed JSON document
std::string stats_summary(const RunStats& stats);  // a short human-readable table

}  // namespace fp
