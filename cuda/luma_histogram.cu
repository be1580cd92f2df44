#include "cuda/luma_histogram.hpp"

#include <cuda/atomic>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/cuda_check.hpp"

namespace fp::cuda {
namespace {

// One launch does everything. Every block counts its share of 16-byte chunks into shared
// sub-histograms, adds its 256 totals to a grid-wide accumulator in the workspace and bumps
// a block counter; the last block to bump it reads the accumulator into the result, clears
// it and the counter for the next call, and computes the mean and Otsu's threshold.
//
// At 1920x1080 on an H100 the pixels are the small part: the blocks are done counting about
// 1.4 us after they start, no later than a kernel that only reads the frame. What follows is
// a chain of steps paid once per launch, which took most of the time: merging the
// sub-histograms, the L2 round trips of the global atomics, and the last block alone reading
// the accumulator and computing Otsu (about 2 us of the 4.4 us the blocks run). The choices
// below keep that chain short.

constexpr int kBins = 256;
constexpr int kLanes = 32;
constexpr unsigned kAllLanes = 0xFFFFFFFFu;
// One block of 1024 threads per SM: a 1920x1080 frame is then about one chunk per thread in
// one wave (128 blocks), and every block's fixed costs (clearing and merging its
// sub-histograms, 256 global atomics) are paid half as often as with 512-thread blocks.
constexpr int kThreads = 1024;
constexpr int kThreadsPerBin = kThreads / kBins;  // the merge gives each bin four threads
constexpr int kCopiesPerThread = kLanes / kThreadsPerBin;
static_assert(kThreads % kBins == 0 && kLanes % kThreadsPerBin == 0);
// Blocks add into accumulator blockIdx % kAccumulators: with a single one, all blocks' adds
// queue on the same 8 L2 lines at the end of the kernel (0.3 us more at 1080p, measured).
constexpr int kAccumulators = 8;
// Chunk indices are 32-bit. The bound also keeps the pixel count below 2^32 (pixels <
// 16 * chunks), so that every bin, and their sum, fits the 32-bit accumulators.
constexpr unsigned kMaxChunks = 1u << 28;

struct Workspace {
  // Bins summed over the blocks of the running call, spread over kAccumulators copies;
  // 0 between calls.
  std::uint32_t accum[kAccumulators][kBins];
  std::uint32_t blocks_done;  // blocks counted so far in the running call; 0 between calls
};

// The workspace is read and written by many blocks at once: every access is an atomic one
// (relaxed, device scope), so that no access races another.
using DeviceAtomic = ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device>;

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

// The sub-histograms are interleaved: word v * 32 + l is lane l's count of value v. So every
// lane counts into a copy of its own (the 32 atomics of one warp instruction never hit the
// same address, even on a flat image), and into a bank of its own (bank l), so that they
// never conflict either, whatever the values.
__device__ __forceinline__ void count_word(std::uint32_t w, std::uint32_t* mine) {
  atomicAdd(mine + (w & 0xFFu) * kLanes, 1u);
  atomicAdd(mine + ((w >> 8) & 0xFFu) * kLanes, 1u);
  atomicAdd(mine + ((w >> 16) & 0xFFu) * kLanes, 1u);
  atomicAdd(mine + (w >> 24) * kLanes, 1u);
}

__device__ __forceinline__ void count_chunk(const Chunk& chunk, std::uint32_t* mine) {
  if (chunk.full) {
    count_word(chunk.pixels.x, mine);
    count_word(chunk.pixels.y, mine);
    count_word(chunk.pixels.z, mine);
    count_word(chunk.pixels.w, mine);
  } else {
    // Heads and tails: at most two per row, so reading them bytewise costs little.
    for (int x = chunk.lo; x < chunk.hi; ++x) atomicAdd(mine + __ldg(chunk.row + x) * kLanes, 1u);
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
    // A zero numerator sends __ddiv_rn down its slow path, a subroutine call on the last
    // block's critical path; 0 / count0 is +0, as on the CPU. (mu1's numerator is never
    // zero: class 1 holds values >= t + 1 >= 1.)
    const double mu0 = sum0 == 0 ? 0.0 : __ddiv_rn(static_cast<double>(sum0), static_cast<double>(count0));
    const double mu1 = __ddiv_rn(static_cast<double>(total_sum - sum0), static_cast<double>(count1));
    const double d = __dsub_rn(mu0, mu1);
    variance = __dmul_rn(__dmul_rn(__dmul_rn(w0, w1), d), d);
  }
  return static_cast<unsigned long long>(__double_as_longlong(variance)) + 1;
}

// The lane holding the warp's largest key, the lowest such lane on ties, and that key in
// `best`. The warp reductions are 32-bit: the high words first, then the low words of the
// lanes that have the largest high word.
__device__ __forceinline__ int warp_argmax(unsigned long long key, unsigned long long& best) {
  const auto hi = static_cast<unsigned>(key >> 32);
  const auto lo = static_cast<unsigned>(key);
  const unsigned best_hi = __reduce_max_sync(kAllLanes, hi);
  const unsigned best_lo = __reduce_max_sync(kAllLanes, hi == best_hi ? lo : 0u);
  best = (static_cast<unsigned long long>(best_hi) << 32) | best_lo;
  return __ffs(__ballot_sync(kAllLanes, key == best)) - 1;
}

constexpr int kBinWarps = kBins / kLanes;

// The last block's shared data; it lives in the sub-histograms' memory, free by then.
struct FinalizeShared {
  unsigned long long warp_count[kBinWarps];
  unsigned long long warp_sum[kBinWarps];
  unsigned long long warp_key[kBinWarps];
  int warp_t[kBinWarps];
};

// The last block: bins, mean and Otsu from the accumulators, which it clears on the way.
// All threads must call this (it has barriers); threads 0..255 own one bin each.
__device__ void finalize(unsigned pixels, Workspace* ws, LumaStatsDevice* out, FinalizeShared& shared) {
  const int t = static_cast<int>(threadIdx.x);
  const int lane = t % kLanes;
  const int warp = t / kLanes;
  const bool owns_bin = t < kBins;

  // Inclusive prefix sums of the counts and of value * count: class 0's count and sum for a
  // split after bin t. 64-bit integers, so they are exact.
  std::uint32_t bin = 0;
  unsigned long long count0 = 0;
  unsigned long long sum0 = 0;
  unsigned long long total_count = 0;
  unsigned long long total_sum = 0;
  // The blocks bump the counter without waiting for their adds to land (a fence would cost a
  // full L2 round trip), so some may still be on their way: read until the bins add up to the
  // pixel count. Bins only grow, so then every one holds its final value. (The bins of a
  // workspace left dirty by a failed call add up to more: that ends the loop too, with wrong
  // results rather than a hang, until init_luma_stats_workspace clears it.)
  for (;;) {
    if (owns_bin) {
      bin = 0;
#pragma unroll
      for (int c = 0; c < kAccumulators; ++c) bin += DeviceAtomic(ws->accum[c][t]).load(::cuda::memory_order_relaxed);
      count0 = bin;
      sum0 = static_cast<unsigned long long>(bin) * static_cast<unsigned>(t);
#pragma unroll
      for (int d = 1; d < kLanes; d *= 2) {
        const unsigned long long c = __shfl_up_sync(kAllLanes, count0, d);
        const unsigned long long s = __shfl_up_sync(kAllLanes, sum0, d);
        if (lane >= d) {
          count0 += c;
          sum0 += s;
        }
      }
      if (lane == kLanes - 1) {
        shared.warp_count[warp] = count0;
        shared.warp_sum[warp] = sum0;
      }
    }
    __syncthreads();
    total_count = 0;
    total_sum = 0;
#pragma unroll
    for (int w = 0; w < kBinWarps; ++w) {
      if (w < warp) {
        count0 += shared.warp_count[w];
        sum0 += shared.warp_sum[w];
      }
      total_count += shared.warp_count[w];
      total_sum += shared.warp_sum[w];
    }
    if (total_count >= pixels) break;
    __syncthreads();  // everyone has read the warp sums before the retry overwrites them
  }

  if (owns_bin) {
    out->bins[t] = bin;
#pragma unroll
    for (int c = 0; c < kAccumulators; ++c) DeviceAtomic(ws->accum[c][t]).store(0u, ::cuda::memory_order_relaxed);
    // Largest key, smallest t on ties: the t that cpu::otsu_threshold's strict '>' keeps.
    unsigned long long best = 0;
    const int first = warp_argmax(otsu_key(count0, sum0, total_count, total_sum), best);
    if (lane == 0) {
      shared.warp_key[warp] = best;
      shared.warp_t[warp] = warp * kLanes + first;
    }
  } else if (t == kBins) {
    // A thread without a bin divides for the mean, in parallel with the bin owners' divisions.
    out->mean = total_sum == 0 ? 0.0
                               : __ddiv_rn(static_cast<double>(total_sum), static_cast<double>(total_count));
  }
  __syncthreads();
  if (t == 0) {
    // Warps hold ascending ranges of t, so a strict '>' keeps the smallest t on ties.
    unsigned long long key = shared.warp_key[0];
    int best_t = shared.warp_t[0];
#pragma unroll
    for (int w = 1; w < kBinWarps; ++w)
      if (shared.warp_key[w] > key) {
        key = shared.warp_key[w];
        best_t = shared.warp_t[w];
      }
    out->otsu = best_t;
    out->reserved = 0;
    // Every other block has already bumped the counter, so nothing races this reset; the
    // next call (a later launch) sees it.
    DeviceAtomic(ws->blocks_done).store(0u, ::cuda::memory_order_relaxed);
  }
}

__global__ void __launch_bounds__(kThreads, 1)
    luma_stats_kernel(ConstImageU8 src, unsigned chunks_per_row, unsigned total_chunks, unsigned pixels, Workspace* ws,
                      LumaStatsDevice* out) {
  // 16-byte words, so that clearing takes 2 stores per thread.
  __shared__ uint4 sub_storage[kBins * kLanes / 4];
  __shared__ bool is_last;
  std::uint32_t* sub = reinterpret_cast<std::uint32_t*>(sub_storage);

  const unsigned tid = threadIdx.x;
  const unsigned stride = gridDim.x * kThreads;
  // Grid-stride over the chunks; the next chunk is loaded before the current one is counted,
  // and the first before the sub-histograms are cleared, so that clearing overlaps its latency.
  unsigned i = blockIdx.x * kThreads + tid;
  Chunk chunk = load_chunk_or_empty(src, i, chunks_per_row, total_chunks);
  for (unsigned k = tid; k < kBins * kLanes / 4; k += kThreads) sub_storage[k] = make_uint4(0, 0, 0, 0);
  __syncthreads();

  std::uint32_t* mine = sub + tid % kLanes;
  for (i += stride; i < total_chunks; i += stride) {
    const Chunk next = load_chunk(src, i, chunks_per_row);
    count_chunk(chunk, mine);
    chunk = next;
  }
  count_chunk(chunk, mine);
  __syncthreads();

  // Merge the 32 copies: the four threads of bin tid / 4 each sum 8 copies, rotated by the
  // bin so that a warp's 32 reads hit 32 banks, then combine by shuffles.
  {
    const unsigned bin = tid / kThreadsPerBin;
    const unsigned part = tid % kThreadsPerBin;
    std::uint32_t sum = 0;
#pragma unroll
    for (int k = 0; k < kCopiesPerThread; ++k)
      sum += sub[bin * kLanes + (part * kCopiesPerThread + k + bin) % kLanes];
#pragma unroll
    for (int d = 1; d < kThreadsPerBin; d *= 2) sum += __shfl_xor_sync(kAllLanes, sum, d);
    if (part == 0 && sum != 0) atomicAdd(&ws->accum[blockIdx.x % kAccumulators][bin], sum);
  }
  __syncthreads();
  if (tid == 0) is_last = atomicAdd(&ws->blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (is_last) finalize(pixels, ws, out, *reinterpret_cast<FinalizeShared*>(sub_storage));
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
  unsigned pixels = 0;
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
    pixels = static_cast<unsigned>(src.width) * static_cast<unsigned>(src.height);
  }

  int device = 0;
  int multiprocessors = 0;
  FP_CUDA_CHECK(cudaGetDevice(&device));
  FP_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  // One chunk per thread where that fits in one wave; grid-stride beyond. At least one block,
  // which for an empty image writes the zero result.
  const unsigned wanted = (total_chunks + kThreads - 1) / kThreads;
  const unsigned grid = std::clamp(wanted, 1u, static_cast<unsigned>(std::max(1, multiprocessors)));
  luma_stats_kernel<<<grid, kThreads, 0, stream>>>(src, chunks_per_row, total_chunks, pixels,
                                                   static_cast<Workspace*>(workspace), out);
  check_launch("luma_stats_kernel");
}

}  // namespace fp::cuda
