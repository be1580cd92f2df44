// The GPUs this process can use, asked through the CUDA backend (cuda/device_query) when the
// build has one. Device resolution (pipeline/engine/device), memory estimates
// (pipeline/capacity/jobs) and the service's gauges ask here, so that whether CUDA was built
// is known where backends are chosen (stages/backend.hpp), and nowhere above.
#pragma once

#include <cstddef>
#include <string>

#include "cuda/device_query.hpp"  // DeviceDescription: a plain struct, no CUDA header

namespace fp {

bool cuda_backend_built();
// 0 without the CUDA backend, a driver or a GPU (never throws).
int gpu_count();
// Throws std::runtime_error naming the ordinal when it does not exist.
cuda::DeviceDescription describe_gpu(int ordinal);
// Device memory free now on `ordinal`, or 0 when it cannot be asked.
std::size_t gpu_free_memory_bytes(int ordinal);
// CUDA runtime and driver versions, or the reason none is usable.
std::string gpu_runtime_summary();

}  // namespace fp
