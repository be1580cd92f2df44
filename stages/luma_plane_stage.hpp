// Shared plumbing for stages that compute a new luma plane from one input and pass its
// chroma through by reference: the output luma comes from a pool made at prepare(), in the
// memory of the pipeline's device.
#pragma once

#include <memory>
#include <stdexcept>

#include "core/frame_pool.hpp"
#include "stages/stage.hpp"
#include "stages/stage_memory.hpp"

namespace fp {

class LumaPlaneStage : public ProcessStage {
 public:
  explicit LumaPlaneStage(StageContext context) : context_(std::move(context)) {}

  VideoInfo prepare(std::span<const VideoInfo> inputs) override {
    info_ = inputs.front();
    pool_ = std::make_unique<FramePool>(info_.width, info_.height, plane_memory_for(context_.device));
    return info_;
  }

 protected:
  // A frame with the input's timing and chroma and a fresh luma plane to write into.
  Frame output_like(const Frame& input) {
    Frame out = input;
    out.planes[0] = pool_->acquire_luma();
    return out;
  }
  const VideoInfo& info() const { return info_; }
  const StageContext& context() const { return context_; }
  bool on_cuda() const { return context_.device.kind == DeviceKind::Cuda; }

 private:
  StageContext context_;
  VideoInfo info_;
  std::unique_ptr<FramePool> pool_;
};

}  // namespace fp
