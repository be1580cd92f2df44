// What this process uses now, as the kernel counts it: CPU time of every thread (those of
// libraries too: x264's, FFmpeg's), resident memory. Read by `framepipe bench --pipeline`
// and by the stream manager's admission, which both measure from outside the engine.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <utility>

namespace fp {

double process_cpu_seconds();  // user + system, every thread's, ended ones' included
std::size_t resident_bytes();  // 0 when it cannot be read

// The process's cores busy over a sliding window (about `window` long): add() a sample now
// and then, cores() the average over the samples kept.
class CpuRateWindow {
 public:
  using Clock = std::chrono::steady_clock;
  explicit CpuRateWindow(Clock::duration window) : window_(window) {}
  void add(Clock::time_point at, double cpu_seconds);
  double cores() const;  // 0 until two samples are a moment apart

 private:
  Clock::duration window_;
  std::deque<std::pair<Clock::time_point, double>> samples_;
};

}  // namespace fp
