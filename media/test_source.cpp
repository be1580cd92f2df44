// testsrc://: frames drawn by TestPattern, with pts = frame index in a time base of 1/fps.
#include <chrono>
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
    Frame frame;
    if (params_.loop > 0) {
      // The looped frame's planes themselves, shared: frames are never written after they
      // are made, so a benchmark's source costs no copy (a 1080p copy took ~7 ms a frame with
      // 16 such sources on 16 cores, and limited the benchmark it fed).
      frame = looped_frame(next_ % params_.loop);
    } else {
      frame = acquire();
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
      Frame drawn = acquire();  // kept for good, and handed out again every loop
      pattern_.render(index, drawn.planes[0].view(), drawn.planes[1].view(), drawn.planes[2].view());
      loop_.push_back(std::move(drawn));
    }
    return loop_[static_cast<std::size_t>(index)];
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
