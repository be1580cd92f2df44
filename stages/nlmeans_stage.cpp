#include "stages/nlmeans_stage.hpp"

#include "cpu/frame_ops.hpp"
#include "cuda/frame_ops.hpp"
#include "cuda/limits.hpp"
#include "stages/luma_plane_stage.hpp"

namespace fp {

namespace {

class NlmeansStage final : public LumaPlaneStage {
 public:
  NlmeansStage(ops::NlmeansParams params, StageContext context)
      : LumaPlaneStage(std::move(context)), params_(params) {}

 private:
  std::unique_ptr<ops::FrameOp> make_op(const ops::OpShape&) override {
    return on_cuda() ? FP_CUDA_ONLY(cuda::make_nlmeans_op(params_)) : cpu::make_nlmeans_op(params_);
  }

  ops::NlmeansParams params_;
};

}  // namespace

std::vector<ParamSpec> nlmeans_window_params(const std::string& search_help) {
  // The ranges of patch and search are the CUDA kernel's limits (cuda/limits.hpp), applied
  // on every device so that a pipeline that validates runs on either.
  return {
      {.name = "h", .type = ParamType::Float, .help = "filtering strength: larger removes more noise (and detail)",
       .default_value = 10.0, .range = {.min = 0, .max = 1000, .min_exclusive = true}},
      {.name = "patch", .type = ParamType::Int, .help = "side of the square patch compared around each pixel",
       .default_value = std::int64_t{7}, .range = {.min = 1, .max = cuda::kNlmeansMaxPatch}, .odd = true},
      {.name = "search", .type = ParamType::Int, .help = search_help,
       .default_value = std::int64_t{21}, .range = {.min = 1, .max = cuda::kNlmeansMaxSearch}, .odd = true},
  };
}

ops::NlmeansParams nlmeans_window(const StageParams& params) {
  ops::NlmeansParams p;
  p.h = params.real("h");
  p.patch = static_cast<int>(params.integer("patch"));
  p.search = static_cast<int>(params.integer("search"));
  return p;
}

StageSpec nlmeans_stage_spec() {
  StageSpec spec;
  spec.type = "nlmeans";
  spec.help = "non-local means denoising of the luma: patch-similarity weighted mean over a search window";
  // Works on the luma; the chroma passes through.
  spec.planes = {.luma = PlaneOrigin::Computed, .chroma = PlaneOrigin::FirstInput, .reads_chroma = false};
  spec.params = nlmeans_window_params("side of the square window searched for similar patches");
  spec.create = [](const StageParams& params, const StageContext& context) -> std::unique_ptr<Stage> {
    return std::make_unique<NlmeansStage>(nlmeans_window(params), context);
  };
  return spec;
}

}  // namespace fp
