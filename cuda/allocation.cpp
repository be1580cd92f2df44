#include "cuda/allocation.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <stdexcept>

namespace fp::cuda {

namespace {
double mib(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }
}  // namespace

void* allocate_device(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status == cudaSuccess) return p;
  // A failed allocation is not sticky, but it stays the "last error" that the next launch
  // check would report under a kernel's name: take it off.
  cudaGetLastError();
  int device = -1;
  cudaGetDevice(&device);
  std::size_t free = 0;
  std::size_t total = 0;
  const bool known = cudaMemGetInfo(&free, &total) == cudaSuccess;
  cudaGetLastError();
  throw std::runtime_error(fmt::format(
      "cuda:{}: cannot allocate {:.1f} MiB of device memory ({}){}; use smaller frames, fewer --slots, or another GPU",
      device, mib(bytes), cudaGetErrorString(status),
      known ? fmt::format(", {:.0f} of {:.0f} MiB free", mib(free), mib(total)) : std::string()));
}

void release_device(void* p) noexcept { cudaFree(p); }

void* allocate_pinned(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t status = cudaMallocHost(&p, bytes);
  if (status == cudaSuccess) return p;
  cudaGetLastError();
  throw std::runtime_error(fmt::format("cannot allocate {:.1f} MiB of page-locked host memory ({})", mib(bytes),
                                       cudaGetErrorString(status)));
}

void release_pinned(void* p) noexcept { cudaFreeHost(p); }

}  // namespace fp::cuda
