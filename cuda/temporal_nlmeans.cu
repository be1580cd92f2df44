#include "cuda/temporal_nlmeans.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>

#include "cuda/cuda_check.hpp"
#include "cuda/nlmeans_device.cuh"
#include "cuda/limits.hpp"
#include "cuda/nlmeans.hpp"

namespace fp::cuda {
namespace {

using namespace nlmeans_device;

// Coordinates (cuda/temporal_nlmeans.hpp has the summary). The warp's region starts at
// (x0, y0) = (32 * blockIdx.x, 16 * region row); lane i works on column x0 + i, in motion
// block bx = 2 * blockIdx.x + i / 16 (its half h = i / 16).
//   own tile     own(c, r) = E(x0 - K + c, y0 - K + r): lane i's patch row s starts at (i, s);
//   window h     win(c, r) = E'(16 bx + v.x - T - K + c, 16 by + v.y - T - K + r), E' the
//                previous frame extended by reflect-101 and v the block's vector. The partner
//                at offset (dx, dy) of lane i's pixel in output row o has its patch at window
//                column (i & 15) + T + dx, row o + T + dy, and its patch row for own row s at
//                window row s + T + dy;
//   SQ table h   sq(u, w) = sum of squares over the window patch at (u, w), u, w < 16 + 2T.

constexpr int kWarps = 4;
constexpr int kRegionWidth = 32;
constexpr int kRows = ops::kMotionBlock;  // output rows of a region: one block row

struct WarpLayout {
  int own_pitch;  // words per own-tile row
  int own_rows;
  int win_rows;   // window rows: 16 + 2T + 2K, and kGroup - 1 spare for the last group of dy
  int win_width;  // window bytes per row: 16 + 2T + 2K
  int win_pitch;  // words per window row
  int sq_side;    // SQ table columns: 16 + 2T
  int sq_rows;    // 16 + 2T + kGroup - 1
  int own_offset;  // where each part starts in the warp's words
  int win_offset[2];
  int sq_offset[2];
  int value_offset[2];  // the partner pixels as floats, where the SQ table has their patches
  int row_sq_offset;  // the windows' horizontal sums of squares, one window at a time
  int words;
};

// Rows hold one spare word beyond the widest unaligned load (kWords + 1 words from a row's
// last start), so nothing reads past its row.
FP_HOST_DEVICE constexpr WarpLayout warp_layout(int k, int t, int group) {
  WarpLayout l{};
  l.own_rows = kRows + 2 * k;
  l.own_pitch = (kRegionWidth + 2 * k + 3) / 4 + 2;
  l.win_width = ops::kMotionBlock + 2 * t + 2 * k;
  l.win_rows = l.win_width + group - 1;
  l.win_pitch = (l.win_width + 3) / 4 + 2;
  l.sq_side = ops::kMotionBlock + 2 * t;
  l.sq_rows = l.sq_side + group - 1;
  l.own_offset = 0;
  int at = l.own_pitch * l.own_rows;
  for (int h = 0; h < 2; ++h) {
    l.win_offset[h] = at;
    at += l.win_pitch * l.win_rows;
  }
  // The two halves of a warp read their tables at the same column offsets: the second table
  // of each pair starts 16 banks after the first's (mod 32), so the halves never share a bank.
  const int table = (l.sq_side * l.sq_rows + 15) / 32 * 32 + 16;
  for (int h = 0; h < 2; ++h) {
    l.sq_offset[h] = at;
    at += table;
  }
  for (int h = 0; h < 2; ++h) {
    l.value_offset[h] = at;
    at += table;
  }
  l.row_sq_offset = at;
  at += l.sq_side * l.win_rows;
  l.words = at;
  return l;
}

struct Args {
  ConstImageU8 current;
  TemporalFrames previous;
  const int* use;
  int blocks_x;
  int blocks_y;
  int t;            // temporal search radius T
  float neg_scale;  // -log2(e) / (patch^2 h^2)
  float offset;     // c * 2^23 to cancel the magic bias, or 0
  ConstImageF32 spatial_num;  // the current frame's sums (cuda::nlmeans_sums), added before dividing
  ConstImageF32 spatial_den;
  ImageU8 dst8;     // written when dst32.data is null
  ImageF32 dst32;
};




// Fills `words` (rows of `pitch` words, `rows` rows) with the bytes of `image` extended by
// reflect-101 from (left, top), `data_width` bytes a row and zeros after them. Warp-wide.
__device__ void load_bytes(std::uint32_t* words, int pitch, int rows, int data_width, ConstImageU8 image, int left,
                           int top, int lane) {
  // Unrolled so that several words' loads are in flight at once: they come from L2.
#pragma unroll 4
  for (int i = lane; i < pitch * rows; i += 32) {
    const int r = i / pitch;
    const int word = i - r * pitch;
    const unsigned char* row = image.row(reflect101(top + r, image.height));
    std::uint32_t bytes = 0;
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      const int c = 4 * word + b;
      if (c < data_width) bytes |= static_cast<std::uint32_t>(row[reflect101(left + c, image.width)]) << (8 * b);
    }
    words[i] = bytes;
  }
}

// Offsets are visited kGroup dy at a time (one dx): the partner rows of dy + 1 are those of
// dy one row further down, so each window row is loaded once for the whole group, and so is
// each table entry (as in cuda/nlmeans.cu). The ring holds running sums P_s of the row cross
// terms; a patch's cross term is P_s - P_(s - kSide). The last group may run past T: those
// offsets are computed on the spare rows and get weight 0.
template <int K>
struct Tuning {
  static constexpr int kGroup = 6;
  static constexpr bool kOwnInRegisters = K <= 3;
};

template <int K>
__global__ void __launch_bounds__(32 * kWarps, 2) temporal_kernel(Args a) {
  constexpr int kSide = 2 * K + 1;
  constexpr int kWords = (kSide + 3) / 4;
  constexpr int kSteps = kRows + 2 * K;
  constexpr int kGroup = Tuning<K>::kGroup;
  constexpr bool kOwnInRegisters = Tuning<K>::kOwnInRegisters;
  constexpr int kLastBytes = kSide - 4 * (kWords - 1);
  constexpr std::uint32_t kLastMask = kLastBytes == 4 ? 0xFFFFFFFFu : (1u << (8 * kLastBytes)) - 1u;
  constexpr bool kMagicExponent = kSide * kSide * 255 * 255 < (1 << 23);
  extern __shared__ std::uint32_t smem[];

  const int t = a.t;
  const WarpLayout l = warp_layout(K, t, kGroup);
  const int warp = static_cast<int>(threadIdx.x >> 5);
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int by = static_cast<int>(blockIdx.y) * kWarps + warp;
  if (by >= a.blocks_y) return;  // every warp works alone: no block-wide barrier below
  const int x0 = static_cast<int>(blockIdx.x) * kRegionWidth;
  const int y0 = by * kRows;
  const int width = a.current.width;
  const int height = a.current.height;
  std::uint32_t* const mine_words = smem + warp * l.words;
  const int half = lane >> 4;
  const int column = lane & 15;

  float num[kRows];
  float den[kRows];
#pragma unroll
  for (int o = 0; o < kRows; ++o) {
    num[o] = 0.0f;
    den[o] = 0.0f;
  }

  const int use = min(*a.use, a.previous.count);
  if (use > 0) {
    std::uint32_t* const own_tile = mine_words + l.own_offset;
    load_bytes(own_tile, l.own_pitch, l.own_rows, kRegionWidth + 2 * K, a.current, x0 - K, y0 - K, lane);
    __syncwarp();
    const std::uint32_t* const own_base = own_tile + (lane >> 2);
    const unsigned own_shift = 8u * static_cast<unsigned>(lane & 3);
    auto load_own = [&](int s, std::uint32_t(&w)[kWords]) {
      load_window(own_base + s * l.own_pitch, own_shift, w);
      w[kWords - 1] &= kLastMask;
    };
    std::uint32_t own[kOwnInRegisters ? kSteps : 1][kWords];
    if constexpr (kOwnInRegisters) {
#pragma unroll
      for (int s = 0; s < kSteps; ++s) load_own(s, own[s]);
    }
    // SQ(p) of each output row (with the magic bias when the exponent uses it).
    int own_sq[kRows];
    {
      int row_sq[kSteps];
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        std::uint32_t w[kWords];
        if constexpr (kOwnInRegisters) {
#pragma unroll
          for (int j = 0; j < kWords; ++j) w[j] = own[s][j];
        } else {
          load_own(s, w);
        }
        unsigned sum = 0;
#pragma unroll
        for (int j = 0; j < kWords; ++j) sum = __dp4a(w[j], w[j], sum);
        row_sq[s] = static_cast<int>(sum);
      }
#pragma unroll
      for (int o = 0; o < kRows; ++o) {
        int sum = kMagicExponent ? static_cast<int>(kTwoPow23Bits) : 0;
#pragma unroll
        for (int s = 0; s < kSide; ++s) sum += row_sq[o + s];
        own_sq[o] = sum;
      }
    }

    for (int j = 0; j < use; ++j) {
      __syncwarp();  // the previous frame's windows are no longer read
      for (int h = 0; h < 2; ++h) {
        const int block_x = 2 * static_cast<int>(blockIdx.x) + h;
        ops::MotionVector v{};
        if (block_x < a.blocks_x) v = a.previous.vectors[j][by * a.blocks_x + block_x];
        load_bytes(mine_words + l.win_offset[h], l.win_pitch, l.win_rows, l.win_width, a.previous.frame[j],
                   16 * block_x + v.x - t - K, y0 + v.y - t - K, lane);
      }
      __syncwarp();
      // Each window's SQ table: sums of squares along its rows, then down the columns.
      int* const row_sq = reinterpret_cast<int*>(mine_words + l.row_sq_offset);
      for (int h = 0; h < 2; ++h) {
        const unsigned char* win = reinterpret_cast<const unsigned char*>(mine_words + l.win_offset[h]);
        for (int i = lane; i < l.win_rows * l.sq_side; i += 32) {
          const int w = i / l.sq_side;
          const int u = i - w * l.sq_side;
          const unsigned char* p = win + w * 4 * l.win_pitch + u;
          int sum = 0;
#pragma unroll
          for (int kx = 0; kx < kSide; ++kx) sum += static_cast<int>(p[kx]) * static_cast<int>(p[kx]);
          row_sq[i] = sum;
        }
        __syncwarp();
        int* sq = reinterpret_cast<int*>(mine_words + l.sq_offset[h]);
        float* value = reinterpret_cast<float*>(mine_words + l.value_offset[h]);
        for (int i = lane; i < l.sq_rows * l.sq_side; i += 32) {
          int sum = 0;
#pragma unroll
          for (int ky = 0; ky < kSide; ++ky) sum += row_sq[i + ky * l.sq_side];
          sq[i] = sum;
          const int w = i / l.sq_side;
          const int u = i - w * l.sq_side;
          value[i] = static_cast<float>(win[(w + K) * 4 * l.win_pitch + u + K]);
        }
        __syncwarp();
      }

      const std::uint32_t* const win = mine_words + l.win_offset[half];
      const int* const sq = reinterpret_cast<const int*>(mine_words + l.sq_offset[half]);
      const float* const values = reinterpret_cast<const float*>(mine_words + l.value_offset[half]);
      for (int dy0 = -t; dy0 <= t; dy0 += kGroup) {
        float bias[kGroup];
#pragma unroll
        for (int g = 0; g < kGroup; ++g) bias[g] = dy0 + g <= t ? a.offset : -INFINITY;
        const int row0 = t + dy0;  // window row of own row 0 at the group's first dy
        for (int dx = -t; dx <= t; ++dx) {
          const int u = column + t + dx;
          const std::uint32_t* const partner = win + row0 * l.win_pitch + (u >> 2);
          const unsigned shift = 8u * static_cast<unsigned>(u & 3);
          const int* const sq_column = sq + row0 * l.sq_side + u;
          const float* const value_column = values + row0 * l.sq_side + u;
          std::uint32_t window[kGroup][kWords];  // partner row m in slot m % kGroup
          int partner_sq[kGroup];                // table row n in slot n % kGroup
          float partner_value[kGroup];
          int ring[kGroup][kSide];  // running sums of the row cross terms, own row s in slot s % kSide
#pragma unroll
          for (int m = 0; m < kGroup - 1; ++m) load_window(partner + m * l.win_pitch, shift, window[m]);
#pragma unroll
          for (int n = 0; n < kGroup - 1; ++n) {
            partner_sq[n] = sq_column[n * l.sq_side];
            partner_value[n] = value_column[n * l.sq_side];
          }
#pragma unroll
          for (int s = 0; s < kSteps; ++s) {
            load_window(partner + (s + kGroup - 1) * l.win_pitch, shift, window[(s + kGroup - 1) % kGroup]);
            std::uint32_t loaded[kWords];
            if constexpr (!kOwnInRegisters) load_own(s, loaded);
            const std::uint32_t(&mine)[kWords] = kOwnInRegisters ? own[kOwnInRegisters ? s : 0] : loaded;
            int cross[kGroup];
#pragma unroll
            for (int g = 0; g < kGroup; ++g) {
              const std::uint32_t(&theirs)[kWords] = window[(s + g) % kGroup];
              unsigned p = s == 0 ? 0u : static_cast<unsigned>(ring[g][(s + kSide - 1) % kSide]);
#pragma unroll
              for (int w = 0; w < kWords; ++w) p = __dp4a(mine[w], theirs[w], p);
              const int old = s >= kSide ? ring[g][s % kSide] : 0;
              cross[g] = static_cast<int>(p) - old;
              ring[g][s % kSide] = static_cast<int>(p);
            }
            if (s >= 2 * K) {
              const int o = s - 2 * K;  // the output row whose patch rows are now all summed
              {
                const int n = o + kGroup - 1;
                partner_sq[n % kGroup] = sq_column[n * l.sq_side];
                partner_value[n % kGroup] = value_column[n * l.sq_side];
              }
#pragma unroll
              for (int g = 0; g < kGroup; ++g) {
                const int ssd = own_sq[o] + partner_sq[(o + g) % kGroup] - 2 * cross[g];
                const float exponent = kMagicExponent ? fmaf(__int_as_float(ssd), a.neg_scale, bias[g])
                                                      : fmaf(static_cast<float>(ssd), a.neg_scale, bias[g]);
                const float weight = fast_exp2(exponent);
                num[o] = fmaf(weight, partner_value[(o + g) % kGroup], num[o]);
                den[o] += weight;
              }
            }
          }
        }
      }
    }
  }

  const int x = x0 + lane;
  if (x >= width) return;
#pragma unroll
  for (int o = 0; o < kRows; ++o) {
    const int y = y0 + o;
    if (y >= height) break;
    const float mean = (num[o] + a.spatial_num(x, y)) / (den[o] + a.spatial_den(x, y));
    if (a.dst32.data != nullptr)
      a.dst32(x, y) = mean;
    else
      a.dst8(x, y) = static_cast<unsigned char>(fminf(fmaxf(floorf(mean + 0.5f), 0.0f), 255.0f));
  }
}

template <int K>
void launch(const Args& args, cudaStream_t stream) {
  const WarpLayout l = warp_layout(K, args.t, Tuning<K>::kGroup);
  const std::size_t shared_bytes = static_cast<std::size_t>(l.words) * kWarps * sizeof(std::uint32_t);
  if (shared_bytes > 48 * 1024)
    check(cudaFuncSetAttribute(temporal_kernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(shared_bytes)),
          "temporal_kernel (shared memory size)");
  const dim3 grid(static_cast<unsigned>((args.current.width + kRegionWidth - 1) / kRegionWidth),
                  static_cast<unsigned>((args.blocks_y + kWarps - 1) / kWarps));
  temporal_kernel<K><<<grid, 32 * kWarps, shared_bytes, stream>>>(args);
  check_launch("temporal_kernel");
}

__global__ void decide_kernel(ops::TemporalHistory* history, const unsigned long long* sad_sum, bool reset,
                              std::int64_t pixels, int frames, int* use) {
  if (reset) *history = ops::TemporalHistory{};
  const std::int64_t sad = history->kept > 0 ? static_cast<std::int64_t>(*sad_sum) : 0;
  *use = ops::take_history(*history, sad, pixels, frames);
}

}  // namespace

void check_temporal_nlmeans_params(const ops::TemporalNlmeansParams& params) {
  check_nlmeans_params(params.spatial);
  if (params.temporal_search < 1 || params.temporal_search > kTemporalNlmeansMaxSearch || params.temporal_search % 2 == 0)
    throw std::invalid_argument("temporal_nlmeans: temporal_search must be odd and in 1.." +
                                std::to_string(kTemporalNlmeansMaxSearch) + " on the GPU, got " +
                                std::to_string(params.temporal_search));
  if (params.frames < 0 || params.frames > ops::kMaxTemporalFrames)
    throw std::invalid_argument("temporal_nlmeans: frames must be in 0.." + std::to_string(ops::kMaxTemporalFrames) +
                                ", got " + std::to_string(params.frames));
}

void decide_history(ops::TemporalHistory* history, const unsigned long long* sad_sum, bool reset,
                    std::int64_t pixels, int frames, int* use, cudaStream_t stream) {
  decide_kernel<<<1, 1, 0, stream>>>(history, sad_sum, reset, pixels, frames, use);
  check_launch("decide_kernel");
}

namespace {

template <class Out>
void finish(ConstImageU8 current, const TemporalFrames& previous, const int* use, const ops::TemporalNlmeansParams& params,
            ConstImageF32 spatial_num, ConstImageF32 spatial_den, ImageView<Out> dst, Args args, cudaStream_t stream) {
  check_temporal_nlmeans_params(params);
  if (previous.count < 0 || previous.count > ops::kMaxTemporalFrames)
    throw std::invalid_argument("temporal_nlmeans: bad count of previous frames");
  auto same_size = [&](int w, int h) { return w == current.width && h == current.height; };
  if (!same_size(spatial_num.width, spatial_num.height) || !same_size(spatial_den.width, spatial_den.height) ||
      !same_size(dst.width, dst.height))
    throw std::invalid_argument("temporal_nlmeans: the sums or the destination differ in size from the frame");
  for (int j = 0; j < previous.count; ++j)
    if (!same_size(previous.frame[j].width, previous.frame[j].height))
      throw std::invalid_argument("temporal_nlmeans: a previous frame differs in size");
  if (current.empty()) return;
  args.current = current;
  args.previous = previous;
  args.use = use;
  args.blocks_x = ops::motion_blocks(current.width);
  args.blocks_y = ops::motion_blocks(current.height);
  args.t = params.temporal_search / 2;
  const int patch = params.spatial.patch;
  const WeightExponent exponent = weight_exponent(params.spatial);
  args.neg_scale = exponent.neg_scale;
  args.offset = exponent.offset;
  args.spatial_num = spatial_num;
  args.spatial_den = spatial_den;
  using Launch = void (*)(const Args&, cudaStream_t);
  constexpr Launch kLaunch[] = {launch<0>, launch<1>, launch<2>, launch<3>, launch<4>, launch<5>, launch<6>, launch<7>};
  static_assert(std::size(kLaunch) == kNlmeansMaxPatch / 2 + 1);
  kLaunch[patch / 2](args, stream);
}

}  // namespace

void temporal_finish(ConstImageU8 current, const TemporalFrames& previous, const int* use,
                     const ops::TemporalNlmeansParams& params, ConstImageF32 spatial_num, ConstImageF32 spatial_den,
                     ImageU8 dst, cudaStream_t stream) {
  Args args{};
  args.dst8 = dst;
  finish(current, previous, use, params, spatial_num, spatial_den, dst, args, stream);
}

void temporal_finish_unrounded(ConstImageU8 current, const TemporalFrames& previous, const int* use,
                               const ops::TemporalNlmeansParams& params, ConstImageF32 spatial_num,
                               ConstImageF32 spatial_den, ImageF32 dst, cudaStream_t stream) {
  Args args{};
  args.dst32 = dst;
  finish(current, previous, use, params, spatial_num, spatial_den, dst, args, stream);
}

}  // namespace fp::cuda
