// When each packet of a stream came in, so that a decoded frame's latency is counted from
// its packet's arrival (a decoder holds frames back: reordering, frame threads), not from
// when the decoder let it out. Keeps the last few packets only; a frame whose packet is no
// longer known (or that has no timestamp) arrives when it is decoded.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>

namespace fp {

class PacketArrivals {
 public:
  using Clock = std::chrono::steady_clock;

  void add(std::int64_t pts, Clock::time_point when) {
    if (arrivals_.size() == kKept) arrivals_.pop_front();
    arrivals_.emplace_back(pts, when);
  }

  // The arrival of the packet with this pts (and forgets it), or now.
  Clock::time_point take(std::int64_t pts) {
    for (auto it = arrivals_.begin(); it != arrivals_.end(); ++it) {
      if (it->first != pts) continue;
      const auto when = it->second;
      arrivals_.erase(it);
      return when;
    }
    return Clock::now();
  }

  void clear() { arrivals_.clear(); }

 private:
  static constexpr std::size_t kKept = 64;  // far more than any decoder's delay
  std::deque<std::pair<std::int64_t, Clock::time_point>> arrivals_;
};

}  // namespace fp
