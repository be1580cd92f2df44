// When each packet of a stream came in, so that a decoded frame's latency is counted from
// its packet's arrival (a decoder holds frames back: reordering, frame threads), not from
// when the decoder let it out. Keeps the last few packets only; a frame whose packet is no
// longer known (or that has no timestamp) arrives when it is decoded.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace fp {

class PacketArrivals {
 public:
  using Clock = std::chrono::steady_clock;

  // Over the packet added kKept packets ago, if it is still there: a fixed ring, so that a
  // packet costs no heap allocation (a deque took a block every 32 packets).
  void add(std::int64_t pts, Clock::time_point when) {
    arrivals_[next_] = Arrival{pts, when, true};
    next_ = (next_ + 1) % kKept;
  }

  // The arrival of the packet with this pts (and forgets it), or now.
  Clock::time_point take(std::int64_t pts) {
    for (auto& arrival : arrivals_) {
      if (!arrival.known || arrival.pts != pts) continue;
      arrival.known = false;
      return arrival.when;
    }
    return Clock::now();
  }

  void clear() { arrivals_.fill(Arrival{}); }

 private:
  static constexpr std::size_t kKept = 64;  // far more than any decoder's delay
  struct Arrival {
    std::int64_t pts = 0;
    Clock::time_point when{};
    bool known = false;
  };
  std::array<Arrival, kKept> arrivals_{};
  std::size_t next_ = 0;  // the slot the next packet takes: the oldest
};

}  // namespace fp
