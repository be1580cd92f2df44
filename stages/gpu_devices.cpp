#include "stages/gpu_devices.hpp"

#include "stages/backend.hpp"

namespace fp {

bool cuda_backend_built() { return kCudaBackendBuilt; }

int gpu_count() { return kCudaBackendBuilt ? FP_CUDA_ONLY(cuda::device_count()) : 0; }

cuda::DeviceDescription describe_gpu(int ordinal) { return FP_CUDA_ONLY(cuda::describe_device(ordinal)); }

std::size_t gpu_free_memory_bytes(int ordinal) {
  return kCudaBackendBuilt ? FP_CUDA_ONLY(cuda::free_memory_bytes(ordinal)) : 0;
}

std::string gpu_runtime_summary() {
  return kCudaBackendBuilt ? FP_CUDA_ONLY(cuda::runtime_summary()) : std::string("CUDA backend not built");
}

}  // namespace fp
