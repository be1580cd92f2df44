#include "stages/temporal_nlmeans_stage.hpp"

#include "cpu/frame_ops.hpp"
#include "cuda/frame_ops.hpp"
#include "cuda/limits.hpp"
#include "stages/luma_plane_stage.hpp"
#include "stages/nlmeans_stage.hpp"

namespace fp {

namespace {

// The history lives in the op (cpu/temporal_nlmeans_op, cuda/temporal_nlmeans_op): frames
// reach a stage in order, one run per stream, so a stage's state is its stream's.
class TemporalNlmeansStage final : public LumaPlaneStage {
 public:
  TemporalNlmeansStage(ops::TemporalNlmeansParams params, StageContext context)
      : LumaPlaneStage(std::move(context)), params_(params) {}

 private:
  std::unique_ptr<ops::FrameOp> make_op(const ops::OpShape& shape) override {
    return on_cuda() ? FP_CUDA_ONLY(cuda::make_temporal_nlmeans_op(params_, shape))
                     : cpu::make_temporal_nlmeans_op(params_);
  }

  ops::TemporalNlmeansParams params_;
};

}  // namespace

StageSpec temporal_nlmeans_stage_spec() {
  StageSpec spec;
  spec.type = "temporal_nlmeans";
  spec.help = "non-local means of the luma over the current frame and motion-compensated windows of the previous ones";
  spec.planes = {.luma = PlaneOrigin::Computed, .chroma = PlaneOrigin::FirstInput, .reads_chroma = false};
  spec.params = nlmeans_window_params("side of the square window searched in the current frame");
  spec.params.insert(spec.params.end(), {
      {.name = "frames", .type = ParamType::Int, .help = "previous frames searched too (0: spatial only)",
       .default_value = std::int64_t{2}, .range = {.min = 0, .max = ops::kMaxTemporalFrames}},
      {.name = "temporal_search", .type = ParamType::Int,
       .help = "side of the square window searched in each previous frame, around the block's motion vector",
       .default_value = std::int64_t{11}, .range = {.min = 1, .max = cuda::kTemporalNlmeansMaxSearch}, .odd = true},
      {.name = "motion", .type = ParamType::Enum,
       .help = "block: a motion vector per 16x16 block (SAD, coarse to fine, +-32 px); none: every vector 0",
       .default_value = std::string("block"), .keywords = {"block", "none"}},
      {.name = "recursive", .type = ParamType::Enum,
       .help = "true: search the previous outputs instead of the previous inputs (stronger, may smear)",
       .default_value = std::string("false"), .keywords = {"false", "true"}},
  });
  // Each of frames + 1 frames kept: its luma and its halvings (4/3 of a luma plane, 8/9 of an
  // I420 frame), and when recursive its output's luma too (2/3); besides, the current frame's
  // two float sums (4 bytes a pixel each: 16/3 frames).
  spec.kept_frames = [](const StageParams& params) {
    const auto frames = static_cast<double>(params.integer("frames"));
    if (frames == 0) return 0.0;
    const double each = 8.0 / 9.0 + (params.text("recursive") == "true" ? 2.0 / 3.0 : 0.0);
    return (frames + 1) * each + 16.0 / 3.0;
  };
  spec.create = [](const StageParams& params, const StageContext& context) -> std::unique_ptr<Stage> {
    ops::TemporalNlmeansParams p;
    p.spatial = nlmeans_window(params);
    p.frames = static_cast<int>(params.integer("frames"));
    p.temporal_search = static_cast<int>(params.integer("temporal_search"));
    p.motion = params.text("motion") == "block";
    p.recursive = params.text("recursive") == "true";
    return std::make_unique<TemporalNlmeansStage>(p, context);
  };
  return spec;
}

}  // namespace fp
