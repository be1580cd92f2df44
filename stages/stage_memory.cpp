#include "stages/stage_memory.hpp"

#include "cuda/plane_memory.hpp"
#include "stages/backend.hpp"

namespace fp {

PlaneMemory plane_memory_for(const Device& device) {
  if (device.kind == DeviceKind::Cpu) return {};
  return FP_CUDA_ONLY(cuda::device_plane_memory(device.ordinal));
}

PlaneMemory host_staging_memory_for(const Device& device) {
  if (device.kind == DeviceKind::Cpu) return {};
  return FP_CUDA_ONLY(cuda::pinned_plane_memory());
}

}  // namespace fp
