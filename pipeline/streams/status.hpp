// What a stream is doing now, as the stream manager reports it (manager.hpp) and every
// front end renders it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/engine/run_stats.hpp"
#include "pipeline/stream_spec/spec.hpp"

namespace fp {

enum class StreamState { Waiting, Starting, Running, Reconnecting, Finished, Failed, Draining };
inline constexpr std::size_t kStreamStateCount = 7;
const char* stream_state_name(StreamState state);  // "waiting", "starting", ...
// A started, not yet ended stream's state from what its executor published: reconnecting
// while a source is between a loss and its return, running once a frame went through (or a
// source decoded one; not at the first heartbeat, which comes before the inputs open: a
// camera that never answers is not running), else starting. Shared by every front end.
StreamState live_stream_state(const RunStats& published, bool reconnecting);
// The times a stream's inputs were lost and came back (an output's reconnects are its
// receiver's, not the stream's): StreamStatus::reconnects.
std::int64_t input_reconnects(const RunStats& published);

// What a stream is doing now (a copy: safe to keep and render).
struct StreamStatus {
  std::string name;
  std::string pipeline;
  std::string uri;  // masked
  StreamSource source = StreamSource::Api;
  StreamState state = StreamState::Starting;
  std::chrono::system_clock::time_point since{};  // when it entered `state`
  std::int64_t frames = 0;          // through the whole graph
  double fps = 0;                   // over the last few seconds
  // Cores its work keeps busy over the last ~10 s: its own threads' and the CPU pool's work
  // on its stages, measured, and its share of x264's and FFmpeg's threads (manager_impl.hpp).
  double cpu_cores = 0;
  std::int64_t dropped = 0;         // by every source's and sink's queue
  double latency_p50_ms = 0;
  double latency_p99_ms = 0;
  // The same over the last ~10 s (latency_recent_seconds: the window it covers): what the
  // stream does now, which a week of history would hide.
  double latency_recent_p50_ms = 0;
  double latency_recent_p99_ms = 0;
  double latency_recent_seconds = 0;
  std::int64_t reconnects = 0;
  // Times the manager started this live stream again after it failed (a camera off when it
  // was added, or lost beyond its input's own reconnect attempts); 0 for a new stream.
  std::int64_t restarts = 0;
  // While it waits to be started again (state reconnecting): when, and the wait chosen
  // (RestartBackoff); else the epoch and 0.
  std::chrono::system_clock::time_point next_restart{};
  std::chrono::milliseconds restart_wait{0};
  // Masked; empty when none. "capacity" while it waits for a place (--max-streams); the
  // failure that it is being restarted after while reconnecting.
  std::string last_error;
  std::vector<std::string> outputs;  // the files and URLs it writes (masked)
  RunStats stats;                    // the executor's latest published stats (metrics read these)
};

}  // namespace fp
