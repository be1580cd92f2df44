// testsrc://: frames drawn by TestPattern, with pts = frame index in a time base of 1/fps.
#include <chrono>
#include <cstring>
#include <vector>
#include <new>

#include "core/frame_pool.hpp"
#include "media/media_error.hpp"
#include "media/sources.hpp"
#include "media/test_pattern.hpp"
#include "media/testsrc_uri.hpp"

namespace fp {

namespace {

class TestSource final : public FrameSource {
 public:
  TestSource(std::string uri, const TestSourceParams& params, const PlaneMemory& memory)
      : uri_(std::move(uri)),
        params_(params),
        pattern_(params.width, params.height, params.noise),
        pool_(params.width, params.height, memory) {
    info_.width = params.width;
    info_.height = params.height;
    info_.frame_rate = params.fps;
    info_.time_base = {params.fps.den, params.fps.num};
    info_.frame_count = params.frames > 0 ? params.frames : -1;
    info_.live = false;  // endless, but frames are made on demand: nothing is ever dropped
  }

  const VideoInfo& info() const override { return info_; }

  std::optional<Frame> read() override {
    if (params_.frames > 0 && next_ >= params_.frames) return std::nullopt;
    Frame frame = acquire();
    if (params_.loop > 0) {
      copy_planes(looped_frame(next_ % params_.loop), frame);
    } else {
      pattern_.render(next_, frame.planes[0].view(), frame.planes[1].view(), frame.planes[2].view());
    }
    frame.pts = next_;
    frame.time_base = info_.time_base;
    frame.sequence = next_;
    frame.arrival = std::chrono::steady_clock::now();
    ++next_;
    return frame;
  }

  std::string decoder_name() const override { return "testsrc"; }

 private:
  // Frame `index` of the loop, drawn the first time it is asked for and kept.
  const Frame& looped_frame(std::int64_t index) {
    if (static_cast<std::size_t>(index) == loop_.size()) {
      Frame drawn = acquire();  // kept for good: the pool makes a new buffer for the next acquire
      pattern_.render(index, drawn.planes[0].view(), drawn.planes[1].view(), drawn.planes[2].view());
      loop_.push_back(std::move(drawn));
    }
    return loop_[static_cast<std::size_t>(index)];
  }

  static void copy_planes(const Frame& from, Frame& to) {
    for (std::size_t p = 0; p < 3; ++p) {
      const Plane& src = from.planes[p];
      const Plane& dst = to.planes[p];
      for (int y = 0; y < src.height; ++y)
        std::memcpy(dst.data + y * dst.pitch, src.data + y * src.pitch, static_cast<std::size_t>(src.width));
    }
  }

  // Sizes up to 16384x16384 are allowed; where memory for one cannot be had, the error
  // names the URI rather than being a bare std::bad_alloc.
  Frame acquire() {
    try {
      return pool_.acquire();
    } catch (const std::bad_alloc&) {
      throw frame_memory_error(uri_, params_.width, params_.height);
    }
  }

  std::string uri_;
  TestSourceParams params_;
  TestPattern pattern_;
  FramePool pool_;
  std::vector<Frame> loop_;  // the frames of `loop`, drawn so far
  VideoInfo info_;
  std::int64_t next_ = 0;
};

}  // namespace

std::unique_ptr<FrameSource> open_test_source(const std::string& uri, const PlaneMemory& memory) {
  return std::make_unique<TestSource>(uri, parse_testsrc_uri(uri), memory);
}

}  // namespace fp
