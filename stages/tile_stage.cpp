#include "stages/tile_stage.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "core/frame_pool.hpp"
#include "core/ops/tile_layout.hpp"
#include "cpu/frame_ops.hpp"
#include "cuda/frame_ops.hpp"
#include "stages/backend.hpp"
#include "stages/stage_memory.hpp"

namespace fp {

namespace {

class TileStage final : public ProcessStage {
 public:
  TileStage(int columns, StageContext context) : columns_(columns), context_(std::move(context)) {}

  VideoInfo prepare(std::span<const VideoInfo> inputs) override {
    for (const auto& in : inputs)
      if (in.width != inputs[0].width || in.height != inputs[0].height)
        throw std::runtime_error(fmt::format("stage '{}': its inputs differ in size ({}x{} and {}x{}); tile needs one size",
                                             context_.id, inputs[0].width, inputs[0].height, in.width, in.height));
    layout_ = ops::tile_layout(static_cast<int>(inputs.size()), columns_, inputs[0].width, inputs[0].height);
    VideoInfo info = inputs[0];
    info.width = layout_.width;
    info.height = layout_.height;
    pool_ = std::make_unique<FramePool>(info.width, info.height, plane_memory_for(context_.device));
    op_ = context_.device.kind == DeviceKind::Cuda ? FP_CUDA_ONLY(cuda::make_tile_op(layout_)) : cpu::make_tile_op(layout_);
    return info;
  }

  // The output has the first input's timing.
  Frame process(std::span<const Frame> inputs, FrameContext& frame_context) override {
    Frame out = pool_->acquire();
    out.copy_timing_from(inputs[0]);
    op_->run(inputs, out, frame_context);
    return out;
  }

 private:
  int columns_;
  StageContext context_;
  ops::TileLayout layout_;
  std::unique_ptr<FramePool> pool_;
  std::unique_ptr<ops::FrameOp> op_;
};

}  // namespace

StageSpec tile_stage_spec() {
  StageSpec spec;
  spec.type = "tile";
  spec.help = "puts its inputs side by side (or in a grid of `columns`) in one frame, e.g. input | denoised | skeleton";
  spec.min_inputs = 1;
  spec.max_inputs = ops::kMaxTileInputs;
  spec.params = {
      {.name = "columns", .type = ParamType::Int,
       .help = "inputs per row of the grid; 0 puts them all in one row",
       .default_value = std::int64_t{0}, .range = {.min = 0, .max = ops::kMaxTileInputs}},
  };
  spec.create = [](const StageParams& params, const StageContext& context) -> std::unique_ptr<Stage> {
    return std::make_unique<TileStage>(static_cast<int>(params.integer("columns")), context);
  };
  return spec;
}

}  // namespace fp
