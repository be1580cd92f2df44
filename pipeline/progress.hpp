// The progress line on a terminal: frames, fps, elapsed time and, when the length is
// known, the ETA. Rewritten in place at most a few times a second.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace fp {

class ProgressLine {
 public:
  // Shows nothing unless `enabled` (the CLI enables it when stderr is a terminal).
  ProgressLine(bool enabled, std::int64_t total_frames, std::FILE* out = stderr);
  ~ProgressLine();
  void update(std::int64_t frames);
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
