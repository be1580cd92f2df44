#include "stages/mean_smooth_stage.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "cpu/mean_smooth.hpp"
#include "cuda/limits.hpp"
#include "stages/luma_plane_stage.hpp"

#ifdef FRAMEPIPE_WITH_CUDA
#include "cuda/mean_smooth.hpp"
#endif

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

  Frame process(std::span<const Frame> inputs, FrameContext& frame_context) override {
    Frame out = output_like(inputs[0]);
#ifdef FRAMEPIPE_WITH_CUDA
    if (on_cuda()) {
      cuda::mean_smooth(inputs[0].luma().cview(), out.luma().view(), radius_, frame_context.stream);
      return out;
    }
#endif
    (void)frame_context;
    cpu::mean_smooth(inputs[0].luma().cview(), out.luma().view(), radius_);
    return out;
  }

 private:
  int radius_;
};

}  // namespace

StageSpec mean_smooth_stage_spec() {
  StageSpec spec;
  spec.type = "mean_smooth";
  spec.help = "mean of the luma over a (2r+1)x(2r+1) window, border replicate; cost independent of r";
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
