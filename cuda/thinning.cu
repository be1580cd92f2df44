// Zhang-Suen thinning as one persistent cooperative kernel over a bit-packed image.
//
// Why this shape: a pass over a 1920x1080 frame is little work (65 k words of 32 pixels),
// so the cost of thinning is the number of global synchronizations times their latency.
// One launch that iterates to convergence pays no launch or host round trip per pass, and
// computing both sub-iterations of a pass in registers needs one grid barrier per pass.
//
// Layout (two buffers in the workspace): bit b of word c (c >= 1) of a row holds pixel
// x = 32 (c - 1) + b, with the bits past the width 0. Word 0 of every row is a guard that
// is always 0: it is the left border of its row and, read as the word after the previous
// row's last word, that row's right border. Two guard rows above and two below complete
// the frame of background that stands for the pixels outside the image. So a buffer reads
// as one linear array in which a word's horizontal neighbours are the words before and
// after it and its vertical ones are one stride away: no bounds tests, no division.
// Deleting only ever clears bits, and a pixel that is 0 is never deleted, so the guard
// words and the bits past the width stay 0 without being treated apart.
//
// A pass: each warp takes 32 consecutive words ("a chunk"; lanes 1..30 own words, lanes 0
// and 31 are their halo) and loads rows -2..+2 around each. It computes sub-iteration 0
// for rows -1..+1, then sub-iteration 1 for row 0 from those, taking left and right words
// from the adjacent lanes by shuffles; the owners store the result into the other buffer.
// Every decision thus reads the image as it was when its sub-iteration began, and the
// writes of a pass never touch what the pass reads. The halo lanes' results are wrong in
// their outer bits (their outer neighbour word is missing), but an owner reads only bit 31
// of its left neighbour's sub-iteration-0 word and bit 0 of its right one's, and those
// depend on the neighbour's own word and the owner's only.
#include "cuda/thinning.hpp"

#include <cooperative_groups.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/cuda_check.hpp"

namespace fp::cuda {
namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 1024;  // one block per SM: fewer blocks make the grid barrier cheaper
constexpr int kWarpsPerBlock = kThreads / 32;
constexpr int kOwnedPerWarp = 30;  // lanes 1..30 of a chunk; 0 and 31 are halo
constexpr unsigned kAllLanes = 0xFFFFFFFFU;
constexpr int kGuardRows = 2;  // rows -2..+2 of every image row must exist
// Three "a pass changed something" flags, padded so that the buffers start 128-byte aligned.
constexpr std::size_t kFlagBytes = 128;
constexpr std::size_t kBufferAlignWords = 32;
// Keeps every index (a buffer's words plus a chunk's reach) far from int overflow.
constexpr long long kMaxBufferWords = 1LL << 30;

struct Geometry {
  int words_per_row;         // ceil(width / 32)
  int stride;                // words_per_row + the guard word
  std::size_t buffer_words;  // (height + 4 guard rows) * stride, rounded up for alignment
};

Geometry geometry_for(int width, int height) {
  const long long w = std::max(width, 0);
  const long long h = std::max(height, 0);
  const long long words_per_row = (w + 31) / 32;
  const long long stride = words_per_row + 1;
  const long long words = (h + 2 * kGuardRows) * stride;
  if (words > kMaxBufferWords)
    throw std::invalid_argument("thinning: image too large (" + std::to_string(width) + "x" +
                                std::to_string(height) + ")");
  const auto rounded = (static_cast<std::size_t>(words) + kBufferAlignWords - 1) / kBufferAlignWords * kBufferAlignWords;
  return {static_cast<int>(words_per_row), static_cast<int>(stride), rounded};
}

struct Params {
  const std::uint8_t* src;
  std::ptrdiff_t src_pitch;
  std::uint8_t* dst;
  std::ptrdiff_t dst_pitch;
  int width;
  int height;
  int words_per_row;
  int stride;
  const int* threshold_ptr;  // when null, `threshold` is used
  int threshold;
  std::uint32_t* flags;  // flags[k % 3] != 0: pass k deleted something
  std::uint32_t* buffer0;
  std::uint32_t* buffer1;
  int* passes;  // may be null
};

// A word of a row with the words before and after it.
struct Row {
  std::uint32_t left;   // its bit 31 is the pixel left of bit 0 of `mid`
  std::uint32_t mid;
  std::uint32_t right;  // its bit 0 is the pixel right of bit 31 of `mid`
};

// Bit b: the pixel right (east) / left (west) of the pixel of bit b of `mid`.
__host__ __device__ __forceinline__ std::uint32_t east(const Row& r) { return (r.mid >> 1) | (r.right << 31); }
__host__ __device__ __forceinline__ std::uint32_t west(const Row& r) { return (r.mid << 1) | (r.left >> 31); }

// One Zhang-Suen sub-iteration (0 or 1) for the 32 pixels of centre.mid, bit-sliced: each
// bit of every value below is the same quantity for another pixel. A foreground pixel is
// deleted when its neighbours P2..P9 have exactly one 0->1 transition in cyclic order
// (A = 1), between 2 and 6 of them are foreground (at least two set and at least two
// clear), and P2.P4.P6 = P4.P6.P8 = 0 (sub-iteration 0) or P2.P4.P8 = P2.P6.P8 = 0 (1).
template <int Sub>
__host__ __device__ __forceinline__ std::uint32_t zhang_suen_word(const Row& above, const Row& centre,
                                                                  const Row& below) {
  // P2..P9 in the paper's order: N, NE, E, SE, S, SW, W, NW.
  const std::uint32_t p[8] = {above.mid, east(above), east(centre), east(below),
                              below.mid, west(below), west(centre), west(above)};
  std::uint32_t rise1 = 0;   // at least one 0->1 transition
  std::uint32_t rise2 = 0;   // at least two
  std::uint32_t set1 = 0;    // at least one foreground neighbour
  std::uint32_t set2 = 0;    // at least two
  std::uint32_t clear1 = 0;  // at least one background neighbour
  std::uint32_t clear2 = 0;  // at least two
  for (int k = 0; k < 8; ++k) {  // a constant trip count: fully unrolled, p stays in registers
    const std::uint32_t rise = ~p[k] & p[(k + 1) % 8];
    rise2 |= rise1 & rise;
    rise1 |= rise;
    set2 |= set1 & p[k];
    set1 |= p[k];
    clear2 |= clear1 & ~p[k];
    clear1 |= ~p[k];
  }
  const std::uint32_t p2 = p[0];
  const std::uint32_t p4 = p[2];
  const std::uint32_t p6 = p[4];
  const std::uint32_t p8 = p[6];
  std::uint32_t blocked = 0;
  if constexpr (Sub == 0)
    blocked = p4 & p6 & (p2 | p8);
  else
    blocked = p2 & p8 & (p4 | p6);
  const std::uint32_t deleted = centre.mid & rise1 & ~rise2 & set2 & clear2 & ~blocked;
  return centre.mid & ~deleted;
}

// `word` with its neighbours from the adjacent lanes. The warp's end lanes have no
// neighbour there; 0 stands in (only halo results depend on it, see the top).
__device__ __forceinline__ Row with_neighbours(std::uint32_t word, int lane) {
  const std::uint32_t left = __shfl_up_sync(kAllLanes, word, 1);
  const std::uint32_t right = __shfl_down_sync(kAllLanes, word, 1);
  return {lane == 0 ? 0U : left, word, lane == 31 ? 0U : right};
}

// Both sub-iterations of a pass for the word whose rows -2..+2 are raw[0..4]. Every lane of
// the warp must call it (shuffles).
__device__ __forceinline__ std::uint32_t pass_word(const std::uint32_t (&raw)[5], int lane) {
  Row r[5];
#pragma unroll
  for (int d = 0; d < 5; ++d) r[d] = with_neighbours(raw[d], lane);
  const std::uint32_t up = zhang_suen_word<0>(r[0], r[1], r[2]);
  const std::uint32_t mid = zhang_suen_word<0>(r[1], r[2], r[3]);
  const std::uint32_t down = zhang_suen_word<0>(r[2], r[3], r[4]);
  return zhang_suen_word<1>(with_neighbours(up, lane), with_neighbours(mid, lane), with_neighbours(down, lane));
}

// `count` (>= 1) pixels from `pixels` into the low bits of a word: 1 where value > threshold.
__device__ __forceinline__ std::uint32_t pack_word(const std::uint8_t* pixels, int count, int threshold) {
  std::uint32_t word = 0;
  if (count >= 32) {
#pragma unroll
    for (int b = 0; b < 32; ++b) word |= static_cast<std::uint32_t>(static_cast<int>(pixels[b]) > threshold) << b;
  } else {
    for (int b = 0; b < count; ++b) word |= static_cast<std::uint32_t>(static_cast<int>(pixels[b]) > threshold) << b;
  }
  return word;
}

// The low `count` (>= 1) bits of `word` as 0/255 pixels.
__device__ __forceinline__ void unpack_word(std::uint32_t word, std::uint8_t* pixels, int count) {
  if (count >= 32) {
#pragma unroll
    for (int b = 0; b < 32; ++b) pixels[b] = ((word >> b) & 1U) != 0 ? 255 : 0;
  } else {
    for (int b = 0; b < count; ++b) pixels[b] = ((word >> b) & 1U) != 0 ? 255 : 0;
  }
}

// Launched cooperatively with every block resident: binarize and pack, then passes until
// one changes nothing (each ending in a grid barrier that also publishes its flag), then
// unpack. The buffers change between barriers, so they are read with __ldcg (L2, never a
// possibly stale L1 line) and never through the read-only path.
__global__ void __launch_bounds__(kThreads, 1) thinning_kernel(const Params p) {
  const cg::grid_group grid = cg::this_grid();
  __shared__ std::uint32_t s_changed;

  const int stride = p.stride;
  const int thread = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(gridDim.x) * kThreads;

  // Binarize and pack into both buffers, guards included: the passes never write guard
  // rows, so they must start 0 in the buffer the first pass writes too. src is read only
  // here and dst written only after the last barrier, so they may be the same plane.
  const int threshold = p.threshold_ptr != nullptr ? *p.threshold_ptr : p.threshold;
  const int buffer_words = (p.height + 2 * kGuardRows) * stride;
  for (int i = thread; i < buffer_words; i += threads) {
    const int y = i / stride - kGuardRows;
    const int c = i % stride - 1;
    std::uint32_t word = 0;
    if (y >= 0 && y < p.height && c >= 0)
      word = pack_word(p.src + y * p.src_pitch + 32 * c, p.width - 32 * c, threshold);
    p.buffer0[i] = word;
    p.buffer1[i] = word;
  }
  if (thread == 0) {
    p.flags[0] = 0;
    p.flags[1] = 0;
    p.flags[2] = 0;
  }
  grid.sync();

  const int lane = static_cast<int>(threadIdx.x) % 32;
  const bool owner_lane = lane >= 1 && lane <= kOwnedPerWarp;
  const int items = p.height * stride;  // the image rows' words, guard words included
  const int chunks = (items + kOwnedPerWarp - 1) / kOwnedPerWarp;
  // Chunk k goes to block k % gridDim.x, so that every SM gets an equal share. The trip
  // count depends only on the warp, so whole warps run the shuffles together.
  const int first_chunk = static_cast<int>(threadIdx.x / 32 * gridDim.x + blockIdx.x);
  const int chunk_step = static_cast<int>(gridDim.x) * kWarpsPerBlock;

  int pass = 0;
  for (;; ++pass) {
    const std::uint32_t* in = (pass & 1) != 0 ? p.buffer1 : p.buffer0;
    std::uint32_t* out = (pass & 1) != 0 ? p.buffer0 : p.buffer1;
    // Flag k % 3 is cleared in pass k - 1, set in pass k and read after pass k's barrier;
    // everyone has read it before pass k + 1's barrier, and pass k + 2 clears it again.
    if (thread == 0) p.flags[(pass + 1) % 3] = 0;

    bool changed = false;
    for (int chunk = first_chunk; chunk < chunks; chunk += chunk_step) {
      // Lane l holds item 30 chunk + l - 1; items outside the image rows read as 0, which
      // is what the guard words there hold (and only halo lanes get them).
      const int item = chunk * kOwnedPerWarp + lane - 1;
      const bool inside = item >= 0 && item < items;
      const int i = kGuardRows * stride + item;
      std::uint32_t raw[5] = {0, 0, 0, 0, 0};
      if (inside) {
#pragma unroll
        for (int d = 0; d < 5; ++d) raw[d] = __ldcg(in + i + (d - 2) * stride);
      }
      // A chunk whose whole neighbourhood is background stays background: skip the work.
      std::uint32_t result = raw[2];
      if (__any_sync(kAllLanes, (raw[0] | raw[1] | raw[2] | raw[3] | raw[4]) != 0)) result = pass_word(raw, lane);
      if (inside && owner_lane) {
        out[i] = result;
        // Deletions only clear bits, so the pass changed this word iff it differs.
        changed = changed || result != raw[2];
      }
    }

    // One flag update per block; the barrier's release/acquire publishes it.
    if (__syncthreads_or(changed) != 0 && threadIdx.x == 0) atomicOr(p.flags + pass % 3, 1U);
    grid.sync();
    if (threadIdx.x == 0) s_changed = __ldcg(p.flags + pass % 3);
    __syncthreads();
    if (s_changed == 0) break;  // the same value in every block: all leave together
  }

  // The last pass changed nothing, so its input and output buffers hold the same image.
  const std::uint32_t* image = (pass & 1) != 0 ? p.buffer0 : p.buffer1;
  if (thread == 0 && p.passes != nullptr) *p.passes = pass + 1;
  const int data_words = p.height * p.words_per_row;
  for (int j = thread; j < data_words; j += threads) {
    const int y = j / p.words_per_row;
    const int c = j % p.words_per_row;
    const std::uint32_t word = __ldcg(image + (y + kGuardRows) * stride + c + 1);
    unpack_word(word, p.dst + y * p.dst_pitch + 32 * c, p.width - 32 * c);
  }
}

// Blocks of thinning_kernel that can be resident at once on the current device (the most a
// cooperative launch may have). Cached per device: the pipeline calls this every frame.
int resident_blocks() {
  int device = 0;
  FP_CUDA_CHECK(cudaGetDevice(&device));
  static std::array<std::atomic<int>, 64> cache{};  // 0: not known yet
  const bool cacheable = device >= 0 && device < static_cast<int>(cache.size());
  if (cacheable) {
    const int known = cache[static_cast<std::size_t>(device)].load(std::memory_order_relaxed);
    if (known > 0) return known;
  }
  int cooperative = 0;
  FP_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  if (cooperative == 0)
    throw std::runtime_error("thinning: cuda:" + std::to_string(device) + " cannot launch cooperative kernels");
  int multiprocessors = 0;
  FP_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  int per_multiprocessor = 0;
  FP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, thinning_kernel, kThreads, 0));
  const int blocks = per_multiprocessor * multiprocessors;
  if (blocks < 1) throw std::runtime_error("thinning_kernel: no block fits on cuda:" + std::to_string(device));
  if (cacheable) cache[static_cast<std::size_t>(device)].store(blocks, std::memory_order_relaxed);
  return blocks;
}

void launch(ConstImageU8 src, ImageU8 dst, const int* threshold_ptr, int threshold, void* workspace,
            cudaStream_t stream, int* passes) {
  if (src.width != dst.width || src.height != dst.height)
    throw std::invalid_argument("thinning: source and destination sizes differ");
  if (workspace == nullptr) throw std::invalid_argument("thinning: no workspace");
  if (reinterpret_cast<std::uintptr_t>(workspace) % alignof(std::uint32_t) != 0)
    throw std::invalid_argument("thinning: workspace not 4-byte aligned");

  // An empty image runs as 0x0 (one pass that finds nothing, as on the CPU) and is never read.
  const bool empty = src.empty();
  const int width = empty ? 0 : src.width;
  const int height = empty ? 0 : src.height;
  const Geometry g = geometry_for(width, height);
  auto* words = reinterpret_cast<std::uint32_t*>(static_cast<unsigned char*>(workspace) + kFlagBytes);

  Params params{};
  params.src = src.data;
  params.src_pitch = src.pitch;
  params.dst = dst.data;
  params.dst_pitch = dst.pitch;
  params.width = width;
  params.height = height;
  params.words_per_row = g.words_per_row;
  params.stride = g.stride;
  params.threshold_ptr = threshold_ptr;
  params.threshold = threshold;
  params.flags = static_cast<std::uint32_t*>(workspace);
  params.buffer0 = words;
  params.buffer1 = words + g.buffer_words;
  params.passes = passes;

  // No more blocks than chunks (tiny images), never more than can be resident.
  const long long chunks = (static_cast<long long>(height) * g.stride + kOwnedPerWarp - 1) / kOwnedPerWarp;
  const int blocks = static_cast<int>(std::max(1LL, std::min<long long>(resident_blocks(), chunks)));

  cudaLaunchAttribute cooperative{};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  config.attrs = &cooperative;
  config.numAttrs = 1;
  const cudaError_t status = cudaLaunchKernelEx(&config, thinning_kernel, params);
  check_launch("thinning_kernel");  // also clears the error state
  check(status, "thinning_kernel");
}

}  // namespace

std::size_t thinning_workspace_bytes(int width, int height) {
  return kFlagBytes + 2 * geometry_for(width, height).buffer_words * sizeof(std::uint32_t);
}

void thinning(ConstImageU8 src, ImageU8 dst, int threshold, void* workspace, cudaStream_t stream, int* passes) {
  launch(src, dst, nullptr, threshold, workspace, stream, passes);
}

void thinning(ConstImageU8 src, ImageU8 dst, const int* threshold, void* workspace, cudaStream_t stream,
              int* passes) {
  if (threshold == nullptr) throw std::invalid_argument("thinning: null threshold pointer");
  launch(src, dst, threshold, 0, workspace, stream, passes);
}

}  // namespace fp::cuda
