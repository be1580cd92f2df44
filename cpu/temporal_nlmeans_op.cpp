// temporal_nlmeans' CPU op: the history it keeps from frame to frame (cpu/frame_ops.hpp).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/ops/temporal_history.hpp"
#include "cpu/frame_ops.hpp"
#include "cpu/motion_search.hpp"
#include "cpu/temporal_nlmeans.hpp"

namespace fp::cpu {
namespace {

// A copy of a plane's pixels, tightly packed.
void copy_into(ConstImageU8 from, std::vector<std::uint8_t>& to) {
  to.resize(static_cast<std::size_t>(from.width) * static_cast<std::size_t>(from.height));
  for (int y = 0; y < from.height; ++y) std::copy_n(from.row(y), from.width, to.data() + static_cast<std::size_t>(y) * from.width);
}

// One frame kept: its input (what motion is searched in) with its pyramid, and, when
// recursive, its output (what is searched for patches).
struct Kept {
  std::vector<std::uint8_t> input;
  std::vector<std::uint8_t> output;
  MotionPyramid levels;
};

class TemporalNlmeansOp final : public ops::FrameOp {
 public:
  explicit TemporalNlmeansOp(const ops::TemporalNlmeansParams& params)
      : params_(params), kept_(static_cast<std::size_t>(params.frames) + 1),
        fields_(static_cast<std::size_t>(params.frames)) {
    check_temporal_nlmeans_params(params_);
  }

  void run(std::span<const Frame> inputs, Frame& out, FrameContext&) override {
    const ConstImageU8 current = inputs[0].luma().cview();
    if (params_.frames == 0) {  // spatial only: nothing kept, no motion searched
      temporal_nlmeans(current, {}, params_, out.luma().view(), scratch_);
      return;
    }
    // A gap in the stream or a new size (a new stream): the frames kept are not this one's past.
    if (inputs[0].follows_gap || current.width != width_ || current.height != height_) {
      history_ = {};
      width_ = current.width;
      height_ = current.height;
    }
    Kept& now = kept_[static_cast<std::size_t>(next_)];
    now.levels.build(current);
    // Vectors into every frame kept; the nearest's SAD tells a scene cut.
    const int kept = history_.kept;
    for (int j = 1; j <= kept; ++j) {
      const Kept& before = previous(j);
      motion_search(current, now.levels, view(before.input), before.levels, params_.motion, fields_[static_cast<std::size_t>(j - 1)]);
    }
    const std::int64_t sad = kept > 0 ? fields_[0].sad : 0;
    const int use = ops::take_history(history_, sad, static_cast<std::int64_t>(width_) * height_, params_.frames);
    references_.clear();
    for (int j = 1; j <= use; ++j) {
      const Kept& before = previous(j);
      references_.push_back({view(params_.recursive ? before.output : before.input), &fields_[static_cast<std::size_t>(j - 1)]});
    }
    temporal_nlmeans(current, references_, params_, out.luma().view(), scratch_);
    copy_into(current, now.input);
    if (params_.recursive) copy_into(out.luma().cview(), now.output);
    next_ = (next_ + 1) % static_cast<int>(kept_.size());
  }

 private:
  // The frame j frames before the current one (1: the previous).
  const Kept& previous(int j) const {
    const int n = static_cast<int>(kept_.size());
    return kept_[static_cast<std::size_t>((next_ - j + n) % n)];
  }
  ConstImageU8 view(const std::vector<std::uint8_t>& pixels) const { return {pixels.data(), width_, height_, width_}; }

  ops::TemporalNlmeansParams params_;
  std::vector<Kept> kept_;  // a ring: the current frame's place, then the previous ones
  int next_ = 0;            // the current frame's place in it
  std::vector<MotionField> fields_;  // into the previous frame j at j - 1
  std::vector<TemporalReference> references_;
  TemporalNlmeansScratch scratch_;
  ops::TemporalHistory history_;
  int width_ = -1;
  int height_ = -1;
};

}  // namespace

std::unique_ptr<ops::FrameOp> make_temporal_nlmeans_op(const ops::TemporalNlmeansParams& params) {
  return std::make_unique<TemporalNlmeansOp>(params);
}

}  // namespace fp::cpu
