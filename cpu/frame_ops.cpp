#include "cpu/frame_ops.hpp"

#include <cstring>
#include <utility>

#include "core/frame_pool.hpp"
#include "cpu/luma_histogram.hpp"
#include "cpu/mean_smooth.hpp"
#include "cpu/nlmeans.hpp"
#include "cpu/pyramid_fusion.hpp"
#include "cpu/thinning.hpp"
#include "cpu/tile.hpp"

namespace fp::cpu {

namespace {

// The ops below keep the scratch of their operation from frame to frame (sized by the first,
// reused by the others), so that a warm pipeline allocates nothing per frame. An op runs one
// frame at a time, which is what each scratch allows.

class LumaHistogramOp final : public ops::FrameOp {
 public:
  explicit LumaHistogramOp(ops::LumaStatsReceiver receiver) : receiver_(std::move(receiver)) {}
  void run(std::span<const Frame> inputs, Frame&, FrameContext&) override {
    receiver_(inputs[0], luma_stats(inputs[0].luma().cview()));
  }

 private:
  ops::LumaStatsReceiver receiver_;
};

class MeanSmoothOp final : public ops::FrameOp {
 public:
  explicit MeanSmoothOp(int radius) : radius_(radius) {}
  void run(std::span<const Frame> inputs, Frame& out, FrameContext&) override {
    mean_smooth(inputs[0].luma().cview(), out.luma().view(), radius_, scratch_);
  }

 private:
  int radius_;
  MeanSmoothScratch scratch_;
};

class NlmeansOp final : public ops::FrameOp {
 public:
  explicit NlmeansOp(const ops::NlmeansParams& params) : params_(params) {}
  void run(std::span<const Frame> inputs, Frame& out, FrameContext&) override {
    nlmeans(inputs[0].luma().cview(), out.luma().view(), params_, scratch_);
  }

 private:
  ops::NlmeansParams params_;
  NlmeansScratch scratch_;
};

class PyramidFusionOp final : public ops::FrameOp {
 public:
  explicit PyramidFusionOp(ops::FusionParams params) : params_(std::move(params)) {}
  void run(std::span<const Frame> inputs, Frame& out, FrameContext&) override {
    pyramid_fusion(inputs[0].luma().cview(), inputs[1].luma().cview(), out.luma().view(), params_, scratch_);
  }

 private:
  ops::FusionParams params_;
  PyramidFusionScratch scratch_;
};

class ThinningOp final : public ops::FrameOp {
 public:
  ThinningOp(std::optional<int> threshold, const ops::OpShape& shape) : threshold_(threshold) {
    // A skeleton is black and white: neutral chroma, made once and shared by every frame.
    FramePool pool(shape.width, shape.height);
    for (Plane& plane : chroma_) {
      plane = pool.acquire_chroma();
      const ImageU8 view = plane.view();
      for (int y = 0; y < view.height; ++y) std::memset(view.row(y), 128, static_cast<std::size_t>(view.width));
    }
  }
  void run(std::span<const Frame> inputs, Frame& out, FrameContext&) override {
    out.planes[1] = chroma_[0];
    out.planes[2] = chroma_[1];
    const ConstImageU8 src = inputs[0].luma().cview();
    thinning(src, out.luma().view(), threshold_ ? *threshold_ : otsu_threshold(histogram(src)), scratch_);
  }

 private:
  std::optional<int> threshold_;
  Plane chroma_[2];
  ThinningScratch scratch_;
};

class TileOp final : public ops::FrameOp {
 public:
  explicit TileOp(ops::TileLayout layout) : layout_(std::move(layout)) {}
  void run(std::span<const Frame> inputs, Frame& out, FrameContext&) override {
    ops::tile_frame(layout_, inputs, out, [](auto planes, const auto& origins, ImageU8 dst, auto fill) {
      tile_plane(planes, origins, dst, fill);
    });
  }

 private:
  ops::TileLayout layout_;
};

}  // namespace

std::unique_ptr<ops::FrameOp> make_luma_histogram_op(ops::LumaStatsReceiver receiver) {
  return std::make_unique<LumaHistogramOp>(std::move(receiver));
}
std::unique_ptr<ops::FrameOp> make_mean_smooth_op(int radius) { return std::make_unique<MeanSmoothOp>(radius); }
std::unique_ptr<ops::FrameOp> make_nlmeans_op(const ops::NlmeansParams& params) {
  return std::make_unique<NlmeansOp>(params);
}
std::unique_ptr<ops::FrameOp> make_pyramid_fusion_op(const ops::FusionParams& params) {
  return std::make_unique<PyramidFusionOp>(params);
}
std::unique_ptr<ops::FrameOp> make_thinning_op(std::optional<int> threshold, const ops::OpShape& shape) {
  return std::make_unique<ThinningOp>(threshold, shape);
}
std::unique_ptr<ops::FrameOp> make_tile_op(const ops::TileLayout& layout) { return std::make_unique<TileOp>(layout); }

}  // namespace fp::cpu
