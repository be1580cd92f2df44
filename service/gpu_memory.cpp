#include "service/gpu_memory.hpp"

#ifdef FRAMEPIPE_WITH_CUDA
#include "cuda/device_query.hpp"
#endif

namespace fp::service {

std::optional<std::size_t> gpu_memory_used_bytes([[maybe_unused]] int ordinal) {
#ifdef FRAMEPIPE_WITH_CUDA
  try {
    const std::size_t total = cuda::describe_device(ordinal).memory_bytes;
    const std::size_t free = cuda::free_memory_bytes(ordinal);
    if (total == 0 || free == 0 || free > total) return std::nullopt;  // 0: it could not be asked
    return total - free;
  } catch (const std::exception&) {
    return std::nullopt;
  }
#else
  return std::nullopt;
#endif
}

}  // namespace fp::service
