#include "cuda/motion_search.hpp"

#include <stdexcept>

#include "cuda/cuda_check.hpp"

namespace fp::cuda {
namespace {

__global__ void halve_kernel(ConstImageU8 finer, ImageU8 coarser) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x < coarser.width && y < coarser.height) coarser(x, y) = ops::halved_pixel(finer, x, y);
}

// A candidate as one number whose order is the definition's: least SAD, then shortest
// |x| + |y|, then least y, then least x (vectors stay within +-64 on every level).
__device__ unsigned long long candidate_key(std::int32_t sad, int vx, int vy) {
  const int length = (vx < 0 ? -vx : vx) + (vy < 0 ? -vy : vy);
  return (static_cast<unsigned long long>(sad) << 32) | (static_cast<unsigned long long>(length) << 16) |
         (static_cast<unsigned long long>(vy + 128) << 8) | static_cast<unsigned long long>(vx + 128);
}
__device__ int key_x(unsigned long long key) { return static_cast<int>(key & 0xFF) - 128; }
__device__ int key_y(unsigned long long key) { return static_cast<int>((key >> 8) & 0xFF) - 128; }
__device__ std::int32_t key_sad(unsigned long long key) { return static_cast<std::int32_t>(key >> 32); }

__device__ unsigned long long warp_min(unsigned long long key) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) {
    const unsigned long long other = __shfl_xor_sync(0xFFFFFFFFu, key, d);
    key = other < key ? other : key;
  }
  return key;
}

constexpr int kWarps = 4;

// One warp per block: each lane scores some candidates (ops::block_sad, as the CPU does),
// the warp keeps the best.
__global__ void __launch_bounds__(32 * kWarps) motion_kernel(MotionLevels cur, MotionLevels prev, bool motion,
                                                             int blocks_x, int blocks_y, ops::MotionVector* vectors,
                                                             std::int32_t* sads, unsigned long long* sad_sum) {
  const int block = static_cast<int>(blockIdx.x) * kWarps + static_cast<int>(threadIdx.x >> 5);
  const int lane = static_cast<int>(threadIdx.x & 31);
  if (block >= blocks_x * blocks_y) return;
  const int bx = block % blocks_x;
  const int by = block / blocks_x;
  constexpr unsigned long long kNone = ~0ull;
  unsigned long long best = kNone;
  if (!motion) {
    if (lane == 0) best = candidate_key(ops::block_sad(cur.level[0], prev.level[0], 0, bx, by, 0, 0), 0, 0);
  } else {
    constexpr int kTop = ops::kMotionLevels - 1;
    constexpr int kTopRange = ops::kMotionRange >> kTop;
    constexpr int kSide = 2 * kTopRange + 1;
    for (int c = lane; c < kSide * kSide; c += 32) {
      const int vx = c % kSide - kTopRange;
      const int vy = c / kSide - kTopRange;
      const unsigned long long key =
          candidate_key(ops::block_sad(cur.level[kTop], prev.level[kTop], kTop, bx, by, vx, vy), vx, vy);
      best = key < best ? key : best;
    }
    best = warp_min(best);
    for (int l = kTop - 1; l >= 0; --l) {
      const int range = ops::kMotionRange >> l;
      const int cx = 2 * key_x(best);
      const int cy = 2 * key_y(best);
      unsigned long long finer = kNone;
      // Lanes 0..8: the 3x3 around the coarser best; lane 9 on the frame: (0, 0).
      int vx = cx + lane % 3 - 1;
      int vy = cy + lane / 3 - 1;
      bool tried = lane < 9 && vx >= -range && vx <= range && vy >= -range && vy <= range;
      if (l == 0 && lane == 9) {
        vx = 0;
        vy = 0;
        tried = true;
      }
      if (tried) finer = candidate_key(ops::block_sad(cur.level[l], prev.level[l], l, bx, by, vx, vy), vx, vy);
      best = warp_min(finer);
    }
  }
  best = warp_min(best);
  if (lane != 0) return;
  vectors[block] = {static_cast<std::int16_t>(key_x(best)), static_cast<std::int16_t>(key_y(best))};
  sads[block] = key_sad(best);
  atomicAdd(sad_sum, static_cast<unsigned long long>(key_sad(best)));
}

}  // namespace

void build_motion_levels(ConstImageU8 frame, const ImageU8* halves, cudaStream_t stream) {
  ConstImageU8 finer = frame;
  for (int l = 1; l < ops::kMotionLevels; ++l) {
    const ImageU8 coarser = halves[l - 1];
    if (coarser.width != ops::motion_level_size(frame.width, l) || coarser.height != ops::motion_level_size(frame.height, l))
      throw std::invalid_argument("build_motion_levels: a level's size does not fit the frame");
    if (coarser.empty()) return;
    const dim3 threads(32, 8);
    const dim3 grid((coarser.width + 31) / 32, (coarser.height + 7) / 8);
    halve_kernel<<<grid, threads, 0, stream>>>(finer, coarser);
    check_launch("halve_kernel");
    finer = coarser;
  }
}

void motion_search(const MotionLevels& current, const MotionLevels& previous, bool motion,
                   ops::MotionVector* vectors, std::int32_t* sads, unsigned long long* sad_sum, cudaStream_t stream) {
  const ConstImageU8 frame = current.level[0];
  if (frame.width != previous.level[0].width || frame.height != previous.level[0].height)
    throw std::invalid_argument("motion_search: the frames differ in size");
  if (frame.empty()) return;
  const int blocks_x = ops::motion_blocks(frame.width);
  const int blocks_y = ops::motion_blocks(frame.height);
  const int blocks = blocks_x * blocks_y;
  motion_kernel<<<(blocks + kWarps - 1) / kWarps, 32 * kWarps, 0, stream>>>(current, previous, motion, blocks_x,
                                                                             blocks_y, vectors, sads, sad_sum);
  check_launch("motion_kernel");
}

}  // namespace fp::cuda
