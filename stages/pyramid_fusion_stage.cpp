#include "stages/pyramid_fusion_stage.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "cpu/frame_ops.hpp"
#include "cuda/frame_ops.hpp"
#include "cuda/limits.hpp"
#include "stages/luma_plane_stage.hpp"

namespace fp {

namespace {

ops::FusionParams fusion_params(const StageParams& params) {
  ops::FusionParams p;
  p.levels = static_cast<int>(params.integer("levels"));
  const auto& rule = params.text("rule");
  p.rule = rule == "average"   ? ops::FusionRule::Average
           : rule == "max_abs" ? ops::FusionRule::MaxAbs
                               : ops::FusionRule::MaxEnergy;
  for (double g : params.list("gain")) p.gain.push_back(static_cast<float>(g));
  return p;
}

class PyramidFusionStage final : public LumaPlaneStage {
 public:
  PyramidFusionStage(const StageParams& params, StageContext context)
      : LumaPlaneStage(std::move(context)), params_(fusion_params(params)) {}

  // The output keeps the first input's chroma and timing.
  VideoInfo prepare(std::span<const VideoInfo> inputs) override {
    if (inputs[0].width != inputs[1].width || inputs[0].height != inputs[1].height)
      throw std::runtime_error(fmt::format("stage '{}': its two inputs differ in size ({}x{} and {}x{})",
                                           context().id, inputs[0].width, inputs[0].height, inputs[1].width,
                                           inputs[1].height));
    return LumaPlaneStage::prepare(inputs);
  }

 private:
  std::unique_ptr<ops::FrameOp> make_op(const ops::OpShape& shape) override {
    return on_cuda() ? FP_CUDA_ONLY(cuda::make_pyramid_fusion_op(params_, shape)) : cpu::make_pyramid_fusion_op(params_);
  }

  ops::FusionParams params_;
};

}  // namespace

StageSpec pyramid_fusion_stage_spec() {
  StageSpec spec;
  spec.type = "pyramid_fusion";
  spec.help = "fuses two inputs' luma through Laplacian pyramids (keeps the first input's chroma)";
  spec.min_inputs = 2;
  spec.max_inputs = 2;
  // Fuses the luma; the first input's chroma passes through.
  spec.planes = {.luma = PlaneOrigin::Computed, .chroma = PlaneOrigin::FirstInput, .reads_chroma = false};
  spec.params = {
      {.name = "levels", .type = ParamType::Int, .help = "pyramid levels, the base level included",
       .default_value = std::int64_t{5}, .range = {.min = 1, .max = cuda::kMaxFusionLevels}},
      {.name = "rule", .type = ParamType::Enum,
       .help = "how detail coefficients are combined: mean, larger magnitude, or larger 3x3 energy",
       .default_value = std::string("max_energy"), .keywords = {"average", "max_abs", "max_energy"}},
      {.name = "gain", .type = ParamType::FloatList,
       .help = "per detail level multipliers, finest first (missing ones are 1); >1 enhances detail",
       .default_value = std::vector<double>{}, .range = {.min = 0, .max = 16}},
  };
  spec.check = [](const StageParams& params) {
    std::vector<ParamIssue> issues;
    const auto levels = params.integer("levels");
    const auto& gain = params.list("gain");
    if (static_cast<std::int64_t>(gain.size()) > levels - 1)
      issues.push_back({"gain", fmt::format("has {} values but {} levels have only {} detail levels", gain.size(),
                                            levels, levels - 1)});
    return issues;
  };
  spec.create = [](const StageParams& params, const StageContext& context) -> std::unique_ptr<Stage> {
    return std::make_unique<PyramidFusionStage>(params, context);
  };
  return spec;
}

}  // namespace fp
