// Shared plumbing for stages that compute a new luma plane from their inputs and pass the
// first input's chroma through by reference: the output luma comes from a pool made at
// prepare(), in the memory of the pipeline's device, and the work is the op that the
// stage's make_op() chose for that device (stages/backend.hpp).
#pragma once

#include <memory>
#include <stdexcept>

#include "core/frame_pool.hpp"
#include "core/ops/frame_op.hpp"
#include "stages/backend.hpp"
#include "stages/stage.hpp"
#include "stages/stage_memory.hpp"

namespace fp {

class LumaPlaneStage : public ProcessStage {
 public:
  explicit LumaPlaneStage(StageContext context) : context_(std::move(context)) {}

  VideoInfo prepare(std::span<const VideoInfo> inputs) override {
    info_ = inputs.front();
    pool_ = std::make_unique<FramePool>(info_.width, info_.height, plane_memory_for(context_.device));
    op_ = make_op(op_shape(context_, info_));
    return info_;
  }

  // A frame with the first input's timing and chroma and a fresh luma plane, which the op
  // writes (on a GPU: enqueues the writing of).
  Frame process(std::span<const Frame> inputs, FrameContext& frame_context) override {
    Frame out = inputs[0];
    out.planes[0] = pool_->acquire_luma();
    op_->run(inputs, out, frame_context);
    return out;
  }

 protected:
  // The stage's work on the pipeline's device (see stages/backend.hpp), made once.
  virtual std::unique_ptr<ops::FrameOp> make_op(const ops::OpShape& shape) = 0;

  const StageContext& context() const { return context_; }
  bool on_cuda() const { return context_.device.kind == DeviceKind::Cuda; }

 private:
  StageContext context_;
  VideoInfo info_;
  std::unique_ptr<FramePool> pool_;
  std::unique_ptr<ops::FrameOp> op_;
};

}  // namespace fp
