// Per-slot device state for cuda::luma_stats, shared by the stages that need a frame's
// histogram on the GPU (luma_histogram for its rows, thinning for Otsu's threshold): one
// cleared workspace and one result per frame slot, since slots run at once. CUDA builds only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "core/image_view.hpp"
#include "cuda/device_image.hpp"
#include "cuda/luma_histogram.hpp"

namespace fp::cuda {

class LumaStatsSlots {
 public:
  LumaStatsSlots(int slots, int width, int height);

  // Enqueues the stats of `plane` on `stream`; returns the slot's device result, valid in
  // stream order after this call.
  LumaStatsDevice* compute(ConstImageU8 plane, int slot, cudaStream_t stream);

 private:
  std::size_t workspace_bytes_;
  std::vector<DeviceArray<std::uint8_t>> workspaces_;
  DeviceArray<LumaStatsDevice> results_;
};

}  // namespace fp::cuda
