#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "cuda/device_query.hpp"

namespace fp::cuda {

namespace {
std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }
}  // namespace

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: clear the sticky error, report none
    return 0;
  }
  return count;
}

DeviceDescription describe_device(int ordinal) {
  // Checked first so that asking about a missing device makes no failing CUDA call.
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw std::runtime_error("cuda:" + std::to_string(ordinal) + ": no such device (" + std::to_string(count) +
                             " found)");
  cudaDeviceProp prop{};
  const cudaError_t err = cudaGetDeviceProperties(&prop, ordinal);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw std::runtime_error("cuda:" + std::to_string(ordinal) + ": " + cudaGetErrorString(err));
  }
  DeviceDescription d;
  d.ordinal = ordinal;
  d.name = prop.name;
  d.compute_major = prop.major;
  d.compute_minor = prop.minor;
  d.memory_bytes = prop.totalGlobalMem;
  d.multiprocessors = prop.multiProcessorCount;
  return d;
}

std::size_t free_memory_bytes(int ordinal) {
  if (ordinal < 0 || ordinal >= device_count()) return 0;
  int previous = 0;
  cudaGetDevice(&previous);
  std::size_t free = 0;
  std::size_t total = 0;
  const bool known = cudaSetDevice(ordinal) == cudaSuccess && cudaMemGetInfo(&free, &total) == cudaSuccess;
  cudaGetLastError();
  cudaSetDevice(previous);
  return known ? free : 0;
}

std::string runtime_summary() {
  int runtime = 0;
  int driver = 0;
  cudaRuntimeGetVersion(&runtime);
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0)
    // The driver's library is not the toolkit's: a package Recommends it, and a machine may
    // lack it. Say which file and which package.
    return "runtime " + version_text(runtime) +
           ", no NVIDIA driver: libcuda.so.1 could not be loaded; install the driver, e.g. Debian's libcuda1 or "
           "NVIDIA's packages";
  return "runtime " + version_text(runtime) + ", driver " + version_text(driver);
}

}  // namespace fp::cuda
