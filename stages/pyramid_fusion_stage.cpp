#include "stages/pyramid_fusion_stage.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "cpu/pyramid_fusion.hpp"
#include "cuda/limits.hpp"
#include "stages/luma_plane_stage.hpp"

#ifdef FRAMEPIPE_WITH_CUDA
#include "cuda/device_image.hpp"
#include "cuda/pyramid_fusion.hpp"
#endif

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

  VideoInfo prepare(std::span<const VideoInfo> inputs) override {
    if (inputs[0].width != inputs[1].width || inputs[0].height != inputs[1].height)
      throw std::runtime_error(fmt::format("stage '{}': its two inputs differ in size ({}x{} and {}x{})",
                                           context().id, inputs[0].width, inputs[0].height, inputs[1].width,
                                           inputs[1].height));
    VideoInfo info = LumaPlaneStage::prepare(inputs);
#ifdef FRAMEPIPE_WITH_CUDA
    if (on_cuda()) {
      // One workspace per frame slot: slots run at once on their own streams.
      workspace_bytes_ = cuda::pyramid_fusion_workspace_bytes(info.width, info.height, params_.levels);
      for (int s = 0; s < context().slots; ++s) workspaces_.emplace_back(workspace_bytes_);
    }
#endif
    return info;
  }

  // The output keeps the first input's chroma and timing.
  Frame process(std::span<const Frame> inputs, FrameContext& frame_context) override {
    Frame out = output_like(inputs[0]);
#ifdef FRAMEPIPE_WITH_CUDA
    if (on_cuda()) {
      cuda::pyramid_fusion(inputs[0].luma().cview(), inputs[1].luma().cview(), out.luma().view(), params_,
                           workspaces_[frame_context.slot].get(), workspace_bytes_, frame_context.stream);
      return out;
    }
#endif
    (void)frame_context;
    cpu::pyramid_fusion(inputs[0].luma().cview(), inputs[1].luma().cview(), out.luma().view(), params_);
    return out;
  }

 private:
#ifdef FRAMEPIPE_WITH_CUDA
  std::size_t workspace_bytes_ = 0;
  std::vector<cuda::DeviceArray<std::uint8_t>> workspaces_;
#endif
  ops::FusionParams params_;
};

}  // namespace

StageSpec pyramid_fusion_stage_spec() {
  StageSpec spec;
  spec.type = "pyramid_fusion";
  spec.help = "fuses two inputs' luma through Laplacian pyramids (keeps the first input's chroma)";
  spec.min_inputs = 2;
  spec.max_inputs = 2;
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
