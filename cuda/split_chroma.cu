#include <stdexcept>

#include "cuda/cuda_check.hpp"
#include "cuda/split_chroma.hpp"

namespace fp::cuda {

namespace {

// One thread per pair: neighbouring threads read neighbouring pairs (coalesced 2-byte
// loads) and write neighbouring bytes of each plane. The planes are small (a quarter of
// the luma each) and the copy is bound by memory, not by the work per thread.
__global__ void split_chroma_kernel(const std::uint8_t* __restrict__ uv, std::ptrdiff_t uv_pitch, ImageU8 u,
                                    ImageU8 v) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= u.width || y >= u.height) return;
  const uchar2 pair = reinterpret_cast<const uchar2*>(uv + y * uv_pitch)[x];
  u.data[y * u.pitch + x] = pair.x;
  v.data[y * v.pitch + x] = pair.y;
}

}  // namespace

void split_chroma(const std::uint8_t* uv, std::ptrdiff_t uv_pitch, ImageU8 u, ImageU8 v, cudaStream_t stream) {
  if (uv == nullptr || u.data == nullptr || v.data == nullptr) throw std::invalid_argument("split_chroma: null plane");
  if (u.width != v.width || u.height != v.height) throw std::invalid_argument("split_chroma: U and V differ in size");
  // uchar2 loads need even row starts; NVDEC's pitches are multiples of 256.
  if (uv_pitch < 2 * static_cast<std::ptrdiff_t>(u.width) || uv_pitch % 2 != 0 ||
      reinterpret_cast<std::uintptr_t>(uv) % 2 != 0)
    throw std::invalid_argument("split_chroma: the interleaved plane's pitch or address is not a whole number of pairs");
  if (u.width <= 0 || u.height <= 0) return;
  const dim3 block(64, 4);
  const dim3 grid((u.width + block.x - 1) / block.x, (u.height + block.y - 1) / block.y);
  split_chroma_kernel<<<grid, block, 0, stream>>>(uv, uv_pitch, u, v);
  check_launch("split_chroma_kernel");
}

}  // namespace fp::cuda
