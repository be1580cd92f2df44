#include "cuda/cuda_check.hpp"
#include "cuda/spin.hpp"

namespace fp::cuda {

namespace {
__global__ void spin_kernel(long long nanoseconds) {
  const long long start = clock64();
  // clock64 counts SM cycles; 1 GHz is a safe lower bound, so this waits at least as long.
  while (clock64() - start < nanoseconds) __nanosleep(1000);
}
}  // namespace

void spin(double microseconds, cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>(static_cast<long long>(microseconds * 1e3));
  check_launch("spin_kernel");
}

}  // namespace fp::cuda
