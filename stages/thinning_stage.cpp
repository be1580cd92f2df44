#include "stages/thinning_stage.hpp"

#include <optional>

#include "cpu/frame_ops.hpp"
#include "cuda/frame_ops.hpp"
#include "stages/luma_plane_stage.hpp"

namespace fp {

namespace {

class ThinningStage final : public LumaPlaneStage {
 public:
  // `threshold`: nullopt for Otsu's, computed per frame.
  ThinningStage(std::optional<int> threshold, StageContext context)
      : LumaPlaneStage(std::move(context)), threshold_(threshold) {}

 private:
  std::unique_ptr<ops::FrameOp> make_op(const ops::OpShape& shape) override {
    return on_cuda() ? FP_CUDA_ONLY(cuda::make_thinning_op(threshold_, shape)) : cpu::make_thinning_op(threshold_, shape);
  }

  std::optional<int> threshold_;
};

}  // namespace

StageSpec thinning_stage_spec() {
  StageSpec spec;
  spec.type = "thinning";
  spec.help = "binarizes the luma (value > threshold) and thins it to a skeleton (Zhang-Suen); output 0/255";
  // A skeleton is black and white: neutral chroma (both backends' ops make it once).
  spec.planes = {.luma = PlaneOrigin::Computed, .chroma = PlaneOrigin::Neutral, .reads_chroma = false};
  spec.params = {
      {.name = "threshold", .type = ParamType::Int,
       .help = "binarization threshold, or otsu to compute it per frame from the histogram",
       .default_value = std::string("otsu"), .range = {.min = 0, .max = 255}, .keywords = {"otsu"}},
  };
  spec.create = [](const StageParams& params, const StageContext& context) -> std::unique_ptr<Stage> {
    std::optional<int> threshold;
    if (!params.is_keyword("threshold")) threshold = static_cast<int>(params.integer("threshold"));
    return std::make_unique<ThinningStage>(threshold, context);
  };
  return spec;
}

}  // namespace fp
