// Every CUDA call is checked: a failure throws std::runtime_error naming what was called
// (a kernel or API function) and CUDA's reason.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace fp::cuda {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// After a launch: reports launch-configuration errors under the kernel's name.
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

}  // namespace fp::cuda

#define FP_CUDA_CHECK(call) ::fp::cuda::check((call), #call)
