#include "cuda/nlmeans.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuda/cuda_check.hpp"
#include "cuda/nlmeans_device.cuh"

namespace fp::cuda {
namespace {

using namespace nlmeans_device;

// How the kernel works (docs/stages.md has the definition, cuda/nlmeans.hpp the summary).
//
// A block of kWarps warps owns an output tile kTileWidth = 32 columns wide: lane i of every
// warp works on column x0 + i, and warp w on a strip of kRows rows below the previous warp's.
// Coordinates inside the block:
//   byte tile   tile(u, v) = E(x0 - S - K + u, y0 - S - K + v), E the image extended by
//               reflect-101, so nothing later needs a border test;
//   tables      SQ(u, v) and C(u, v) for the pixel q = (x0 - S + u, y0 - S + v): the sum of
//               squares over q's patch (an int) and E(q) (a float). q's patch starts at
//               tile(u, v), so the partner patch of the pixel in lane i at offset (dx, dy)
//               starts at tile column u = i + S + dx, which is also its table column.
// A patch row of 2K+1 bytes is read as kWords 32-bit words. The wide tunings keep the byte
// tile in four copies, copy j shifted by j bytes, so that every row starts on a word of one
// of them: plain aligned loads (the others load one word more and funnel-shift by the byte
// offset). The own pixel's words have their unused bytes zeroed, so the dp4a of an
// own row with a partner row is exactly sum_k E(p+k) E(q+k) over that row, whatever the
// partner's spare bytes hold.
//
// The offsets are visited kGroup at a time: one dx and kGroup consecutive dy. The partner rows
// of offset dy+1 are those of dy one row further down, so as a thread slides down its strip
// each partner row is loaded once for the whole group, and each table entry is loaded once.
// Per own row and offset the thread computes the row cross term (kWords dp4a) and keeps the
// sum over the last 2K+1 rows in a register ring (the loops being fully unrolled): either
// the terms themselves, added and subtracted as the window slides, or (kPrefix) their
// running sums P, the dp4a chain accumulating straight into P and the window's sum being
// P_s - P_{s-2K-1}: one subtraction per output row instead of one per own row. Once the
// ring is full each step finishes one output row:
//   SSD = SQ(p) + SQ(q) - 2 X, exact in int32 (at most 2 * 225 * 255^2 for patch 15).
// When patch^2 * 255^2 < 2^23 the SSD is carried with 2^23's float bits added (SQ(p) is
// stored so), and the int's bits are then the float 2^23 + SSD, exactly; one fma with
// -c and c * 2^23 gives -c * SSD rounded once, with no conversion instruction. Larger patches
// convert the int (exact below 2^24).
//
// The last group of dy may run past S; those offsets are computed (the tile has kGroup - 1
// spare rows for them) but their exponent gets -inf, hence weight 0, so the loops have no
// partial case. The offset (0, 0) always has SSD 0 and weight exactly 1, so the denominator
// is at least 1.

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kTileWidth = 32;

// The kernel's tuning, per patch radius K (Tunings): offsets per group, output rows per
// thread, whether the tile is kept in four byte-shifted copies, whether the own patch rows
// stay in registers, and the blocks per SM the registers are capped for.
template <int Group, int Rows, bool Shifted, bool OwnInRegisters, int MinBlocks, bool Prefix = false>
struct Config {
  static constexpr bool kPrefix = Prefix;
  static constexpr int kGroup = Group;
  static constexpr int kRows = Rows;
  static constexpr bool kShifted = Shifted;
  static constexpr bool kOwnInRegisters = OwnInRegisters;
  static constexpr int kMinBlocksPerSm = MinBlocks;
};

// Two tunings per patch radius, measured on an H100 at 1080p (docs/bench/h100-212b006-issue21.md):
// `Wide` visits the offsets in groups of more dy (fewer partner-row loads per offset: shared
// memory bandwidth is what the kernel waits on beside instruction issue, so loads matter more
// than their count of instructions says) and more output rows per thread (fewer of the 2K
// extra patch rows per output), paid with registers (2 blocks of 4 warps per SM);
// `Narrow` is for searches whose side the wide group does not divide well (launch_for).
// Patches 9..15 read the own rows from the tile (their rows would not fit in registers).
// Patch 1 keeps the first tuning (it is not a use anyone times).
template <int K>
struct Tunings {
  using Wide = std::conditional_t<
      K == 0, Config<3, 16, false, true, 4, false>,
      std::conditional_t<K == 1, Config<11, 16, true, true, 2, true>,
                         std::conditional_t<K == 2, Config<5, 16, true, true, 2, true>,
                                            std::conditional_t<K == 3, Config<7, 16, true, true, 2, true>,
                                                               Config<7, 8, true, false, 3, true>>>>>;
  using Narrow = std::conditional_t<
      K == 0, Config<3, 16, false, true, 4, false>,
      std::conditional_t<K <= 2, Config<3, K == 1 ? 16 : 8, true, true, 4, true>,
                         std::conditional_t<K == 3, Config<3, 16, true, true, 3, true>, Config<3, 8, false, false, 4, false>>>>;
};

template <int K, class C>
struct Shape {
  static constexpr int kGroup = C::kGroup;
  static constexpr int kSide = 2 * K + 1;
  static constexpr int kWords = (kSide + 3) / 4;  // 32-bit words holding a patch row
  static constexpr int kRows = C::kRows;
  static constexpr int kTileHeight = kWarps * kRows;
  static constexpr int kSteps = kRows + 2 * K;  // own patch rows a strip visits
  static constexpr bool kOwnInRegisters = C::kOwnInRegisters;
  static constexpr bool kShifted = C::kShifted;
  static constexpr int kLastBytes = kSide - 4 * (kWords - 1);
  static constexpr std::uint32_t kLastMask = kLastBytes == 4 ? 0xFFFFFFFFu : (1u << (8 * kLastBytes)) - 1u;
  static constexpr bool kMagicExponent = kSide * kSide * 255 * 255 < (1 << 23);
};

// Shared memory of one block, in 32-bit words: the byte tile, then the SQ table, then the C
// table (which, before it is filled, holds the horizontal sums of squares, 2K rows more).
struct Layout {
  int tile_pitch;  // words per tile row: enough for the last lane's widest load
  int tile_rows;
  int tile_plane;   // words of one copy of the tile
  int copy_stride;  // words from one copy to the next: 8 banks apart
  int table_width;
  int table_rows;
  int table_offset;
  int center_offset;
  int words;
};

FP_HOST_DEVICE constexpr Layout make_layout(int k, int s, int tile_height, int group, int copies) {
  Layout l{};
  const int words_per_row = (2 * k + 1 + 3) / 4;
  // The widest partner window starts at column 31 + 2S and its load reads words_per_row + 1
  // words from the word holding that column. That covers the 32 + 2(S + K) data columns.
  l.tile_pitch = (kTileWidth - 1 + 2 * s) / 4 + words_per_row + 1;
  l.tile_rows = tile_height + 2 * s + 2 * k + group - 1;
  l.tile_plane = l.tile_rows * l.tile_pitch;
  // The 8 lanes that read one copy read 8 consecutive words; with the copies 8 banks apart the
  // 32 lanes of a warp read 32 different banks but for one (a 2-way conflict on one bank at
  // most). Unpadded, copies a multiple of 32 words apart would conflict 4 ways.
  l.copy_stride = copies > 1 ? (l.tile_plane + 31) / 32 * 32 + 8 : l.tile_plane;
  l.table_width = kTileWidth + 2 * s;
  l.table_rows = tile_height + 2 * s + group - 1;
  l.table_offset = (copies - 1) * l.copy_stride + l.tile_plane;
  l.center_offset = l.table_offset + l.table_rows * l.table_width;
  l.words = l.center_offset + (l.table_rows + 2 * k) * l.table_width;
  return l;
}

struct Args {
  ConstImageU8 src;
  ImageU8 dst8;  // written when dst32.data is null
  ImageF32 dst32;
  int radius;       // S
  float neg_scale;  // -log2(e) / (patch^2 h^2)
  float offset;     // added to every exponent: c * 2^23 to cancel the magic bias, or 0
  // When set, the sums of weighted values and of weights are written here instead of their
  // quotient (temporal_nlmeans adds its previous frames' before dividing).
  ImageF32 sum_num;
  ImageF32 sum_den;
};




// NW aligned words.
template <int NW>
__device__ __forceinline__ void load_aligned(const std::uint32_t* p, std::uint32_t (&w)[NW]) {
#pragma unroll
  for (int j = 0; j < NW; ++j) w[j] = p[j];
}

template <int K, class C>
__global__ void __launch_bounds__(kThreads, C::kMinBlocksPerSm) nlmeans_kernel(Args a) {
  using Sh = Shape<K, C>;
  constexpr int kGroup = Sh::kGroup;
  constexpr int kSide = Sh::kSide;
  constexpr int kWords = Sh::kWords;
  constexpr int kRows = Sh::kRows;
  extern __shared__ std::uint32_t smem[];

  const int s_radius = a.radius;
  const Layout l = make_layout(K, s_radius, Sh::kTileHeight, kGroup, Sh::kShifted ? 4 : 1);
  const int width = a.src.width;
  const int height = a.src.height;
  const int x0 = static_cast<int>(blockIdx.x) * kTileWidth;
  const int y0 = static_cast<int>(blockIdx.y) * Sh::kTileHeight;
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31;
  const int strip = (tid >> 5) * kRows;  // the warp's first output row in the tile

  std::uint32_t* const tile = smem;
  int* const table = reinterpret_cast<int*>(smem + l.table_offset);
  float* const centers = reinterpret_cast<float*>(smem + l.center_offset);
  int* const row_squares = reinterpret_cast<int*>(smem + l.center_offset);
  const unsigned char* const tile_bytes = reinterpret_cast<const unsigned char*>(tile);
  const int tile_pitch_bytes = 4 * l.tile_pitch;

  // 1. The byte tile, reflected while loading; columns past the data are zero.
  {
    const int left = x0 - s_radius - K;
    const int top = y0 - s_radius - K;
    const int data_width = kTileWidth + 2 * (s_radius + K);
    for (int i = tid; i < l.tile_rows * l.tile_pitch; i += kThreads) {
      const int v = i / l.tile_pitch;
      const int word = i - v * l.tile_pitch;
      const unsigned char* row = a.src.row(reflect101(top + v, height));
      std::uint32_t bytes = 0;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        const int u = 4 * word + b;
        if (u < data_width) bytes |= static_cast<std::uint32_t>(row[reflect101(left + u, width)]) << (8 * b);
      }
      tile[i] = bytes;
    }
  }
  __syncthreads();
  // 1b. Copies of the tile shifted by 1, 2 and 3 bytes: word w of copy j holds the bytes
  // 4w + j .. 4w + j + 3 of the row, so that every window load is aligned (no funnel shift
  // per load). The last word of a row is never read through a copy.
  if constexpr (Sh::kShifted) {
    for (int i = tid; i < l.tile_plane; i += kThreads) {
      const int word = i % l.tile_pitch;
      const std::uint32_t lo = tile[i];
      const std::uint32_t hi = word + 1 < l.tile_pitch ? tile[i + 1] : 0u;
#pragma unroll
      for (int j = 1; j < 4; ++j) tile[j * l.copy_stride + i] = __funnelshift_r(lo, hi, 8 * j);
    }
  }

  // 2. Sums of squares over each patch: along rows, then down columns.
  for (int i = tid; i < (l.table_rows + 2 * K) * l.table_width; i += kThreads) {
    const int v = i / l.table_width;
    const int u = i - v * l.table_width;
    const unsigned char* p = tile_bytes + v * tile_pitch_bytes + u;
    int sum = 0;
#pragma unroll
    for (int kx = 0; kx < kSide; ++kx) sum += static_cast<int>(p[kx]) * static_cast<int>(p[kx]);
    row_squares[i] = sum;
  }
  __syncthreads();
  for (int i = tid; i < l.table_rows * l.table_width; i += kThreads) {
    int sum = 0;
#pragma unroll
    for (int ky = 0; ky < kSide; ++ky) sum += row_squares[i + ky * l.table_width];
    table[i] = sum;
  }
  __syncthreads();

  // 3. The pixel values as floats (over the row sums, which are no longer needed).
  for (int i = tid; i < l.table_rows * l.table_width; i += kThreads) {
    const int v = i / l.table_width;
    const int u = i - v * l.table_width;
    centers[i] = static_cast<float>(tile_bytes[(v + K) * tile_pitch_bytes + u + K]);
  }

  // The thread's own patch rows start at tile column lane + S, rows strip + S + step.
  const int own_column = lane + s_radius;
  const std::uint32_t* const own_base = tile + (Sh::kShifted ? (own_column & 3) * l.copy_stride : 0) +
                                        (strip + s_radius) * l.tile_pitch + (own_column >> 2);
  const unsigned own_shift = 8u * static_cast<unsigned>(own_column & 3);
  // Own patch row s, its bytes past the patch zeroed.
  auto load_own = [&](int s, std::uint32_t(&w)[kWords]) {
    if constexpr (Sh::kShifted)
      load_aligned(own_base + s * l.tile_pitch, w);
    else
      load_window(own_base + s * l.tile_pitch, own_shift, w);
    w[kWords - 1] &= Sh::kLastMask;
  };
  std::uint32_t own[Sh::kOwnInRegisters ? Sh::kSteps : 1][kWords];
  if constexpr (Sh::kOwnInRegisters) {
#pragma unroll
    for (int s = 0; s < Sh::kSteps; ++s) load_own(s, own[s]);
  }
  // SQ(p) of each output row, with the magic bias when the exponent uses it.
  int own_sq[kRows];
#pragma unroll
  for (int o = 0; o < kRows; ++o)
    own_sq[o] = table[(strip + o + s_radius) * l.table_width + own_column] +
                (Sh::kMagicExponent ? static_cast<int>(kTwoPow23Bits) : 0);
  __syncthreads();

  float num[kRows];
  float den[kRows];
#pragma unroll
  for (int o = 0; o < kRows; ++o) {
    num[o] = 0.0f;
    den[o] = 0.0f;
  }

  for (int dy0 = -s_radius; dy0 <= s_radius; dy0 += kGroup) {
    float bias[kGroup];
#pragma unroll
    for (int g = 0; g < kGroup; ++g) bias[g] = dy0 + g <= s_radius ? a.offset : -INFINITY;
    // Partner row m of the group (own row s at offset dy0 + g has m = s + g) is tile row
    // row0 + m; table row n (output row o at offset dy0 + g has n = o + g) is row0 + n.
    const int row0 = strip + s_radius + dy0;

    for (int dx = -s_radius; dx <= s_radius; ++dx) {
      const int u = lane + s_radius + dx;
      const std::uint32_t* const partner =
          tile + (Sh::kShifted ? (u & 3) * l.copy_stride : 0) + row0 * l.tile_pitch + (u >> 2);
      const unsigned shift = 8u * static_cast<unsigned>(u & 3);
      auto load_partner = [&](int m, std::uint32_t(&w)[kWords]) {
        if constexpr (Sh::kShifted)
          load_aligned(partner + m * l.tile_pitch, w);
        else
          load_window(partner + m * l.tile_pitch, shift, w);
      };
      const int* const sq = table + row0 * l.table_width + u;
      const float* const value = centers + row0 * l.table_width + u;

      std::uint32_t window[kGroup][kWords];  // partner row m in slot m % kGroup
      int partner_sq[kGroup];                // table row n in slot n % kGroup
      float partner_value[kGroup];
      int ring[kGroup][kSide];  // row cross terms, own row s in slot s % kSide
      int cross[kGroup];        // their sum over the last kSide rows
#pragma unroll
      for (int m = 0; m < kGroup - 1; ++m) load_partner(m, window[m]);
#pragma unroll
      for (int n = 0; n < kGroup - 1; ++n) {
        partner_sq[n] = sq[n * l.table_width];
        partner_value[n] = value[n * l.table_width];
      }

#pragma unroll
      for (int s = 0; s < Sh::kSteps; ++s) {
        {
          constexpr int kAhead = kGroup - 1;
          load_partner(s + kAhead, window[(s + kAhead) % kGroup]);
        }
        std::uint32_t loaded[kWords];
        if constexpr (!Sh::kOwnInRegisters) load_own(s, loaded);
        // The own patch row: from registers, or just loaded (`loaded` is unused in the first case).
        const std::uint32_t(&mine)[kWords] = Sh::kOwnInRegisters ? own[Sh::kOwnInRegisters ? s : 0] : loaded;
#pragma unroll
        for (int g = 0; g < kGroup; ++g) {
          const std::uint32_t(&theirs)[kWords] = window[(s + g) % kGroup];
          if constexpr (C::kPrefix) {
            // ring holds the running sums P_s of the row cross terms; the patch's sum is
            // P_s - P_{s - kSide}, read before its slot is overwritten.
            unsigned p = s == 0 ? 0u : static_cast<unsigned>(ring[g][(s + kSide - 1) % kSide]);
#pragma unroll
            for (int j = 0; j < kWords; ++j) p = __dp4a(mine[j], theirs[j], p);
            const int old = s >= kSide ? ring[g][s % kSide] : 0;
            cross[g] = static_cast<int>(p) - old;
            ring[g][s % kSide] = static_cast<int>(p);
            continue;
          }
          unsigned row_cross = 0;
#pragma unroll
          for (int j = 0; j < kWords; ++j) row_cross = __dp4a(mine[j], theirs[j], row_cross);
          const int r = static_cast<int>(row_cross);
          if (s == 0)
            cross[g] = r;
          else if (s < kSide)
            cross[g] += r;
          else
            cross[g] += r - ring[g][s % kSide];
          ring[g][s % kSide] = r;
        }

        if (s >= 2 * K) {
          const int o = s - 2 * K;  // the output row whose patch rows are now all summed
          {
            const int n = o + kGroup - 1;
            partner_sq[n % kGroup] = sq[n * l.table_width];
            partner_value[n % kGroup] = value[n * l.table_width];
          }
#pragma unroll
          for (int g = 0; g < kGroup; ++g) {
            const int ssd = own_sq[o] + partner_sq[(o + g) % kGroup] - 2 * cross[g];
            const float exponent = Sh::kMagicExponent ? fmaf(__int_as_float(ssd), a.neg_scale, bias[g])
                                                      : fmaf(static_cast<float>(ssd), a.neg_scale, bias[g]);
            const float w = fast_exp2(exponent);
            num[o] = fmaf(w, partner_value[(o + g) % kGroup], num[o]);
            den[o] += w;
          }
        }
      }
    }
  }

  const int x = x0 + lane;
  if (x >= width) return;
#pragma unroll
  for (int o = 0; o < kRows; ++o) {
    const int y = y0 + strip + o;
    if (y >= height) break;
    if (a.sum_num.data != nullptr) {
      a.sum_num(x, y) = num[o];
      a.sum_den(x, y) = den[o];
      continue;
    }
    const float mean = num[o] / den[o];
    if (a.dst32.data != nullptr)
      a.dst32(x, y) = mean;
    else
      a.dst8(x, y) = static_cast<unsigned char>(fminf(fmaxf(floorf(mean + 0.5f), 0.0f), 255.0f));
  }
}

template <int K, class C>
void launch(const Args& args, cudaStream_t stream) {
  using Sh = Shape<K, C>;
  const int rows_of_tiles = (args.src.height + Sh::kTileHeight - 1) / Sh::kTileHeight;
  if (rows_of_tiles > 65535) throw std::invalid_argument("nlmeans: image too tall for the launch grid");
  const dim3 grid(static_cast<unsigned>((args.src.width + kTileWidth - 1) / kTileWidth),
                  static_cast<unsigned>(rows_of_tiles));
  const Layout l = make_layout(K, args.radius, Sh::kTileHeight, Sh::kGroup, Sh::kShifted ? 4 : 1);
  const std::size_t shared_bytes = static_cast<std::size_t>(l.words) * sizeof(std::uint32_t);
  // Beyond the default 48 KiB a kernel must opt in (searches from 27 to 41 up, by patch). This sets
  // an attribute of the kernel on the current device; it allocates and enqueues nothing.
  if (shared_bytes > 48 * 1024)
    check(cudaFuncSetAttribute(nlmeans_kernel<K, C>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(shared_bytes)),
          "nlmeans_kernel (shared memory size)");
  nlmeans_kernel<K, C><<<grid, kThreads, shared_bytes, stream>>>(args);
  check_launch("nlmeans_kernel");
}

// The offsets a search of `side` columns computes in groups of `group` dy (the last group
// computes past the side, with weight 0).
constexpr int offsets_computed(int side, int group) { return (side + group - 1) / group * group * side; }

// The wide tuning unless its group wastes more than a tenth above what groups of 3 compute:
// 21 (the default), 51, 7 or 13 for patch 7, but 15 or 9 take the narrow one.
template <int K>
void launch_for(const Args& args, cudaStream_t stream) {
  using T = Tunings<K>;
  const int side = 2 * args.radius + 1;
  if (10 * offsets_computed(side, T::Wide::kGroup) <= 11 * offsets_computed(side, T::Narrow::kGroup))
    launch<K, typename T::Wide>(args, stream);
  else
    launch<K, typename T::Narrow>(args, stream);
}

// Whether two planes share any byte.
template <class A, class B>
bool overlap(ImageView<A> a, ImageView<B> b) {
  if (a.empty() || b.empty()) return false;
  const auto* a_begin = reinterpret_cast<const unsigned char*>(a.data);
  const auto* b_begin = reinterpret_cast<const unsigned char*>(b.data);
  const auto* a_end = a_begin + (a.height - 1) * a.pitch + a.width * static_cast<std::ptrdiff_t>(sizeof(A));
  const auto* b_end = b_begin + (b.height - 1) * b.pitch + b.width * static_cast<std::ptrdiff_t>(sizeof(B));
  return a_begin < b_end && b_begin < a_end;
}

template <class T>
void check_plane(ImageView<T> view, const char* name) {
  if (view.width < 0 || view.height < 0) throw std::invalid_argument(std::string("nlmeans: negative size of ") + name);
  if (view.empty()) return;
  if (view.data == nullptr) throw std::invalid_argument(std::string("nlmeans: null ") + name);
  if (view.pitch < static_cast<std::ptrdiff_t>(view.width * sizeof(T)))
    throw std::invalid_argument(std::string("nlmeans: pitch of ") + name + " below its width");
}

template <class Out>
void run(ConstImageU8 src, ImageView<Out> dst, const ops::NlmeansParams& params, Args args, cudaStream_t stream) {
  check_nlmeans_params(params);
  check_plane(src, "source");
  check_plane(dst, "destination");
  if (src.width != dst.width || src.height != dst.height)
    throw std::invalid_argument("nlmeans: source and destination sizes differ");
  if (overlap(src, dst)) throw std::invalid_argument("nlmeans: source and destination overlap");
  if (src.empty()) return;

  const int k = params.patch / 2;
  const WeightExponent exponent = weight_exponent(params);
  args.src = src;
  args.radius = params.search / 2;
  args.neg_scale = exponent.neg_scale;
  args.offset = exponent.offset;
  // One kernel per patch radius: the radius sizes the register arrays and unrolled loops.
  using Launch = void (*)(const Args&, cudaStream_t);
  constexpr Launch kLaunch[] = {launch_for<0>, launch_for<1>, launch_for<2>, launch_for<3>,
                                launch_for<4>, launch_for<5>, launch_for<6>, launch_for<7>};
  static_assert(std::size(kLaunch) == kNlmeansMaxPatch / 2 + 1);
  kLaunch[k](args, stream);
}

}  // namespace

void check_nlmeans_params(const ops::NlmeansParams& params) {
  if (!(params.h > 0.0) || !std::isfinite(params.h))
    throw std::invalid_argument("nlmeans: h must be > 0 and finite, got " + std::to_string(params.h));
  if (params.patch < 1 || params.patch > kNlmeansMaxPatch || params.patch % 2 == 0)
    throw std::invalid_argument("nlmeans: patch must be odd and in 1.." + std::to_string(kNlmeansMaxPatch) +
                                " on the GPU, got " + std::to_string(params.patch));
  if (params.search < 1 || params.search > kNlmeansMaxSearch || params.search % 2 == 0)
    throw std::invalid_argument("nlmeans: search must be odd and in 1.." + std::to_string(kNlmeansMaxSearch) +
                                " on the GPU, got " + std::to_string(params.search));
}

void nlmeans(ConstImageU8 src, ImageU8 dst, const ops::NlmeansParams& params, cudaStream_t stream) {
  Args args{};
  args.dst8 = dst;
  run(src, dst, params, args, stream);
}

void nlmeans_unrounded(ConstImageU8 src, ImageF32 dst, const ops::NlmeansParams& params, cudaStream_t stream) {
  Args args{};
  args.dst32 = dst;
  run(src, dst, params, args, stream);
}

void nlmeans_sums(ConstImageU8 src, ImageF32 num, ImageF32 den, const ops::NlmeansParams& params, cudaStream_t stream) {
  check_plane(den, "weight sums");
  if (den.width != num.width || den.height != num.height)
    throw std::invalid_argument("nlmeans: the weight sums differ in size from the value sums");
  Args args{};
  args.sum_num = num;
  args.sum_den = den;
  run(src, num, params, args, stream);
}

}  // namespace fp::cuda
