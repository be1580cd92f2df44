#include "cuda/plane_memory.hpp"

#include <cuda_runtime.h>

#include "cuda/cuda_check.hpp"

namespace fp::cuda {

namespace {
// cudaMallocPitch's row alignment on current GPUs; the kernels accept any pitch, but
// aligned rows keep their vector loads on the fast path.
constexpr std::ptrdiff_t kDeviceRowAlignment = 512;
}  // namespace

PlaneMemory device_plane_memory(int ordinal) {
  PlaneMemory memory;
  memory.location = MemoryLocation::Device;
  memory.device = ordinal;
  memory.row_alignment = kDeviceRowAlignment;
  memory.allocate = [ordinal](std::size_t bytes) {
    int current = 0;
    FP_CUDA_CHECK(cudaGetDevice(&current));
    if (current != ordinal) FP_CUDA_CHECK(cudaSetDevice(ordinal));
    void* p = nullptr;
    const auto status = cudaMalloc(&p, bytes);
    if (current != ordinal) cudaSetDevice(current);
    check(status, "cudaMalloc (frame pool)");
    return static_cast<std::uint8_t*>(p);
  };
  memory.release = [](std::uint8_t* p) { cudaFree(p); };
  return memory;
}

PlaneMemory pinned_plane_memory() {
  PlaneMemory memory;
  memory.location = MemoryLocation::Host;
  memory.allocate = [](std::size_t bytes) {
    void* p = nullptr;
    FP_CUDA_CHECK(cudaMallocHost(&p, bytes));
    return static_cast<std::uint8_t*>(p);
  };
  memory.release = [](std::uint8_t* p) { cudaFreeHost(p); };
  return memory;
}

}  // namespace fp::cuda
