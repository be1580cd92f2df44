#include "cuda/luma_histogram.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/cuda_check.hpp"

namespace fp::cuda {
namespace {

// One launch does everything. Every block counts its share of 16-byte chunks into shared
// sub-histograms and adds its 256 totals to a grid-wide accumulator in the workspace; the
// last block to finish (counted with an atomic) copies the accumulator into the result,
// clears it and the counter for the next call, and computes the mean and Otsu's threshold.

constexpr int kBins = 256;
constexpr int kThreads = 512;
static_assert(kThreads == 2 * kBins, "the merge gives each bin two threads");
// One sub-histogram per lane: the 32 atomics of one warp instruction never hit the same
// address, even on a flat image where all pixels fall into one bin. An odd stride puts lane
// l's copy of bin v in bank (l + v) % 32, so a flat image has no bank conflicts either.
constexpr int kCopies = 32;
constexpr int kCopyStride = kBins + 1;
// Two blocks of 512 threads fill an SM (2048 threads); more blocks would only repeat the
// per-block clearing and merging. A 1920x1080 frame needs 256 blocks of one chunk per
// thread: one wave on an H100 (132 SMs).
constexpr int kBlocksPerSm = 2;
// Chunk indices are 32-bit; this bound keeps index + 3 * grid stride far from overflowing.
constexpr unsigned kMaxChunks = 1u << 30;

struct Workspace {
  std::uint32_t accum[kBins];  // bins summed over the blocks of the running call; 0 between calls
  std::uint32_t blocks_done;   // blocks merged so far in the running call; 0 between calls
};

// Chunk c of a row covers x in [h + 16 (c - 1), h + 16 c), where h is the distance from the
// row's start to the next 16-byte boundary: chunk 0 is the unaligned head (empty when the row
// is aligned), the chunks that lie wholly inside the row are aligned 16-byte loads, and the
// last one may be a tail. Rows may each have another h when the pitch is not a multiple of 16.
struct Chunk {
  uint4 pixels;                 // the 16 pixels when full
  const std::uint8_t* row;      // otherwise the row and the x range [lo, hi) to read bytewise
  int lo;
  int hi;
  bool full;
};

__device__ __forceinline__ Chunk load_chunk(const ConstImageU8& src, unsigned index, unsigned chunks_per_row) {
  const unsigned y = index / chunks_per_row;
  const int c = static_cast<int>(index - y * chunks_per_row);
  const std::uint8_t* row = src.row(static_cast<int>(y));
  const int head = static_cast<int>((0u - static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(row))) & 15u);
  const int x = head + 16 * (c - 1);
  Chunk chunk;
  chunk.row = row;
  chunk.full = x >= 0 && x + 16 <= src.width;
  if (chunk.full) {
    chunk.pixels = __ldg(reinterpret_cast<const uint4*>(row + x));
    chunk.lo = 0;
    chunk.hi = 0;
  } else {
    chunk.pixels = make_uint4(0, 0, 0, 0);
    chunk.lo = max(x, 0);
    chunk.hi = min(x + 16, src.width);
  }
  return chunk;
}

// Chunks past the end (index >= total) are empty: nothing to count.
__device__ __forceinline__ Chunk load_chunk_or_empty(const ConstImageU8& src, unsigned index, unsigned chunks_per_row,
                                                     unsigned total_chunks) {
  if (index < total_chunks) return load_chunk(src, index, chunks_per_row);
  return Chunk{make_uint4(0, 0, 0, 0), nullptr, 0, 0, false};
}

__device__ __forceinline__ void count_word(std::uint32_t w, std::uint32_t* hist) {
  atomicAdd(hist + (w & 0xFFu), 1u);
  atomicAdd(hist + ((w >> 8) & 0xFFu), 1u);
  atomicAdd(hist + ((w >> 16) & 0xFFu), 1u);
  atomicAdd(hist + (w >> 24), 1u);
}

__device__ __forceinline__ void count_chunk(const Chunk& chunk, std::uint32_t* hist) {
  if (chunk.full) {
    count_word(chunk.pixels.x, hist);
    count_word(chunk.pixels.y, hist);
    count_word(chunk.pixels.z, hist);
    count_word(chunk.pixels.w, hist);
  } else {
    // Heads and tails: at most two per row, so reading them bytewise costs little.
    for (int x = chunk.lo; x < chunk.hi; ++x) atomicAdd(hist + __ldg(chunk.row + x), 1u);
  }
}

// Otsu's criterion for the split after bin t, given the count and value sum of bins [0, t]
// and of the whole image, as an integer key: larger key = larger variance, and a t that is no
// split at all (class 0 empty, which cpu::otsu_threshold skips) gets 0, below every real one.
// The arithmetic is cpu::otsu_threshold's, operation for operation in IEEE double with round
// to nearest (the _rn intrinsics are never contracted into FMAs), so the variances, and with
// them the ties, are bit-identical to the CPU's. A variance is >= +0, and the bit patterns of
// non-negative doubles order like their values.
__device__ unsigned long long otsu_key(unsigned long long count0, unsigned long long sum0,
                                       unsigned long long total_count, unsigned long long total_sum) {
  if (count0 == 0) return 0;
  const unsigned long long count1 = total_count - count0;
  double variance = 0.0;
  if (count1 != 0) {
    const double n = static_cast<double>(total_count);
    const double w0 = __ddiv_rn(static_cast<double>(count0), n);
    const double w1 = __ddiv_rn(static_cast<double>(count1), n);
    const double mu0 = __ddiv_rn(static_cast<double>(sum0), static_cast<double>(count0));
    const double mu1 = __ddiv_rn(static_cast<double>(total_sum - sum0), static_cast<double>(count1));
    const double d = __dsub_rn(mu0, mu1);
    variance = __dmul_rn(__dmul_rn(__dmul_rn(w0, w1), d), d);
  }
  return static_cast<unsigned long long>(__double_as_longlong(variance)) + 1;
}

// The last block: bins, mean and Otsu from the accumulator, which it clears on the way. All
// kThreads threads must call this (it has barriers); threads 0..255 own one bin each.
__device__ void finalize(Workspace* ws, LumaStatsDevice* out) {
  __shared__ unsigned long long warp_count[kBins / 32];
  __shared__ unsigned long long warp_sum[kBins / 32];
  __shared__ unsigned long long warp_best_key[kBins / 32];
  __shared__ int warp_best_t[kBins / 32];

  const int t = static_cast<int>(threadIdx.x);
  const int lane = t % 32;
  const int warp = t / 32;
  constexpr unsigned kFull = 0xFFFFFFFFu;

  // Inclusive prefix sums of the counts and of value * count: class 0's count and sum for a
  // split after bin t. 64-bit integers, so they are exact.
  unsigned long long count0 = 0;
  unsigned long long sum0 = 0;
  if (t < kBins) {
    // Atomic read-and-clear: reads the value the other blocks' atomics left at L2, and leaves
    // the accumulator zeroed for the next call.
    const std::uint32_t bin = atomicExch(&ws->accum[t], 0u);
    out->bins[t] = bin;
    count0 = bin;
    sum0 = static_cast<unsigned long long>(bin) * static_cast<unsigned>(t);
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const unsigned long long c = __shfl_up_sync(kFull, count0, d);
      const unsigned long long s = __shfl_up_sync(kFull, sum0, d);
      if (lane >= d) {
        count0 += c;
        sum0 += s;
      }
    }
    if (lane == 31) {
      warp_count[warp] = count0;
      warp_sum[warp] = sum0;
    }
  }
  __syncthreads();
  if (t < kBins) {
    unsigned long long total_count = 0;
    unsigned long long total_sum = 0;
    for (int w = 0; w < kBins / 32; ++w) {
      if (w < warp) {
        count0 += warp_count[w];
        sum0 += warp_sum[w];
      }
      total_count += warp_count[w];
      total_sum += warp_sum[w];
    }
    // Largest key, smallest t on ties: the t that cpu::otsu_threshold's strict '>' keeps.
    unsigned long long key = otsu_key(count0, sum0, total_count, total_sum);
    int best_t = t;
#pragma unroll
    for (int d = 16; d >= 1; d /= 2) {
      const unsigned long long other_key = __shfl_down_sync(kFull, key, d);
      const int other_t = __shfl_down_sync(kFull, best_t, d);
      if (other_key > key || (other_key == key && other_t < best_t)) {
        key = other_key;
        best_t = other_t;
      }
    }
    if (lane == 0) {
      warp_best_key[warp] = key;
      warp_best_t[warp] = best_t;
    }
    if (t == 0)
      out->mean = total_count == 0
                      ? 0.0
                      : __ddiv_rn(static_cast<double>(total_sum), static_cast<double>(total_count));
  }
  __syncthreads();
  if (t == 0) {
    // Warps hold ascending ranges of t, so a strict '>' keeps the smallest t on ties.
    unsigned long long key = warp_best_key[0];
    int best_t = warp_best_t[0];
    for (int w = 1; w < kBins / 32; ++w)
      if (warp_best_key[w] > key) {
        key = warp_best_key[w];
        best_t = warp_best_t[w];
      }
    out->otsu = best_t;
    out->reserved = 0;
    // Every other block has already incremented the counter, so nothing races this reset;
    // the next call (a later launch) sees it.
    ws->blocks_done = 0;
  }
}

__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    luma_stats_kernel(ConstImageU8 src, unsigned chunks_per_row, unsigned total_chunks, Workspace* ws,
                      LumaStatsDevice* out) {
  __shared__ std::uint32_t hist[kCopies * kCopyStride];
  __shared__ std::uint32_t upper_half[kBins];
  __shared__ bool is_last;

  const unsigned tid = threadIdx.x;
  const unsigned stride = gridDim.x * kThreads;
  // Grid-stride over the chunks, two at a time so that each thread has two 16-byte loads in
  // flight before it starts counting. The first two are issued before the sub-histograms are
  // cleared, so that clearing overlaps their latency.
  unsigned i = blockIdx.x * kThreads + tid;
  Chunk a = load_chunk_or_empty(src, i, chunks_per_row, total_chunks);
  Chunk b = load_chunk_or_empty(src, i + stride, chunks_per_row, total_chunks);
  for (unsigned k = tid; k < kCopies * kCopyStride; k += kThreads) hist[k] = 0;
  __syncthreads();

  std::uint32_t* mine = hist + (tid % 32) * kCopyStride;
  for (;;) {
    count_chunk(a, mine);
    count_chunk(b, mine);
    i += 2 * stride;
    if (i >= total_chunks) break;
    a = load_chunk_or_empty(src, i, chunks_per_row, total_chunks);
    b = load_chunk_or_empty(src, i + stride, chunks_per_row, total_chunks);
  }
  __syncthreads();

  // Merge the 32 copies: threads t and t + 256 each sum half of bin t's copies. Lanes read
  // consecutive bins of one copy: conflict-free.
  const unsigned bin = tid % kBins;
  const unsigned half = tid / kBins;
  std::uint32_t part = 0;
#pragma unroll
  for (int k = 0; k < kCopies / 2; ++k) part += hist[(half * (kCopies / 2) + k) * kCopyStride + bin];
  if (half == 1) upper_half[bin] = part;
  __syncthreads();
  if (half == 0) {
    part += upper_half[bin];
    if (part != 0) atomicAdd(&ws->accum[bin], part);
    // Orders this thread's accumulator update before the block's counter increment below, so
    // that whichever block counts last sees every block's bins.
    __threadfence();
  }
  __syncthreads();
  if (tid == 0) {
    const unsigned done_before = atomicAdd(&ws->blocks_done, 1u);
    // Pairs with the other blocks' fences: the accumulator reads that follow see their updates.
    __threadfence();
    is_last = done_before == gridDim.x - 1;
  }
  __syncthreads();
  if (is_last) finalize(ws, out);
}

void check_workspace(const char* what, const void* workspace, std::size_t workspace_bytes) {
  if (workspace == nullptr) throw std::invalid_argument(std::string(what) + ": null workspace");
  if (reinterpret_cast<std::uintptr_t>(workspace) % alignof(Workspace) != 0)
    throw std::invalid_argument(std::string(what) + ": workspace is not aligned to " +
                                std::to_string(alignof(Workspace)) + " bytes");
  if (workspace_bytes < sizeof(Workspace))
    throw std::invalid_argument(std::string(what) + ": workspace of " + std::to_string(workspace_bytes) +
                                " bytes, " + std::to_string(sizeof(Workspace)) + " needed");
}

}  // namespace

std::size_t luma_stats_workspace_bytes(int /*width*/, int /*height*/) { return sizeof(Workspace); }

void init_luma_stats_workspace(void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  check_workspace("init_luma_stats_workspace", workspace, workspace_bytes);
  FP_CUDA_CHECK(cudaMemsetAsync(workspace, 0, sizeof(Workspace), stream));
}

void luma_stats(ConstImageU8 src, LumaStatsDevice* out, void* workspace, std::size_t workspace_bytes,
                cudaStream_t stream) {
  if (out == nullptr) throw std::invalid_argument("luma_stats: null output");
  check_workspace("luma_stats", workspace, workspace_bytes);

  unsigned chunks_per_row = 1;
  unsigned total_chunks = 0;
  if (!src.empty()) {
    if (src.data == nullptr) throw std::invalid_argument("luma_stats: null image data");
    // ceil(width / 16) chunks cover a row from its first 16-byte boundary on, plus the head.
    const unsigned long long per_row = (static_cast<unsigned long long>(src.width) + 15) / 16 + 1;
    const unsigned long long total = per_row * static_cast<unsigned long long>(src.height);
    if (total > kMaxChunks)
      throw std::invalid_argument("luma_stats: image of " + std::to_string(src.width) + "x" +
                                  std::to_string(src.height) + " is larger than supported");
    chunks_per_row = static_cast<unsigned>(per_row);
    total_chunks = static_cast<unsigned>(total);
  }

  int device = 0;
  int multiprocessors = 0;
  FP_CUDA_CHECK(cudaGetDevice(&device));
  FP_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  // One chunk per thread where that fits in one wave; grid-stride beyond. At least one block,
  // which for an empty image writes the zero result.
  const unsigned wanted = (total_chunks + kThreads - 1) / kThreads;
  const unsigned grid =
      std::clamp(wanted, 1u, static_cast<unsigned>(std::max(1, multiprocessors)) * kBlocksPerSm);
  luma_stats_kernel<<<grid, kThreads, 0, stream>>>(src, chunks_per_row, total_chunks,
                                                   static_cast<Workspace*>(workspace), out);
  check_launch("luma_stats_kernel");
}

}  // namespace fp::cuda
