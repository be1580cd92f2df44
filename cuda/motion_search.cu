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
constexpr int kTop = ops::kMotionLevels - 1;
constexpr int kTopRange = ops::kMotionRange >> kTop;

// A warp's shared bytes: the block on each level, and the previous frame around the vectors it
// tries there (clamped to the level while loading, so the SADs need no test).
struct WarpBytes {
  std::uint8_t block[ops::kMotionLevels][ops::kMotionBlock * ops::kMotionBlock];
  std::uint8_t top[(ops::kMotionBlock / 4 + 2 * kTopRange) * (ops::kMotionBlock / 4 + 2 * kTopRange)];
  std::uint8_t around[(ops::kMotionBlock + 2) * (ops::kMotionBlock + 2)];  // a finer level: +-1 around a centre
};

// The block's pixels inside level `l` (its last row and column of blocks are cut by the edge).
struct BlockExtent {
  int x0, y0, width, height;
};
__device__ BlockExtent extent(ConstImageU8 level, int l, int bx, int by) {
  const int side = ops::kMotionBlock >> l;
  const int x0 = bx * side;
  const int y0 = by * side;
  return {x0, y0, min(side, level.width - x0), min(side, level.height - y0)};
}

// region(i, j) = level(x0 + i, y0 + j) with coordinates clamped to the level, w x h bytes
// (w <= 32: a lane per column, no division).
__device__ void load_region(std::uint8_t* region, int w, int h, ConstImageU8 level, int x0, int y0, int lane) {
  if (lane >= w) return;
  const int x = ops::clamp_to(x0 + lane, level.width);
  for (int r = 0; r < h; ++r) region[r * w + lane] = level(x, ops::clamp_to(y0 + r, level.height));
}

// SAD of the block (its bytes `block`, `side` a row) at offset (ox, oy) into `region`
// (`region_w` a row), over the block's pixels in columns x_first, x_first + x_step, ... and
// rows y_first, y_first + y_step, ... (no division per pixel: it would cost more than the SAD).
__device__ std::int32_t region_sad(const std::uint8_t* block, int side, const BlockExtent& e, const std::uint8_t* region,
                                   int region_w, int ox, int oy, int x_first, int x_step, int y_first, int y_step) {
  std::int32_t sad = 0;
  for (int py = y_first; py < e.height; py += y_step) {
    const std::uint8_t* own = block + py * side;
    const std::uint8_t* theirs = region + (py + oy) * region_w + ox;
    for (int px = x_first; px < e.width; px += x_step)
      sad += abs(static_cast<int>(own[px]) - static_cast<int>(theirs[px]));
  }
  return sad;
}

// The same for a whole block of W x H pixels at offset (ox, oy), unrolled.
template <int W, int H>
__device__ std::int32_t full_block_sad(const std::uint8_t* block, const std::uint8_t* region, int region_w, int ox,
                                       int oy) {
  std::int32_t sad = 0;
#pragma unroll
  for (int py = 0; py < H; ++py)
#pragma unroll
    for (int px = 0; px < W; ++px)
      sad += abs(static_cast<int>(block[py * W + px]) - static_cast<int>(region[(py + oy) * region_w + px + ox]));
  return sad;
}

// One warp per block. The coarsest level scores a candidate per lane; the finer levels share
// each candidate's pixels among the lanes and sum them. Integer sums, in any order the same
// as ops::block_sad's.
// The previous frames of one launch: blockIdx.y picks one (its vectors and SADs at
// blockIdx.y * blocks, its SAD sum at sad_sums[blockIdx.y]).
struct Targets {
  MotionLevels previous[kMaxMotionTargets];
};

__global__ void __launch_bounds__(32 * kWarps) motion_kernel(MotionLevels cur, Targets targets, bool motion,
                                                             int blocks_x, int blocks_y, ops::MotionVector* all_vectors,
                                                             std::int32_t* all_sads, unsigned long long* sad_sums) {
  __shared__ WarpBytes bytes[kWarps];
  const int target = static_cast<int>(blockIdx.y);
  const MotionLevels& prev = targets.previous[target];
  const std::size_t first = static_cast<std::size_t>(target) * static_cast<std::size_t>(blocks_x * blocks_y);
  ops::MotionVector* const vectors = all_vectors + first;
  std::int32_t* const sads = all_sads + first;
  unsigned long long* const sad_sum = sad_sums + target;
  const int warp = static_cast<int>(threadIdx.x >> 5);
  const int block = static_cast<int>(blockIdx.x) * kWarps + warp;
  const int lane = static_cast<int>(threadIdx.x & 31);
  if (block >= blocks_x * blocks_y) return;  // warps work alone: no block-wide barrier below
  WarpBytes& mine = bytes[warp];
  const int bx = block % blocks_x;
  const int by = block / blocks_x;
  // Lanes split a level's block as columns lane % side and rows lane / side, 32 / side apart
  // (side 16 or 8 on the finer levels; on the coarsest, 4, the same formula holds).
  for (int l = 0; l < ops::kMotionLevels; ++l) {
    const BlockExtent e = extent(cur.level[l], l, bx, by);
    const int side = ops::kMotionBlock >> l;
    for (int py = lane / side; py < e.height; py += 32 / side)
      if (const int px = lane % side; px < e.width) mine.block[l][py * side + px] = cur.level[l](e.x0 + px, e.y0 + py);
  }
  __syncwarp();

  constexpr unsigned long long kNone = ~0ull;
  const BlockExtent frame = extent(cur.level[0], 0, bx, by);
  // The SAD at (0, 0) on the frame: the answer without motion, and a candidate with it.
  std::int32_t zero = 0;
  if (const int px = lane % ops::kMotionBlock; px < frame.width)
    for (int py = lane / ops::kMotionBlock; py < frame.height; py += 32 / ops::kMotionBlock)
      zero += abs(static_cast<int>(mine.block[0][py * ops::kMotionBlock + px]) -
                  static_cast<int>(prev.level[0](frame.x0 + px, frame.y0 + py)));
  zero = __reduce_add_sync(0xFFFFFFFFu, zero);
  unsigned long long best = candidate_key(zero, 0, 0);

  if (motion) {
    const BlockExtent top = extent(cur.level[kTop], kTop, bx, by);
    constexpr int kTopSide = ops::kMotionBlock >> kTop;
    constexpr int kRegion = kTopSide + 2 * kTopRange;
    load_region(mine.top, kRegion, kRegion, prev.level[kTop], top.x0 - kTopRange, top.y0 - kTopRange, lane);
    __syncwarp();
    constexpr int kCandidates = (2 * kTopRange + 1) * (2 * kTopRange + 1);
    unsigned long long coarse = kNone;
    for (int c = lane; c < kCandidates; c += 32) {
      const int vx = c % (2 * kTopRange + 1) - kTopRange;
      const int vy = c / (2 * kTopRange + 1) - kTopRange;
      const std::int32_t sad =
          top.width == kTopSide && top.height == kTopSide
              ? full_block_sad<kTopSide, kTopSide>(mine.block[kTop], mine.top, kRegion, vx + kTopRange, vy + kTopRange)
              : region_sad(mine.block[kTop], kTopSide, top, mine.top, kRegion, vx + kTopRange, vy + kTopRange, 0, 1, 0, 1);
      const unsigned long long key = candidate_key(sad, vx, vy);
      coarse = key < coarse ? key : coarse;
    }
    coarse = warp_min(coarse);
    for (int l = kTop - 1; l >= 0; --l) {
      const int range = ops::kMotionRange >> l;
      const int side = ops::kMotionBlock >> l;
      const int cx = 2 * key_x(coarse);
      const int cy = 2 * key_y(coarse);
      const BlockExtent e = extent(cur.level[l], l, bx, by);
      __syncwarp();  // the previous level's region is no longer read
      load_region(mine.around, side + 2, side + 2, prev.level[l], e.x0 + cx - 1, e.y0 + cy - 1, lane);
      __syncwarp();
      unsigned long long finer = kNone;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int vx = cx + dx;
          const int vy = cy + dy;
          if (vx < -range || vx > range || vy < -range || vy > range) continue;  // the same on every lane
          const std::int32_t sad = __reduce_add_sync(
              0xFFFFFFFFu, region_sad(mine.block[l], side, e, mine.around, side + 2, dx + 1, dy + 1, lane % side, side,
                                       lane / side, 32 / side));
          const unsigned long long key = candidate_key(sad, vx, vy);
          finer = key < finer ? key : finer;
        }
      coarse = finer;
    }
    best = coarse < best ? coarse : best;  // (0, 0) is a candidate on the frame too
  }
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

void motion_search(const MotionLevels& current, const MotionLevels* previous, int count, bool motion,
                   ops::MotionVector* vectors, std::int32_t* sads, unsigned long long* sad_sums, cudaStream_t stream) {
  if (count < 0 || count > kMaxMotionTargets) throw std::invalid_argument("motion_search: bad count of previous frames");
  const ConstImageU8 frame = current.level[0];
  Targets targets{};
  for (int i = 0; i < count; ++i) {
    if (frame.width != previous[i].level[0].width || frame.height != previous[i].level[0].height)
      throw std::invalid_argument("motion_search: the frames differ in size");
    targets.previous[i] = previous[i];
  }
  if (frame.empty() || count == 0) return;
  const int blocks_x = ops::motion_blocks(frame.width);
  const int blocks_y = ops::motion_blocks(frame.height);
  const int blocks = blocks_x * blocks_y;
  const dim3 grid(static_cast<unsigned>((blocks + kWarps - 1) / kWarps), static_cast<unsigned>(count));
  motion_kernel<<<grid, 32 * kWarps, 0, stream>>>(current, targets, motion, blocks_x, blocks_y, vectors, sads, sad_sums);
  check_launch("motion_kernel");
}

}  // namespace fp::cuda
