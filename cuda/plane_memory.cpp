#include "cuda/plane_memory.hpp"

#include <cuda_runtime.h>

#include "cuda/cuda_check.hpp"
#include "cuda/device_image.hpp"

namespace fp::cuda {

namespace {
// cudaMallocPitch's row alignment on current GPUs; the kernels accept any pitch, but
// aligned rows keep their vector loads on the fast path.
constexpr std::ptrdiff_t kDeviceRowAlignment = 512;

// Makes `ordinal` the calling thread's device for the object's lifetime: a pool may be
// asked for a buffer on a thread whose current device is another one.
class CurrentDevice {
 public:
  explicit CurrentDevice(int ordinal) {
    FP_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != ordinal) FP_CUDA_CHECK(cudaSetDevice(ordinal));
  }
  ~CurrentDevice() { cudaSetDevice(previous_); }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int previous_ = 0;
};
}  // namespace

PlaneMemory device_plane_memory(int ordinal) {
  PlaneMemory memory;
  memory.location = MemoryLocation::Device;
  memory.device = ordinal;
  memory.row_alignment = kDeviceRowAlignment;
  memory.allocate = [ordinal](std::size_t bytes) {
    const CurrentDevice on(ordinal);
    return static_cast<std::uint8_t*>(DeviceMemory::allocate(bytes));
  };
  memory.release = [](std::uint8_t* p) { DeviceMemory::release(p); };
  return memory;
}

PlaneMemory pinned_plane_memory() {
  PlaneMemory memory;
  memory.location = MemoryLocation::Host;
  memory.allocate = [](std::size_t bytes) { return static_cast<std::uint8_t*>(PinnedMemory::allocate(bytes)); };
  memory.release = [](std::uint8_t* p) { PinnedMemory::release(p); };
  return memory;
}

}  // namespace fp::cuda
