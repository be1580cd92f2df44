// temporal_nlmeans' CUDA op (cuda/frame_ops.hpp): its history on the device, and the order
// of frames across slots.
//
// Frames come to run() in order, but frame n runs on its slot's stream while frame n - 1 may
// still run on another. Frame n reads what frame n - 1 left (the kept frames, the history's
// state) and overwrites the oldest kept frame, so its stream first waits for an event that
// frame n - 1 recorded after its last use of them: this stage's work runs frame after frame
// while the stages around it still overlap. No host wait: even the choice of how many
// previous frames to use is made on the device (cuda::decide_history). One set of buffers
// therefore serves every slot.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "core/ops/temporal_history.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_image.hpp"
#include "cuda/frame_ops.hpp"
#include "cuda/motion_search.hpp"
#include "cuda/nlmeans.hpp"
#include "cuda/stream.hpp"
#include "cuda/temporal_nlmeans.hpp"

namespace fp::cuda {
namespace {

// One frame kept: its input and pyramid (motion is searched in them) and, when recursive,
// its output (searched for patches instead of the input).
struct Kept {
  DeviceImage<std::uint8_t> input;
  DeviceImage<std::uint8_t> halves[ops::kMotionLevels - 1];
  DeviceImage<std::uint8_t> output;
};

class TemporalNlmeansOp final : public ops::FrameOp {
 public:
  TemporalNlmeansOp(const ops::TemporalNlmeansParams& params, const ops::OpShape& shape)
      : params_(params), width_(shape.width), height_(shape.height), forked_(cudaEventDisableTiming),
        searched_(cudaEventDisableTiming), done_(cudaEventDisableTiming) {
    check_temporal_nlmeans_params(params_);
    if (params_.frames == 0) return;  // spatial only: nothing kept
    for (int i = 0; i <= params_.frames; ++i) {
      Kept kept;
      kept.input = DeviceImage<std::uint8_t>(width_, height_);
      for (int l = 1; l < ops::kMotionLevels; ++l)
        kept.halves[l - 1] =
            DeviceImage<std::uint8_t>(ops::motion_level_size(width_, l), ops::motion_level_size(height_, l));
      if (params_.recursive) kept.output = DeviceImage<std::uint8_t>(width_, height_);
      kept_.push_back(std::move(kept));
    }
    const std::size_t blocks =
        static_cast<std::size_t>(ops::motion_blocks(width_)) * static_cast<std::size_t>(ops::motion_blocks(height_));
    const auto frames = static_cast<std::size_t>(params_.frames);
    vectors_ = DeviceArray<ops::MotionVector>(blocks * frames);
    sads_ = DeviceArray<std::int32_t>(blocks * frames);
    sad_sums_ = DeviceArray<unsigned long long>(frames);
    history_ = DeviceArray<ops::TemporalHistory>(1);
    use_ = DeviceArray<int>(1);
    num_ = DeviceImage<float>(width_, height_);
    den_ = DeviceImage<float>(width_, height_);
    blocks_ = blocks;
  }

  // Frame n: the current frame's window sums on the slot's stream while, on the op's own
  // stream, the pyramid, the motion search into every frame kept and the history's decision
  // run beside them; then the previous frames' windows and the division, and the copy kept.
  void run(std::span<const Frame> inputs, Frame& out, FrameContext& context) override {
    const cudaStream_t stream = context.stream;
    const ConstImageU8 current = inputs[0].luma().cview();
    if (current.width != width_ || current.height != height_)
      throw std::invalid_argument("temporal_nlmeans: a frame of another size than the stage was prepared for");
    if (params_.frames == 0) {
      nlmeans(current, out.luma().view(), params_.spatial, stream);
      return;
    }
    if (recorded_) FP_CUDA_CHECK(cudaStreamWaitEvent(stream, done_.get(), 0));
    const bool reset = first_ || inputs[0].follows_gap;
    if (reset) kept_count_ = 0;

    // The motion side: it starts once the slot's stream has the frame (and frame n - 1 is done).
    forked_.record(stream);
    FP_CUDA_CHECK(cudaStreamWaitEvent(side_.get(), forked_.get(), 0));
    Kept& now = kept_[static_cast<std::size_t>(next_)];
    ImageU8 halves[ops::kMotionLevels - 1];
    for (int l = 0; l < ops::kMotionLevels - 1; ++l) halves[l] = now.halves[l].view();
    build_motion_levels(current, halves, side_.get());
    FP_CUDA_CHECK(cudaMemsetAsync(sad_sums_.get(), 0, sad_sums_.size() * sizeof(unsigned long long), side_.get()));
    TemporalFrames previous;
    previous.count = kept_count_;
    MotionLevels targets[ops::kMaxTemporalFrames];
    for (int j = 1; j <= kept_count_; ++j) {
      const Kept& before = this->previous(j);
      targets[j - 1] = levels(before.input.view(), before);
      previous.frame[j - 1] = params_.recursive ? before.output.view() : before.input.view();
      previous.vectors[j - 1] = vectors_.get() + static_cast<std::size_t>(j - 1) * blocks_;
    }
    motion_search(levels(current, now), targets, kept_count_, params_.motion, vectors_.get(), sads_.get(),
                  sad_sums_.get(), side_.get());
    decide_history(history_.get(), sad_sums_.get(), reset, static_cast<std::int64_t>(width_) * height_,
                   params_.frames, use_.get(), side_.get());
    searched_.record(side_.get());

    nlmeans_sums(current, num_.view(), den_.view(), params_.spatial, stream);
    FP_CUDA_CHECK(cudaStreamWaitEvent(stream, searched_.get(), 0));
    temporal_finish(current, previous, use_.get(), params_, num_.view(), den_.view(), out.luma().view(), stream);

    copy(current, now.input.view(), stream);
    if (params_.recursive) copy(out.luma().cview(), now.output.view(), stream);
    done_.record(stream);
    recorded_ = true;
    first_ = false;
    next_ = (next_ + 1) % static_cast<int>(kept_.size());
    kept_count_ = std::min(kept_count_ + 1, params_.frames);
  }

 private:
  // The frame j frames before the current one (1: the previous).
  const Kept& previous(int j) const {
    const int n = static_cast<int>(kept_.size());
    return kept_[static_cast<std::size_t>((next_ - j + n) % n)];
  }
  static MotionLevels levels(ConstImageU8 frame, const Kept& kept) {
    MotionLevels l{};
    l.level[0] = frame;
    for (int i = 1; i < ops::kMotionLevels; ++i) l.level[i] = kept.halves[i - 1].view();
    return l;
  }

  ops::TemporalNlmeansParams params_;
  int width_;
  int height_;
  std::vector<Kept> kept_;  // a ring: the current frame's place, then the previous ones
  int next_ = 0;            // the current frame's place in it
  int kept_count_ = 0;      // frames kept since the last reset: the device may use fewer (a cut)
  bool first_ = true;
  std::size_t blocks_ = 0;
  DeviceArray<ops::MotionVector> vectors_;   // into previous frame j at (j - 1) * blocks_
  DeviceArray<std::int32_t> sads_;
  DeviceArray<unsigned long long> sad_sums_;  // per previous frame; the nearest's decides a cut
  DeviceArray<ops::TemporalHistory> history_;
  DeviceArray<int> use_;
  DeviceImage<float> num_;  // the current frame's window sums (cuda::nlmeans_sums)
  DeviceImage<float> den_;
  Stream side_;             // the motion search's, beside the slot's stream
  Event forked_;            // the slot's stream has the frame: the side may start
  Event searched_;          // the side is done: the previous frames' windows may be summed
  Event done_;              // recorded after each frame's last use of the buffers above
  bool recorded_ = false;
};

}  // namespace

std::unique_ptr<ops::FrameOp> make_temporal_nlmeans_op(const ops::TemporalNlmeansParams& params,
                                                       const ops::OpShape& shape) {
  return std::make_unique<TemporalNlmeansOp>(params, shape);
}

}  // namespace fp::cuda
