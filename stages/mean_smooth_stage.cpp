#include "stages/mean_smooth_stage.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "cpu/frame_ops.hpp"
#include "cuda/frame_ops.hpp"
#include "cuda/limits.hpp"
#include "stages/luma_plane_stage.hpp"

namespace fp {

namespace {

class MeanSmoothStage final : public LumaPlaneStage {
 public:
  MeanSmoothStage(int radius, StageContext context) : LumaPlaneStage(std::move(context)), radius_(radius) {}

  VideoInfo prepare(std::span<const VideoInfo> inputs) override {
    // The config validation refuses this already (the table's cuda_max); this catches a
    // definition that was validated for another device than the one it runs on.
    if (on_cuda() && radius_ > cuda::kMeanSmoothMaxRadius)
      throw std::runtime_error(fmt::format(
          "stage '{}': radius {} is above {}, the largest the CUDA kernel takes; lower it or run with --device cpu",
          context().id, radius_, cuda::kMeanSmoothMaxRadius));
    return LumaPlaneStage::prepare(inputs);
  }

 private:
  std::unique_ptr<ops::FrameOp> make_op(const ops::OpShape&) override {
    return on_cuda() ? FP_CUDA_ONLY(cuda::make_mean_smooth_op(radius_)) : cpu::make_mean_smooth_op(radius_);
  }

  int radius_;
};

}  // namespace

StageSpec mean_smooth_stage_spec() {
  StageSpec spec;
  spec.type = "mean_smooth";
  spec.help = "mean of the luma over a (2r+1)x(2r+1) window, border replicate; cost independent of r";
  // Works on the luma; the chroma passes through.
  spec.planes = {.luma = PlaneOrigin::Computed, .chroma = PlaneOrigin::FirstInput, .reads_chroma = false};
  spec.params = {
      {.name = "radius", .type = ParamType::Int, .help = "window radius r",
       .default_value = std::int64_t{2}, .range = {.min = 1, .max = 1024}, .cuda_max = cuda::kMeanSmoothMaxRadius},
  };
  spec.create = [](const StageParams& params, const StageContext& context) -> std::unique_ptr<Stage> {
    return std::make_unique<MeanSmoothStage>(static_cast<int>(params.integer("radius")), context);
  };
  return spec;
}

}  // namespace fp
