#include "pipeline/engine/pacer.hpp"

#include <algorithm>
#include <thread>

namespace fp {

namespace {
// How often a wait looks at the stop flag: a stop is seen within this time.
constexpr auto kStopCheck = std::chrono::milliseconds(20);
}  // namespace

double Pacer::offset_seconds(const Frame& frame) const {
  if (frame.pts != kNoPts && frame.time_base.den != 0) return static_cast<double>(frame.pts) * frame.time_base.value();
  const double rate = info_.frame_rate.value();
  return rate > 0 ? static_cast<double>(frame.sequence) / rate : 0.0;
}

bool Pacer::wait_until_due(const Frame& frame, const std::atomic<bool>& stop) {
  const double offset = offset_seconds(frame);
  const auto now = Clock::now();
  const auto due = origin_ + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(offset - origin_offset_));
  const double late = std::chrono::duration<double>(now - due).count();
  // The first frame, a jump in the timestamps (backwards or far ahead) or a source that fell
  // far behind: this frame is due now and later frames are paced from it.
  if (!started_ || late > kMaxLateSeconds || offset < origin_offset_ || -late > 10.0) {
    started_ = true;
    origin_ = now;
    origin_offset_ = offset;
    last_due_ = now;
    return !stop.load();
  }
  last_due_ = due;
  while (Clock::now() < due) {
    if (stop.load()) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(due - Clock::now(), kStopCheck));
  }
  return !stop.load();
}

}  // namespace fp
