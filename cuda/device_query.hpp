// Which CUDA devices this process can use. Compiled only with the CUDA backend.
#pragma once

#include <cstddef>
#include <string>

namespace fp::cuda {

struct DeviceDescription {
  int ordinal = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  std::size_t memory_bytes = 0;
  int multiprocessors = 0;
};

// Number of usable devices; 0 when there is no driver or no GPU (never throws).
int device_count();
// Throws std::runtime_error naming the ordinal when it does not exist.
DeviceDescription describe_device(int ordinal);
// Device memory free now on `ordinal` (cudaMemGetInfo), or 0 when it cannot be asked.
std::size_t free_memory_bytes(int ordinal);
// CUDA runtime and driver versions as "13.0 (driver 13.0)", or the reason none is usable.
std::string runtime_summary();

}  // namespace fp::cuda
