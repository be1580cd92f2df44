// The progress line on a terminal: frames, fps, elapsed time and, when the length is
// known, the ETA; frames dropped and the latest latency when there are any. Rewritten in place at most a few times a second.
#pragma once
#if !defined(FRAMEPIPE_ROOM_ENGINE)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/engine/progress.hpp is private to pipeline/engine/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace fp {

class ProgressLine {
 public:
  // Shows nothing unless `enabled` (the CLI enables it when stderr is a terminal).
  ProgressLine(bool enabled, std::int64_t total_frames, std::FILE* out = stderr);
  ~ProgressLine();
  // `dropped`: frames the sources' queues dropped so far; `latency_ms`: the latest frame's
  // (arrival to written), negative when not known yet. Each is shown once it is non-zero/known.
  void update(std::int64_t frames, std::int64_t dropped = 0, double latency_ms = -1);
  void finish();  // clears the line

 private:
  bool enabled_;
  std::int64_t total_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

}  // namespace fp
