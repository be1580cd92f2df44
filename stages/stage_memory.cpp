#include "stages/stage_memory.hpp"

#include <stdexcept>

#ifdef FRAMEPIPE_WITH_CUDA
#include "cuda/plane_memory.hpp"
#endif

namespace fp {

PlaneMemory plane_memory_for(const Device& device) {
  if (device.kind == DeviceKind::Cpu) return {};
#ifdef FRAMEPIPE_WITH_CUDA
  return cuda::device_plane_memory(device.ordinal);
#else
  throw std::logic_error("a CUDA device was chosen in a framepipe built without CUDA");
#endif
}

PlaneMemory host_staging_memory_for(const Device& device) {
  if (device.kind == DeviceKind::Cpu) return {};
#ifdef FRAMEPIPE_WITH_CUDA
  return cuda::pinned_plane_memory();
#else
  throw std::logic_error("a CUDA device was chosen in a framepipe built without CUDA");
#endif
}

}  // namespace fp
