#include "cuda/frame_ops.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "core/frame_pool.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_image.hpp"
#include "cuda/luma_histogram.hpp"
#include "cuda/luma_stats_slots.hpp"
#include "cuda/mean_smooth.hpp"
#include "cuda/nlmeans.hpp"
#include "cuda/plane_memory.hpp"
#include "cuda/pyramid_fusion.hpp"
#include "cuda/stream.hpp"
#include "cuda/thinning.hpp"
#include "cuda/tile.hpp"

namespace fp::cuda {

namespace {

// One device scratch buffer per frame slot: slots run at once on their own streams.
std::vector<DeviceArray<std::uint8_t>> per_slot(int slots, std::size_t bytes) {
  std::vector<DeviceArray<std::uint8_t>> buffers;
  for (int s = 0; s < slots; ++s) buffers.emplace_back(bytes);
  return buffers;
}

class LumaHistogramOp final : public ops::FrameOp {
 public:
  LumaHistogramOp(const ops::OpShape& shape, ops::LumaStatsReceiver receiver)
      : stats_(shape.slots, shape.width, shape.height),
        readback_(static_cast<std::size_t>(shape.slots)),
        receiver_(std::move(receiver)) {}

  // The stats stay on the device; one small asynchronous copy brings them into pinned
  // memory, and they are handed on once the slot's work is complete.
  void run(std::span<const Frame> inputs, Frame&, FrameContext& context) override {
    const Frame& frame = inputs[0];
    auto* device_stats = stats_.compute(frame.luma().cview(), context.slot, context.stream);
    auto* host_stats = readback_.get() + context.slot;
    FP_CUDA_CHECK(
        cudaMemcpyAsync(host_stats, device_stats, sizeof(*host_stats), cudaMemcpyDeviceToHost, context.stream));
    Frame timing;
    timing.copy_timing_from(frame);
    context.when_complete([this, timing, host_stats] {
      ops::LumaStats stats;
      std::copy(std::begin(host_stats->bins), std::end(host_stats->bins), stats.bins.begin());
      stats.mean = host_stats->mean;
      stats.otsu = host_stats->otsu;
      receiver_(timing, stats);
    });
  }

 private:
  LumaStatsSlots stats_;
  PinnedArray<LumaStatsDevice> readback_;
  ops::LumaStatsReceiver receiver_;
};

class MeanSmoothOp final : public ops::FrameOp {
 public:
  explicit MeanSmoothOp(int radius) : radius_(radius) {}
  void run(std::span<const Frame> inputs, Frame& out, FrameContext& context) override {
    mean_smooth(inputs[0].luma().cview(), out.luma().view(), radius_, context.stream);
  }

 private:
  int radius_;
};

class NlmeansOp final : public ops::FrameOp {
 public:
  explicit NlmeansOp(const ops::NlmeansParams& params) : params_(params) { check_nlmeans_params(params_); }
  void run(std::span<const Frame> inputs, Frame& out, FrameContext& context) override {
    nlmeans(inputs[0].luma().cview(), out.luma().view(), params_, context.stream);
  }

 private:
  ops::NlmeansParams params_;
};

class PyramidFusionOp final : public ops::FrameOp {
 public:
  PyramidFusionOp(ops::FusionParams params, const ops::OpShape& shape)
      : params_(std::move(params)),
        workspace_bytes_(pyramid_fusion_workspace_bytes(shape.width, shape.height, params_.levels)),
        workspaces_(per_slot(shape.slots, workspace_bytes_)) {}
  void run(std::span<const Frame> inputs, Frame& out, FrameContext& context) override {
    pyramid_fusion(inputs[0].luma().cview(), inputs[1].luma().cview(), out.luma().view(), params_,
                   workspaces_[static_cast<std::size_t>(context.slot)].get(), workspace_bytes_, context.stream);
  }

 private:
  ops::FusionParams params_;
  std::size_t workspace_bytes_;
  std::vector<DeviceArray<std::uint8_t>> workspaces_;
};

class ThinningOp final : public ops::FrameOp {
 public:
  ThinningOp(std::optional<int> threshold, const ops::OpShape& shape)
      : threshold_(threshold), workspaces_(per_slot(shape.slots, thinning_workspace_bytes(shape.width, shape.height))) {
    if (!threshold_) otsu_ = std::make_unique<LumaStatsSlots>(shape.slots, shape.width, shape.height);
    // A skeleton is black and white: neutral chroma, made once and shared by every frame.
    // Filled on a stream of its own and waited for here (see LumaStatsSlots: not the device).
    FramePool pool(shape.width, shape.height, device_plane_memory(shape.device));
    const Stream fill;
    for (Plane& plane : chroma_) {
      plane = pool.acquire_chroma();
      FP_CUDA_CHECK(cudaMemset2DAsync(plane.data, static_cast<std::size_t>(plane.pitch), 128,
                                      static_cast<std::size_t>(plane.width), static_cast<std::size_t>(plane.height),
                                      fill.get()));
    }
    fill.synchronize();
  }

  // Otsu's threshold goes from the histogram kernel to the thinning kernel in device memory:
  // no host round trip.
  void run(std::span<const Frame> inputs, Frame& out, FrameContext& context) override {
    out.planes[1] = chroma_[0];
    out.planes[2] = chroma_[1];
    const ConstImageU8 src = inputs[0].luma().cview();
    void* workspace = workspaces_[static_cast<std::size_t>(context.slot)].get();
    if (otsu_) {
      const auto* stats = otsu_->compute(src, context.slot, context.stream);
      thinning(src, out.luma().view(), &stats->otsu, workspace, context.stream);
    } else {
      thinning(src, out.luma().view(), *threshold_, workspace, context.stream);
    }
  }

 private:
  std::optional<int> threshold_;
  std::vector<DeviceArray<std::uint8_t>> workspaces_;
  std::unique_ptr<LumaStatsSlots> otsu_;
  Plane chroma_[2];
};

class TileOp final : public ops::FrameOp {
 public:
  explicit TileOp(ops::TileLayout layout) : layout_(std::move(layout)) {}
  void run(std::span<const Frame> inputs, Frame& out, FrameContext& context) override {
    ops::tile_frame(layout_, inputs, out, [&context](auto planes, const auto& origins, ImageU8 dst, auto fill) {
      tile_plane(planes, origins, dst, fill, context.stream);
    });
  }

 private:
  ops::TileLayout layout_;
};

}  // namespace

std::unique_ptr<ops::FrameOp> make_luma_histogram_op(const ops::OpShape& shape, ops::LumaStatsReceiver receiver) {
  return std::make_unique<LumaHistogramOp>(shape, std::move(receiver));
}
std::unique_ptr<ops::FrameOp> make_mean_smooth_op(int radius) { return std::make_unique<MeanSmoothOp>(radius); }
std::unique_ptr<ops::FrameOp> make_nlmeans_op(const ops::NlmeansParams& params) {
  return std::make_unique<NlmeansOp>(params);
}
std::unique_ptr<ops::FrameOp> make_pyramid_fusion_op(const ops::FusionParams& params, const ops::OpShape& shape) {
  return std::make_unique<PyramidFusionOp>(params, shape);
}
std::unique_ptr<ops::FrameOp> make_thinning_op(std::optional<int> threshold, const ops::OpShape& shape) {
  return std::make_unique<ThinningOp>(threshold, shape);
}
std::unique_ptr<ops::FrameOp> make_tile_op(const ops::TileLayout& layout) { return std::make_unique<TileOp>(layout); }

}  // namespace fp::cuda
