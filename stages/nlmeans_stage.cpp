#include "stages/nlmeans_stage.hpp"

#include "cpu/nlmeans.hpp"
#include "cuda/limits.hpp"
#include "stages/luma_plane_stage.hpp"

#ifdef FRAMEPIPE_WITH_CUDA
#include "cuda/nlmeans.hpp"
#endif

namespace fp {

namespace {

class NlmeansStage final : public LumaPlaneStage {
 public:
  NlmeansStage(ops::NlmeansParams params, StageContext context)
      : LumaPlaneStage(std::move(context)), params_(params) {}

  Frame process(std::span<const Frame> inputs, FrameContext& frame_context) override {
    Frame out = output_like(inputs[0]);
#ifdef FRAMEPIPE_WITH_CUDA
    if (on_cuda()) {
      cuda::nlmeans(inputs[0].luma().cview(), out.luma().view(), params_, frame_context.stream);
      return out;
    }
#endif
    (void)frame_context;
    cpu::nlmeans(inputs[0].luma().cview(), out.luma().view(), params_);
    return out;
  }

 private:
  ops::NlmeansParams params_;
};

}  // namespace

StageSpec nlmeans_stage_spec() {
  StageSpec spec;
  spec.type = "nlmeans";
  spec.help = "non-local means denoising of the luma: patch-similarity weighted mean over a search window";
  // The ranges of patch and search are the CUDA kernel's limits (cuda/limits.hpp), applied
  // on every device so that a pipeline that validates runs on either.
  spec.params = {
      {.name = "h", .type = ParamType::Float, .help = "filtering strength: larger removes more noise (and detail)",
       .default_value = 10.0, .range = {.min = 0, .max = 1000, .min_exclusive = true}},
      {.name = "patch", .type = ParamType::Int, .help = "side of the square patch compared around each pixel",
       .default_value = std::int64_t{7}, .range = {.min = 1, .max = cuda::kNlmeansMaxPatch}, .odd = true},
      {.name = "search", .type = ParamType::Int, .help = "side of the square window searched for similar patches",
       .default_value = std::int64_t{21}, .range = {.min = 1, .max = cuda::kNlmeansMaxSearch}, .odd = true},
  };
  spec.create = [](const StageParams& params, const StageContext& context) -> std::unique_ptr<Stage> {
    ops::NlmeansParams p;
    p.h = params.real("h");
    p.patch = static_cast<int>(params.integer("patch"));
    p.search = static_cast<int>(params.integer("search"));
    return std::make_unique<NlmeansStage>(p, context);
  };
  return spec;
}

}  // namespace fp
