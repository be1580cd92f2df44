// framepipe_gpu_memory_used_bytes{gpu}: device memory in use on a GPU the streams run on,
// as cudaMemGetInfo sees it (the whole device, other processes included, as nvidia-smi shows).
#pragma once

#include <cstddef>
#include <optional>

namespace fp::service {

// nullopt in a build without CUDA, or when the device cannot be asked.
std::optional<std::size_t> gpu_memory_used_bytes(int ordinal);

}  // namespace fp::service
