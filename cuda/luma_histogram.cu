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
// sub-histograms, bumps a block counter and adds its 256 totals to a grid-wide accumulator in
// the workspace; the block that drew the last ticket reads the accumulator into the result
// (once all adds have landed), clears it and the counter for the next call, and computes the
// mean and Otsu's threshold.
//
// At 1920x1080 on an H100 the pixels are the small part: the blocks are done counting about
// 1.4 us after they start, no later than a kernel that only reads the frame. What follows is
// a chain of steps paid once per launch, which took most of the time: merging the
// sub-histograms, the L2 round trips of the global atomics, and the last block alone reading
// the accumulator and computing Otsu (about 2 us of the 4.4 us the blocks run). The choices
// below keep that chain short: the ticket is drawn before the merge, so that its round trip
// overlaps it; one warp of the last block polls the accumulator with 16-byte loads, without
// block barriers; and Otsu's divisions are spread over all 1024 threads.

constexpr int kBins = 256;
constexpr int kLanes = 32;
constexpr unsigned kAllLanes = 0xFFFFFFFFu;
// One block of 1024 threads per SM: a 1920x1080 frame is then about one chunk per thread in
// one wave (128 blocks), and every block's fixed costs (clearing and merging its
// sub-histograms, 256 global atomics) are paid half as often as with 512-thread blocks.
constexpr int kThreads = 1024;
constexpr int kWarps = kThreads / kLanes;
constexpr int kThreadsPerBin = kThreads / kBins;  // the merge gives each bin four threads
constexpr int kCopiesPerThread = kLanes / kThreadsPerBin;
static_assert(kThreads % kBins == 0 && kLanes % kThreadsPerBin == 0);
// Blocks add into accumulator blockIdx % kAccumulators: with a single one, all blocks' adds
// queue on the same 8 L2 lines at the end of the kernel (0.3 us more at 1080p, measured).
constexpr int kAccumulators = 8;
// The last block's reader warp: lane l holds bins [8 l, 8 l + 8).
constexpr int kBinsPerLane = kBins / kLanes;
static_assert(kBinsPerLane == 8, "a lane reads its bins as two 16-byte words per accumulator");
// Chunk indices are 32-bit. The bound also keeps the pixel count below 2^32 (pixels <
// 16 * chunks), so that every bin, and their sum, fits the 32-bit accumulators.
constexpr unsigned kMaxChunks = 1u << 28;

struct alignas(16) Workspace {
  // Bins summed over the blocks of the running call, spread over kAccumulators copies;
  // 0 between calls.
  std::uint32_t accum[kAccumulators][kBins];
  std::uint32_t blocks_done;  // blocks counted so far in the running call; 0 between calls
};

// The caller's workspace is only promised to be 4-byte aligned (as the header says); the
// Workspace lives at its first 16-byte boundary, for the 16-byte loads and stores below.
constexpr std::size_t kWorkspaceBytes = sizeof(Workspace) + alignof(Workspace) - 4;

Workspace* aligned_workspace(void* workspace) {
  constexpr std::uintptr_t mask = alignof(Workspace) - 1;
  return reinterpret_cast<Workspace*>((reinterpret_cast<std::uintptr_t>(workspace) + mask) & ~mask);
}

// The workspace is read and written by many blocks at once: every access is an atomic one
// (relaxed, device scope), so that no access races another. The 16-byte loads and stores
// below are relaxed too: PTX treats a vector ld/st.relaxed as one relaxed access per element.
using DeviceAtomic = ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device>;

__device__ __forceinline__ uint4 load_relaxed(const std::uint32_t* p) {
  uint4 v;
  asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

__device__ __forceinline__ void store_relaxed(std::uint32_t* p, uint4 v) {
  asm volatile("st.relaxed.gpu.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

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

// The last block's shared data; it lives in the sub-histograms' memory, free by then.
struct FinalizeShared {
  unsigned long long sum0[kBins];  // value sum of bins [0, t]: class 0's for a split after t
  std::uint32_t count0[kBins];     // pixel count of bins [0, t]
  unsigned long long warp_key[kWarps];
  int warp_t[kWarps];
  unsigned long long total_count;
  unsigned long long total_sum;
};

// The last block: bins, mean and Otsu from the accumulators, which it clears on the way.
// All threads must call this (it has barriers).
//
// Warp 0 alone reads the accumulators and scans them, with 16-byte loads and without block
// barriers between its retries; then all 1024 threads share Otsu's divisions, one each.
__device__ void finalize(unsigned pixels, Workspace* ws, LumaStatsDevice* out, FinalizeShared& sh) {
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % kLanes;
  const int warp = tid / kLanes;
  if (warp == 0) {
    // The blocks add without waiting for their adds to land (a fence would cost a full L2
    // round trip), so some may still be on their way: read until the bins add up to the
    // pixel count. Bins only grow, so then every one holds its final value. (The bins of a
    // workspace left dirty by a failed call add up to more: that ends the loop too, with
    // wrong results rather than a hang, until init_luma_stats_workspace clears it.)
    // Lane l holds bins [8 l, 8 l + 8), summed over the copies: two 16-byte loads per copy.
    std::uint32_t bins[kBinsPerLane];
    unsigned long long total = 0;
    for (;;) {
#pragma unroll
      for (int i = 0; i < kBinsPerLane; ++i) bins[i] = 0;
#pragma unroll
      for (int c = 0; c < kAccumulators; ++c) {
        const uint4 lo = load_relaxed(&ws->accum[c][kBinsPerLane * lane]);
        const uint4 hi = load_relaxed(&ws->accum[c][kBinsPerLane * lane + 4]);
        bins[0] += lo.x;
        bins[1] += lo.y;
        bins[2] += lo.z;
        bins[3] += lo.w;
        bins[4] += hi.x;
        bins[5] += hi.y;
        bins[6] += hi.z;
        bins[7] += hi.w;
      }
      // The sum of all 256 bins, exact in 64 bits: 32-bit reductions of its 16-bit halves.
      unsigned long long lane_total = 0;
#pragma unroll
      for (int i = 0; i < kBinsPerLane; ++i) lane_total += bins[i];
      const unsigned high = __reduce_add_sync(kAllLanes, static_cast<unsigned>(lane_total >> 16));
      const unsigned low = __reduce_add_sync(kAllLanes, static_cast<unsigned>(lane_total & 0xFFFFu));
      total = (static_cast<unsigned long long>(high) << 16) + low;
      if (total >= pixels) break;
    }

    // Inclusive prefix sums of the counts and of value * count: class 0's count and sum for
    // a split after bin t, within the lane's 8 bins, then across the lanes. 64-bit sums, so
    // they are exact.
    const int first = kBinsPerLane * lane;  // the lane's first bin
    const unsigned first_value = static_cast<unsigned>(first);
    std::uint32_t count[kBinsPerLane];
    unsigned long long sum[kBinsPerLane];
    count[0] = bins[0];
    sum[0] = static_cast<unsigned long long>(bins[0]) * first_value;
#pragma unroll
    for (int i = 1; i < kBinsPerLane; ++i) {
      count[i] = count[i - 1] + bins[i];
      sum[i] = sum[i - 1] + static_cast<unsigned long long>(bins[i]) * (first_value + i);
    }
    std::uint32_t lane_count = count[kBinsPerLane - 1];
    unsigned long long lane_sum = sum[kBinsPerLane - 1];
#pragma unroll
    for (int d = 1; d < kLanes; d *= 2) {
      const std::uint32_t c = __shfl_up_sync(kAllLanes, lane_count, d);
      const unsigned long long s = __shfl_up_sync(kAllLanes, lane_sum, d);
      if (lane >= d) {
        lane_count += c;
        lane_sum += s;
      }
    }
    const std::uint32_t count_before = lane_count - count[kBinsPerLane - 1];
    const unsigned long long sum_before = lane_sum - sum[kBinsPerLane - 1];
    uint4* count_out = reinterpret_cast<uint4*>(&sh.count0[first]);
    count_out[0] = make_uint4(count_before + count[0], count_before + count[1], count_before + count[2],
                              count_before + count[3]);
    count_out[1] = make_uint4(count_before + count[4], count_before + count[5], count_before + count[6],
                              count_before + count[7]);
    ulonglong2* sum_out = reinterpret_cast<ulonglong2*>(&sh.sum0[first]);
#pragma unroll
    for (int i = 0; i < kBinsPerLane / 2; ++i)
      sum_out[i] = make_ulonglong2(sum_before + sum[2 * i], sum_before + sum[2 * i + 1]);
    if (lane == kLanes - 1) {
      sh.total_count = total;
      sh.total_sum = lane_sum;
    }

    uint2* bins_out = reinterpret_cast<uint2*>(&out->bins[first]);  // a LumaStatsDevice is 8-aligned
    bins_out[0] = make_uint2(bins[0], bins[1]);
    bins_out[1] = make_uint2(bins[2], bins[3]);
    bins_out[2] = make_uint2(bins[4], bins[5]);
    bins_out[3] = make_uint2(bins[6], bins[7]);
#pragma unroll
    for (int c = 0; c < kAccumulators; ++c) {
      store_relaxed(&ws->accum[c][first], make_uint4(0, 0, 0, 0));
      store_relaxed(&ws->accum[c][first + 4], make_uint4(0, 0, 0, 0));
    }
    // Every other block has bumped the counter before its adds, and all adds have landed, so
    // nothing races this reset; the next call (a later launch) sees it.
    if (lane == 0) DeviceAtomic(ws->blocks_done).store(0u, ::cuda::memory_order_relaxed);
  }
  __syncthreads();

  const unsigned long long total_count = sh.total_count;
  const unsigned long long total_sum = sh.total_sum;
  {
    // Otsu's criterion for the split after bin t as an integer key: larger key = larger
    // variance, and a t that is no split at all (class 0 empty, which cpu::otsu_threshold
    // skips) gets 0, below every real one. The arithmetic is cpu::otsu_threshold's,
    // operation for operation in IEEE double with round to nearest (the _rn intrinsics are
    // never contracted into FMAs), so the variances, and with them the ties, are
    // bit-identical to the CPU's. A variance is >= +0, and the bit patterns of non-negative
    // doubles order like their values.
    //
    // Four threads per t, one division each (thread k of a group of four: w0, w1, mu0, mu1),
    // so that the divisions run side by side; warp w holds t in [8 w, 8 w + 8).
    const int t = tid / 4;
    const int k = tid % 4;
    const unsigned long long count0 = sh.count0[t];
    const unsigned long long sum0 = sh.sum0[t];
    const unsigned long long count1 = total_count - count0;
    unsigned long long numerator = count0;
    unsigned long long denominator = total_count;
    if (k == 1) numerator = count1;
    if (k == 2) {
      numerator = sum0;
      denominator = count0;
    }
    if (k == 3) {
      numerator = total_sum - sum0;
      denominator = count1;
    }
    // The divisions not needed for this t (class 0 or class 1 empty) are skipped. So is a
    // zero numerator, which sends __ddiv_rn down its slow path, a subroutine call on the
    // last block's critical path; 0 / x is +0, as on the CPU.
    const double quotient = numerator != 0 && denominator != 0
                                ? __ddiv_rn(static_cast<double>(numerator), static_cast<double>(denominator))
                                : 0.0;
    const int group = lane & ~3;
    const double w0 = __shfl_sync(kAllLanes, quotient, group);
    const double w1 = __shfl_sync(kAllLanes, quotient, group + 1);
    const double mu0 = __shfl_sync(kAllLanes, quotient, group + 2);
    const double mu1 = __shfl_sync(kAllLanes, quotient, group + 3);
    unsigned long long key = 0;
    if (count0 != 0) {
      double variance = 0.0;
      if (count1 != 0) {
        const double d = __dsub_rn(mu0, mu1);
        variance = __dmul_rn(__dmul_rn(__dmul_rn(w0, w1), d), d);
      }
      key = static_cast<unsigned long long>(__double_as_longlong(variance)) + 1;
    }
    // Largest key, smallest t on ties: the t that cpu::otsu_threshold's strict '>' keeps. A
    // group's four threads hold the same key, so the lowest lane is the group's first.
    unsigned long long best = 0;
    const int best_lane = warp_argmax(key, best);
    if (lane == 0) {
      sh.warp_key[warp] = best;
      sh.warp_t[warp] = warp * (kLanes / 4) + best_lane / 4;
    }
  }
  __syncthreads();

  if (warp == 0) {
    // Warps hold ascending ranges of t, so the lowest lane with the best key is the smallest t.
    unsigned long long best = 0;
    const int best_warp = warp_argmax(sh.warp_key[lane], best);
    if (lane == 0) {
      out->otsu = sh.warp_t[best_warp];
      out->reserved = 0;
    }
  } else if (tid == kLanes) {
    // A thread of another warp divides for the mean, in parallel with warp 0's argmax.
    out->mean = total_sum == 0 ? 0.0
                               : __ddiv_rn(static_cast<double>(total_sum), static_cast<double>(total_count));
  }
}

__global__ void __launch_bounds__(kThreads, 1)
    luma_stats_kernel(ConstImageU8 src, unsigned chunks_per_row, unsigned total_chunks, unsigned pixels, Workspace* ws,
                      LumaStatsDevice* out) {
  // 16-byte words, so that clearing takes 2 stores per thread.
  __shared__ uint4 sub_storage[kBins * kLanes / 4];
  __shared__ bool is_last;
  static_assert(sizeof(FinalizeShared) <= sizeof(sub_storage));
  std::uint32_t* sub = reinterpret_cast<std::uint32_t*>(sub_storage);

  const unsigned tid = threadIdx.x;
  const bool draws_ticket = tid == 0;  // the thread that bumps the block counter, see below
  unsigned ticket = 0;
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

  // The ticket is drawn as soon as the block has counted, so that its L2 round trip overlaps
  // the merge below. Which block draws the last one does not matter: it waits for everyone's
  // adds anyway (see finalize).
  if (draws_ticket) ticket = atomicAdd(&ws->blocks_done, 1u);

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
  if (tid == 0) is_last = ticket == gridDim.x - 1;
  __syncthreads();
  if (is_last) finalize(pixels, ws, out, *reinterpret_cast<FinalizeShared*>(sub_storage));
}

void check_workspace(const char* what, const void* workspace, std::size_t workspace_bytes) {
  if (workspace == nullptr) throw std::invalid_argument(std::string(what) + ": null workspace");
  if (reinterpret_cast<std::uintptr_t>(workspace) % 4 != 0)
    throw std::invalid_argument(std::string(what) + ": workspace is not aligned to 4 bytes");
  if (workspace_bytes < kWorkspaceBytes)
    throw std::invalid_argument(std::string(what) + ": workspace of " + std::to_string(workspace_bytes) +
                                " bytes, " + std::to_string(kWorkspaceBytes) + " needed");
}

}  // namespace

std::size_t luma_stats_workspace_bytes(int /*width*/, int /*height*/) { return kWorkspaceBytes; }

void init_luma_stats_workspace(void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  check_workspace("init_luma_stats_workspace", workspace, workspace_bytes);
  FP_CUDA_CHECK(cudaMemsetAsync(aligned_workspace(workspace), 0, sizeof(Workspace), stream));
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
                                                   aligned_workspace(workspace), out);
  check_launch("luma_stats_kernel");
}

}  // namespace fp::cuda
