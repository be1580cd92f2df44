#include "cuda/mean_smooth.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/cuda_check.hpp"

namespace fp::cuda {
namespace {

// One block per tile of kTileW x kTileH output pixels, in four phases:
//   1. load the tile and its apron (r rows above and below, `apron` >= r columns left and
//      right) into shared memory, coordinates clamped to the image, so that the border
//      replication is done once here and the passes below have no border logic;
//   2. vertical pass: for every tile column, the sum over rows y-r..y+r of each output row
//      y, as running sums down 8-row segments, four columns at a time in packed 16-bit
//      halves (a column sum is at most 65 * 255 = 16575);
//   3. horizontal pass: for every output, the sum of 2r+1 column sums, as a running sum
//      along 16 outputs per thread; then the exact division, into a staging tile;
//   4. coalesced 16-byte stores of the staging tile.
// Per output pixel that is ~2 shared loads and a few integer operations for any r, plus the
// start of each running sum (2r+1 terms per 8 rows vertically, r+1 loads per 16 outputs
// horizontally) and the apron's share of the loads.

constexpr int kTileW = 128;
constexpr int kTileH = 32;
constexpr int kThreads = 256;
// Horizontal pass: warp w computes columns [16 w, 16 w + 16) of the tile, lane l row l.
constexpr int kRunW = 16;
static_assert(kThreads == kTileH * (kTileW / kRunW), "one thread per 16-output run");
static_assert(kTileH == 32, "a warp's lanes are the tile's rows");
// Vertical pass: a thread sums 4 columns down one segment of kRunH rows.
constexpr int kRunH = 8;
static_assert(kTileH % kRunH == 0, "segments cover the tile");
// Staging row stride: 144 = 36 words, so the 8 lanes of each quarter warp storing 16 bytes
// into 8 different rows cover all 32 banks once.
constexpr int kStageStride = kTileW + 16;
constexpr std::uint32_t kLowBytes = 0x00FF00FFu;

struct Params {
  int radius;
  int apron;       // columns loaded left and right of the tile: r rounded up to 16, so that
                   // every load of 16 bytes is aligned wherever the image rows are
  int in_stride;   // bytes per row of the input tile: kTileW + 2 * apron (a multiple of 16)
  int in_rows;     // kTileH + 2 * radius
  int v_stride;    // words per row of the column sums: in_stride / 2 + 1, odd, so that the
                   // 32 lanes (32 rows) of the horizontal pass hit 32 different banks
  std::uint32_t half;  // n / 2
  std::uint32_t mul;   // floor(x / n) == (x * mul) >> shift for every x < 256 n
  int shift;
};

// Global -> shared 16-byte copy that does not pass through registers (cp.async, sm_80+):
// all of a thread's loads of the tile are in flight at once.
__device__ __forceinline__ void copy16_async(void* smem_dst, const void* gmem_src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(__cvta_generic_to_global(gmem_src))
               : "memory");
#else
  *static_cast<uint4*>(smem_dst) = __ldg(static_cast<const uint4*>(gmem_src));
#endif
}

__device__ __forceinline__ void wait_async_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

__global__ void __launch_bounds__(kThreads) mean_smooth_kernel(ConstImageU8 src, ImageU8 dst, Params p) {
  extern __shared__ __align__(16) unsigned char smem[];
  // Column sums: kTileH rows of p.v_stride words, each word two 16-bit sums (columns 2k, 2k+1).
  std::uint32_t* const colsum = reinterpret_cast<std::uint32_t*>(smem);
  // Input tile: p.in_rows rows of p.in_stride bytes; tile (i, j) is image
  // (clamp(x0 - apron + j), clamp(y0 - r + i)). Later reused as the staging tile.
  unsigned char* const tile = smem + kTileH * p.v_stride * 4;

  const int tid = static_cast<int>(threadIdx.x);
  const int x0 = static_cast<int>(blockIdx.x) * kTileW;
  const int y0 = static_cast<int>(blockIdx.y) * kTileH;
  const int r = p.radius;

  // 1. Load. x0 and apron are multiples of 16, so a chunk is one aligned 16-byte load when it
  // lies inside the image and the row is 16-byte aligned; otherwise (borders, odd pitches)
  // it is read bytewise with clamped coordinates.
  {
    const int chunks_per_row = p.in_stride / 16;
    const int chunks = p.in_rows * chunks_per_row;
    const int xs = x0 - p.apron;
    for (int k = tid; k < chunks; k += kThreads) {
      const int i = k / chunks_per_row;
      const int c = k - i * chunks_per_row;
      const int gy = min(max(y0 - r + i, 0), src.height - 1);
      const int gx = xs + 16 * c;
      const std::uint8_t* row = src.row(gy);
      unsigned char* d = tile + i * p.in_stride + 16 * c;
      if (gx >= 0 && gx + 16 <= src.width && (reinterpret_cast<std::uintptr_t>(row + gx) & 15u) == 0) {
        copy16_async(d, row + gx);
      } else {
        std::uint32_t w[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          w[q] = 0;
#pragma unroll
          for (int b = 0; b < 4; ++b) {
            const int x = min(max(gx + 4 * q + b, 0), src.width - 1);
            w[q] |= static_cast<std::uint32_t>(__ldg(row + x)) << (8 * b);
          }
        }
        *reinterpret_cast<uint4*>(d) = make_uint4(w[0], w[1], w[2], w[3]);
      }
    }
    wait_async_copies();
  }
  __syncthreads();

  // 2. Vertical pass. Column-sum row v is the sum of tile rows v .. v + 2r. A word of the tile
  // holds columns 4g .. 4g+3; masking splits it into (4g, 4g+2) and (4g+1, 4g+3) in 16-bit
  // halves, and every partial sum stays below 2^16, so one 32-bit add or subtract updates two
  // columns without carries between the halves (the running update's result is again a pair
  // of true sums, both >= 0, whatever order the compiler adds and subtracts in).
  {
    const int groups = p.in_stride / 4;
    const std::uint32_t* const tile32 = reinterpret_cast<const std::uint32_t*>(tile);
    const int in_words = p.in_stride / 4;
    for (int item = tid; item < groups * (kTileH / kRunH); item += kThreads) {
      const int g = item % groups;
      const int v0 = item / groups * kRunH;
      std::uint32_t even = 0;
      std::uint32_t odd = 0;
      for (int i = v0; i <= v0 + 2 * r; ++i) {
        const std::uint32_t w = tile32[i * in_words + g];
        even += w & kLowBytes;
        odd += (w >> 8) & kLowBytes;
      }
#pragma unroll
      for (int k = 0; k < kRunH; ++k) {
        const int v = v0 + k;
        // Words 2g and 2g+1 of the row: columns (4g, 4g+1) and (4g+2, 4g+3).
        std::uint32_t* out = colsum + v * p.v_stride + 2 * g;
        out[0] = __byte_perm(even, odd, 0x5410);
        out[1] = __byte_perm(even, odd, 0x7632);
        if (k + 1 < kRunH) {
          const std::uint32_t enter = tile32[(v + 1 + 2 * r) * in_words + g];
          const std::uint32_t leave = tile32[v * in_words + g];
          even = even + (enter & kLowBytes) - (leave & kLowBytes);
          odd = odd + ((enter >> 8) & kLowBytes) - ((leave >> 8) & kLowBytes);
        }
      }
    }
  }
  __syncthreads();

  // 3. Horizontal pass: lane = tile row, warp = run of 16 outputs starting at tile column c0.
  {
    const int lane = tid % 32;
    const int run = tid / 32;
    const std::uint32_t* const row32 = colsum + lane * p.v_stride;
    const std::uint16_t* const row16 = reinterpret_cast<const std::uint16_t*>(row32);
    const int c0 = p.apron + kRunW * run;
    // The first window, columns a .. a + 2r, read two columns per load: r whole words and
    // one half word, at the start when a is odd, at the end when it is even.
    const int a = c0 - r;
    const std::uint32_t* w = row32 + (a >> 1);
    std::uint32_t sum;
    if (a & 1) {
      sum = w[0] >> 16;
      ++w;
    } else {
      sum = w[r] & 0xFFFFu;
    }
    for (int k = 0; k < r; ++k) sum += (w[k] & 0xFFFFu) + (w[k] >> 16);

    std::uint32_t packed[4] = {0, 0, 0, 0};
#pragma unroll
    for (int j = 0; j < kRunW; ++j) {
      if (j > 0) sum = sum + row16[c0 + j + r] - row16[c0 + j - 1 - r];
      const auto q = static_cast<std::uint32_t>(
          (static_cast<std::uint64_t>(sum + p.half) * p.mul) >> p.shift);
      packed[j / 4] |= q << (8 * (j % 4));
    }
    // The input tile is no longer read (the barrier above ended the vertical pass): stage the
    // outputs there.
    *reinterpret_cast<uint4*>(tile + lane * kStageStride + kRunW * run) =
        make_uint4(packed[0], packed[1], packed[2], packed[3]);
  }
  __syncthreads();

  // 4. Store: 8 threads per tile row, 16 bytes each; one warp writes 4 rows of 128 bytes.
  {
    const int row = tid / (kTileW / 16);
    const int part = tid % (kTileW / 16);
    const int y = y0 + row;
    const int x = x0 + 16 * part;
    if (y < dst.height && x < dst.width) {
      const unsigned char* staged = tile + row * kStageStride + 16 * part;
      std::uint8_t* out = dst.row(y) + x;
      if (x + 16 <= dst.width && (reinterpret_cast<std::uintptr_t>(out) & 15u) == 0) {
        *reinterpret_cast<uint4*>(out) = *reinterpret_cast<const uint4*>(staged);
      } else {
        const int n = min(16, dst.width - x);
        for (int b = 0; b < n; ++b) out[b] = staged[b];
      }
    }
  }
}

}  // namespace

void mean_smooth(ConstImageU8 src, ImageU8 dst, int radius, cudaStream_t stream) {
  if (src.width != dst.width || src.height != dst.height)
    throw std::invalid_argument("mean_smooth: source and destination sizes differ");
  if (radius < 0 || radius > kMeanSmoothMaxRadius)
    throw std::invalid_argument("mean_smooth: radius must be in [0, " + std::to_string(kMeanSmoothMaxRadius) +
                                "], got " + std::to_string(radius));
  if (src.empty()) return;
  if (src.data == nullptr || dst.data == nullptr) throw std::invalid_argument("mean_smooth: null image data");
  const unsigned grid_x = (static_cast<unsigned>(src.width) + kTileW - 1) / kTileW;
  const unsigned grid_y = (static_cast<unsigned>(src.height) + kTileH - 1) / kTileH;
  if (grid_y > 65535)
    throw std::invalid_argument("mean_smooth: height " + std::to_string(src.height) + " is above the supported " +
                                std::to_string(65535 * kTileH));

  Params p{};
  p.radius = radius;
  p.apron = (radius + 15) / 16 * 16;
  p.in_stride = kTileW + 2 * p.apron;
  p.in_rows = kTileH + 2 * radius;
  p.v_stride = p.in_stride / 2 + 1;
  // The same exact reciprocal as cpu/mean_smooth.cpp: with 2^shift >= 256 n^2 and
  // mul = ceil(2^shift / n), (x * mul) >> shift is floor(x / n) for every x < 256 n, and the
  // rounded window sum is at most 255 n + n / 2. For n <= 65^2, shift is at most 33 and mul
  // fits in 32 bits.
  const std::uint64_t side = 2 * static_cast<std::uint64_t>(radius) + 1;
  const std::uint64_t n = side * side;
  p.half = static_cast<std::uint32_t>(n / 2);
  p.shift = 0;
  while ((std::uint64_t{1} << p.shift) < 256 * n * n) ++p.shift;
  p.mul = static_cast<std::uint32_t>(((std::uint64_t{1} << p.shift) + n - 1) / n);

  const std::size_t colsum_bytes = static_cast<std::size_t>(kTileH) * p.v_stride * 4;
  const std::size_t tile_bytes = static_cast<std::size_t>(p.in_rows) * p.in_stride;
  const std::size_t stage_bytes = static_cast<std::size_t>(kTileH) * kStageStride;
  const std::size_t smem = colsum_bytes + (tile_bytes > stage_bytes ? tile_bytes : stage_bytes);

  mean_smooth_kernel<<<dim3(grid_x, grid_y), kThreads, smem, stream>>>(src, dst, p);
  check_launch("mean_smooth_kernel");
}

}  // namespace fp::cuda
