#include "stages/thinning_stage.hpp"

#include <cstring>

#include "cpu/luma_histogram.hpp"
#include "cpu/thinning.hpp"
#include "stages/luma_plane_stage.hpp"

#ifdef FRAMEPIPE_WITH_CUDA
#include <memory>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/device_image.hpp"
#include "cuda/thinning.hpp"
#include "stages/luma_stats_slots.hpp"
#endif

namespace fp {

namespace {

constexpr int kOtsu = -1;

// Sets every sample of a plane where it lives (device memory: on the legacy stream).
void fill_plane(const Plane& plane, MemoryLocation location, std::uint8_t value) {
#ifdef FRAMEPIPE_WITH_CUDA
  if (location == MemoryLocation::Device) {
    FP_CUDA_CHECK(cudaMemset2D(plane.data, plane.pitch, value, plane.width, plane.height));
    return;
  }
#endif
  (void)location;
  for (int y = 0; y < plane.height; ++y) std::memset(plane.view().row(y), value, plane.width);
}

class ThinningStage final : public LumaPlaneStage {
 public:
  ThinningStage(int threshold, StageContext context) : LumaPlaneStage(std::move(context)), threshold_(threshold) {}

  VideoInfo prepare(std::span<const VideoInfo> inputs) override {
    VideoInfo info = LumaPlaneStage::prepare(inputs);
    // A skeleton is black and white: neutral chroma, made once and shared by every frame.
    FramePool chroma_pool(info.width, info.height, plane_memory_for(context().device));
    Frame gray = chroma_pool.acquire();
    for (int p = 1; p < 3; ++p) {
      fill_plane(gray.planes[p], gray.location, 128);
      neutral_chroma_[p - 1] = gray.planes[p];
    }
#ifdef FRAMEPIPE_WITH_CUDA
    if (on_cuda()) {
      if (threshold_ == kOtsu) otsu_ = std::make_unique<LumaStatsSlots>(context().slots, info.width, info.height);
      for (int s = 0; s < context().slots; ++s)
        workspaces_.emplace_back(cuda::thinning_workspace_bytes(info.width, info.height));
      FP_CUDA_CHECK(cudaDeviceSynchronize());  // the chroma fill ran on the legacy stream
    }
#endif
    return info;
  }

  Frame process(std::span<const Frame> inputs, FrameContext& frame_context) override {
    Frame out = output_like(inputs[0]);
    out.planes[1] = neutral_chroma_[0];
    out.planes[2] = neutral_chroma_[1];
    const auto src = inputs[0].luma().cview();
#ifdef FRAMEPIPE_WITH_CUDA
    if (on_cuda()) {
      // Otsu's threshold goes from the histogram kernel to the thinning kernel in device
      // memory: no host round trip.
      void* workspace = workspaces_[frame_context.slot].get();
      if (threshold_ == kOtsu) {
        const auto* stats = otsu_->compute(src, frame_context.slot, frame_context.stream);
        cuda::thinning(src, out.luma().view(), &stats->otsu, workspace, frame_context.stream);
      } else {
        cuda::thinning(src, out.luma().view(), threshold_, workspace, frame_context.stream);
      }
      return out;
    }
#endif
    (void)frame_context;
    const int threshold = threshold_ == kOtsu ? cpu::otsu_threshold(cpu::histogram(src)) : threshold_;
    cpu::thinning(src, out.luma().view(), threshold);
    return out;
  }

 private:
  int threshold_;
  Plane neutral_chroma_[2];
#ifdef FRAMEPIPE_WITH_CUDA
  std::unique_ptr<LumaStatsSlots> otsu_;
  std::vector<cuda::DeviceArray<std::uint8_t>> workspaces_;  // one per slot
#endif
};

}  // namespace

StageSpec thinning_stage_spec() {
  StageSpec spec;
  spec.type = "thinning";
  spec.help = "binarizes the luma (value > threshold) and thins it to a skeleton (Zhang-Suen); output 0/255";
  spec.params = {
      {.name = "threshold", .type = ParamType::Int,
       .help = "binarization threshold, or otsu to compute it per frame from the histogram",
       .default_value = std::string("otsu"), .range = {.min = 0, .max = 255}, .keywords = {"otsu"}},
  };
  spec.create = [](const StageParams& params, const StageContext& context) -> std::unique_ptr<Stage> {
    const int threshold = params.is_keyword("threshold") ? kOtsu : static_cast<int>(params.integer("threshold"));
    return std::make_unique<ThinningStage>(threshold, context);
  };
  return spec;
}

}  // namespace fp
