// When a thread next publishes to the RunMonitor: each thread keeps its own, so that a frame
// costs a clock read, and a copy of its counters only every RunMonitor::kPublishInterval.
#pragma once
#if !defined(FRAMEPIPE_ROOM_ENGINE)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/engine/publish_throttle.hpp is private to pipeline/engine/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <chrono>

#include "pipeline/engine/run_monitor.hpp"

namespace fp {

class PublishThrottle {
 public:
  bool due() {
    const auto now = std::chrono::steady_clock::now();
    if (now < next_) return false;
    next_ = now + RunMonitor::kPublishInterval;
    return true;
  }

 private:
  std::chrono::steady_clock::time_point next_{};
};

}  // namespace fp
