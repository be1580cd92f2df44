#include "service/gpu_memory.hpp"

#include "stages/gpu_devices.hpp"

namespace fp::service {

std::optional<std::size_t> gpu_memory_used_bytes(int ordinal) {
  if (gpu_count() <= ordinal) return std::nullopt;  // no CUDA backend, or no such GPU
  try {
    const std::size_t total = describe_gpu(ordinal).memory_bytes;
    const std::size_t free = gpu_free_memory_bytes(ordinal);
    if (total == 0 || free == 0 || free > total) return std::nullopt;  // 0: it could not be asked
    return total - free;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace fp::service
