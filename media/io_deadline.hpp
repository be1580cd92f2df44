// A deadline for one blocking FFmpeg call on a network stream (an open, a read, a write),
// checked by the AVIOInterruptCB that FFmpeg polls while it waits. The interrupt callback
// runs on the thread making the call, the one that arms and disarms: no locking.
#pragma once

#include <chrono>
#include <string>

namespace fp {

class IoDeadline {
 public:
  using Clock = std::chrono::steady_clock;

  // enabled: false for files and devices, which have no server to give up on.
  explicit IoDeadline(bool enabled = false) : enabled_(enabled) {}

  void arm(std::chrono::milliseconds limit) {
    if (enabled_) deadline_ = Clock::now() + limit;
  }
  void disarm() { deadline_ = Clock::time_point::max(); }

  // True once the armed deadline has passed; then timed_out() stays true.
  bool expired() {
    if (deadline_ == Clock::time_point::max() || Clock::now() < deadline_) return false;
    timed_out_ = true;
    return true;
  }
  bool timed_out() const { return timed_out_; }

  // "5 s", "0.5 s": a limit for messages.
  static std::string seconds_text(std::chrono::milliseconds limit);

 private:
  bool enabled_;
  Clock::time_point deadline_ = Clock::time_point::max();
  bool timed_out_ = false;
};

}  // namespace fp
