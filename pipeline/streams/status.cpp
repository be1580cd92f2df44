#include "pipeline/streams/status.hpp"

#include "stages/registry.hpp"

namespace fp {

const char* stream_state_name(StreamState state) {
  switch (state) {
    case StreamState::Waiting: return "waiting";
    case StreamState::Starting: return "starting";
    case StreamState::Running: return "running";
    case StreamState::Reconnecting: return "reconnecting";
    case StreamState::Finished: return "finished";
    case StreamState::Failed: return "failed";
    case StreamState::Draining: return "draining";
  }
  return "unknown";
}

std::int64_t input_reconnects(const RunStats& published) {
  std::int64_t total = 0;
  for (const auto& stage : published.stages) {
    const StageSpec* spec = find_stage(stage.type);
    if (spec != nullptr && spec->role == StageRole::Source && stage.reconnect) total += stage.reconnect->reconnects;
  }
  return total;
}

StreamState live_stream_state(const RunStats& published, bool reconnecting) {
  if (reconnecting) return StreamState::Reconnecting;
  if (published.frames > 0) return StreamState::Running;
  for (const auto& stage : published.stages)
    if (stage.frames > 0) return StreamState::Running;
  return StreamState::Starting;
}

}  // namespace fp
