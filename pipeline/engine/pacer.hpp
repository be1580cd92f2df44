// Paces a file or test source at its frame rate (`--realtime`), as a camera would deliver
// it: frame n is released when its presentation time, counted from the first frame, has
// come. A source that falls behind is not made to catch up in a burst (the pace restarts
// from the late frame), and the wait ends early when the run is stopping.
#pragma once
#if !defined(FRAMEPIPE_ROOM_ENGINE)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/engine/pacer.hpp is private to pipeline/engine/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <atomic>
#include <chrono>
#include <cstdint>

#include "core/frame.hpp"
#include "media/video_info.hpp"

namespace fp {

class Pacer {
 public:
  using Clock = std::chrono::steady_clock;
  // A frame later than this restarts the pace instead of releasing a burst of late frames;
  // so it is also about the most a backlog adds to a frame's latency.
  static constexpr double kMaxLateSeconds = 0.5;

  explicit Pacer(const VideoInfo& info) : info_(info) {}

  // Blocks until `frame` is due; returns false when `stop` was set while waiting.
  bool wait_until_due(const Frame& frame, const std::atomic<bool>& stop);
  // When the last frame waited for was due: its arrival, as a camera would have delivered it
  // (earlier than now when the source fell behind, so latency counts the backlog).
  Clock::time_point last_due() const { return last_due_; }

 private:
  // Seconds from the first frame to `frame`, from its pts (or its sequence and the nominal
  // frame rate when it has none).
  double offset_seconds(const Frame& frame) const;

  VideoInfo info_;
  bool started_ = false;
  Clock::time_point origin_{};
  double origin_offset_ = 0;
  Clock::time_point last_due_{};
};

}  // namespace fp
