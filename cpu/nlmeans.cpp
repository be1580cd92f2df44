#include "cpu/nlmeans.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/exp2_polynomial.hpp"
#include "cpu/parallel.hpp"
#include "cpu/scratch.hpp"

namespace fp::cpu {
namespace {

// How the fast version works. A tile of output pixels keeps, for every search offset d and
// every column x of the tile (widened by the patch radius), the column sum
// c[x][d] = sum over the 2K+1 patch rows of (E(x, y+k) - E(x+dx, y+dy+k))^2, moved down one
// row at a time by adding the entering row and subtracting the leaving one. Along a row the
// patch SSD of every offset is a running sum of 2K+1 of those columns. So each pixel costs
// O(1) per offset, whatever the patch. The offsets are the innermost loop: they are
// independent, so they fill the SIMD lanes, and the running sums along x carry no
// dependency from lane to lane. Each row of offsets (one dy, all dx) is padded to whole
// vectors; the padding lanes get a negligible weight.
//
// SSDs are integers; they are summed in 32-bit integers, exactly, for any tile height,
// which bounds the patch (kMaxPatch). Squares are taken in float, which is exact for
// differences of 8-bit values.

// The vector helpers are always inlined into the kernels, so no vector crosses a call and the
// note GCC gives on them (AVX vectors change the ABI of non-AVX functions) does not apply.
#if defined(__GNUC__)  // GCC and Clang
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

// Largest patch whose SSD plus one column of squares stays below 2^31.
constexpr int kMaxPatch = 181;
// Beyond this the per-tile offset tables outgrow any cache and memory grows as search^2.
constexpr int kMaxSearch = 255;
// Budget for a tile's column sums, so that they stay in the L2 cache.
constexpr std::size_t kColumnBudgetBytes = 256 * 1024;

// GCC vector types of L lanes (spelled out per L: GCC ignores a vector_size that depends on a
// template parameter). The code below is written once for any L and compiled for each
// instruction set that dispatch can pick.
template <int L>
struct VectorTypes;
template <>
struct VectorTypes<4> {
  typedef float F __attribute__((vector_size(16)));
  typedef std::int32_t I __attribute__((vector_size(16)));
};
template <>
struct VectorTypes<8> {
  typedef float F __attribute__((vector_size(32)));
  typedef std::int32_t I __attribute__((vector_size(32)));
};
template <>
struct VectorTypes<16> {
  typedef float F __attribute__((vector_size(64)));
  typedef std::int32_t I __attribute__((vector_size(64)));
};

template <int L>
struct Lanes {
  using F = typename VectorTypes<L>::F;
  using I = typename VectorTypes<L>::I;

  __attribute__((always_inline)) static F load(const float* p) {
    F v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  __attribute__((always_inline)) static I load(const std::int32_t* p) {
    I v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  __attribute__((always_inline)) static void store(std::int32_t* p, const I& v) { std::memcpy(p, &v, sizeof v); }
  __attribute__((always_inline)) static F splat(float x) {
    F v;
    for (int i = 0; i < L; ++i) v[i] = x;
    return v;
  }

  // 2^u (cpu/exp2_polynomial.hpp), with u held at -126 and above (a weight of 2^-126 is far
  // too small to matter next to the centre weight 1).
  __attribute__((always_inline)) static F exp2_clamped(const F& exponent) {
    const F lowest = splat(-126.0f);
    // A bitwise select: GCC turns ?: on vectors into scalar code for SSE2.
    const I below = exponent < lowest;
    const F u = (F)(((I)lowest & below) | ((I)exponent & ~below));
    const F shifted = u + kExp2Shift;
    const F f = u - (shifted - kExp2Shift);
    return exp2_fraction(f) * (F)((I)shifted << 23);
  }
};

struct TileArgs {
  const float* pad;          // the tile's source, extended by reflection
  std::ptrdiff_t pad_pitch;  // floats per pad row
  int width;                 // output columns of the tile
  int height;                // output rows of the tile
  int k;                     // patch radius
  int s;                     // search radius
  int lanes_per_dy;          // offsets stored per dy: 2s+1 rounded up to whole vectors
  float exponent_scale;      // -log2(e) / (|P| h^2): weight = 2^(ssd * exponent_scale)
  const float* lane_bias;    // lanes_per_dy entries added to the exponent: 0, or -1000 for padding
  std::int32_t* columns;     // (width + 2k) * offsets column sums
  std::int32_t* running;     // offsets running SSDs
  std::uint8_t* out;         // the tile's first output pixel
  std::ptrdiff_t out_pitch;  // bytes
  // Set: the sums of weighted values and of weights go here (the tile's first pixel; pitch in
  // floats) instead of their rounded quotient.
  float* sum_num;
  float* sum_den;
  std::ptrdiff_t sum_pitch;
};

// What one step along a row does to the column sums and running SSDs before weighting.
enum class Step {
  kFirst,  // x = 0: the running SSDs are already set up
  kRun,    // tile row 0: the column sums are already right for the row
  kSlide,  // the column sums move down a row first
};

template <int L>
__attribute__((always_inline)) inline void tile_kernel(const TileArgs& args) {
  using V = Lanes<L>;
  using F = typename V::F;
  using I = typename V::I;
  // Locals rather than args' fields: the stores into the sums could otherwise alias args and
  // force reloading them in the innermost loop.
  const float* const pad = args.pad;
  const std::ptrdiff_t pp = args.pad_pitch;
  const int width = args.width;
  const int k = args.k;
  const int s = args.s;
  const int lanes_per_dy = args.lanes_per_dy;
  const int vectors_per_dy = lanes_per_dy / L;
  const int offsets = (2 * s + 1) * lanes_per_dy;
  const F scale = V::splat(args.exponent_scale);
  const float* const lane_bias = args.lane_bias;
  std::int32_t* const columns = args.columns;
  std::int32_t* const running = args.running;

  // Pad coordinates: column j of the column sums (image column x0 - k + j) is pad column
  // j + s, and tile row r is pad row r + k + s. The partner at offset (dx, dy) is pad
  // column + dx and pad row + dy, and dxi = dx + s, dyi = dy + s index the offsets.
  auto pad_row = [&](int row) { return pad + row * pp; };
  auto column_sums = [&](int j) { return columns + static_cast<std::ptrdiff_t>(j) * offsets; };

  // Column sums of tile row 0, each over its 2k+1 patch rows.
  for (int j = 0; j < width + 2 * k; ++j)
    for (int dyi = 0; dyi <= 2 * s; ++dyi)
      for (int v = 0; v < vectors_per_dy; ++v) {
        F sum{};
        for (int ky = 0; ky <= 2 * k; ++ky) {
          const F d = V::splat(pad_row(ky + s)[j + s]) - V::load(pad_row(ky + dyi) + j + v * L);
          sum += d * d;
        }
        V::store(column_sums(j) + dyi * lanes_per_dy + v * L, __builtin_convertvector(sum, I));
      }

  for (int r = 0; r < args.height; ++r) {
    // The patch rows entering at the bottom and leaving at the top (the latter for r > 0).
    const float* enter = pad_row(r + 2 * k);
    const float* leave = pad_row(std::max(r - 1, 0));

    // Moves the column sums of column j (for all offsets) from row r-1 to row r.
    auto slide = [&](int j, int dyi, int v, I& column, const F& a_in, const F& a_out) {
      const F d_in = a_in - V::load(enter + dyi * pp + j + v * L);
      const F d_out = a_out - V::load(leave + dyi * pp + j + v * L);
      column += __builtin_convertvector(d_in * d_in - d_out * d_out, I);
    };

    // The first 2k+1 columns give the running SSDs of output column 0.
    for (int dyi = 0; dyi <= 2 * s; ++dyi)
      for (int v = 0; v < vectors_per_dy; ++v) {
        const int o = dyi * lanes_per_dy + v * L;
        I sum{};
        for (int j = 0; j <= 2 * k; ++j) {
          I column = V::load(column_sums(j) + o);
          if (r > 0) {
            slide(j, dyi, v, column, V::splat(enter[s * pp + j + s]), V::splat(leave[s * pp + j + s]));
            V::store(column_sums(j) + o, column);
          }
          sum += column;
        }
        V::store(running + o, sum);
      }

    std::uint8_t* out_row = args.out + r * args.out_pitch;
    auto step = [&]<Step kStep>(int x) {
      const int j_in = x + 2 * k;  // the column entering the running sums
      std::int32_t* const c_in = column_sums(j_in);
      const std::int32_t* const c_out = column_sums(kStep == Step::kFirst ? 0 : x - 1);
      const F a_in = V::splat(enter[s * pp + j_in + s]);
      const F a_out = V::splat(leave[s * pp + j_in + s]);
      F num{};
      F den{};
      for (int dyi = 0; dyi <= 2 * s; ++dyi) {
        const float* partner = pad_row(r + k + dyi) + x + k;
        for (int v = 0; v < vectors_per_dy; ++v) {
          const int o = dyi * lanes_per_dy + v * L;
          I ssd = V::load(running + o);
          if constexpr (kStep != Step::kFirst) {
            I column = V::load(c_in + o);
            if constexpr (kStep == Step::kSlide) {
              slide(j_in, dyi, v, column, a_in, a_out);
              V::store(c_in + o, column);
            }
            ssd += column - V::load(c_out + o);
            V::store(running + o, ssd);
          }
          const F weight =
              V::exp2_clamped(__builtin_convertvector(ssd, F) * scale + V::load(lane_bias + v * L));
          num += weight * V::load(partner + v * L);
          den += weight;
        }
      }
      float num_sum = 0.0f;
      float den_sum = 0.0f;
      for (int lane = 0; lane < L; ++lane) {
        num_sum += num[lane];
        den_sum += den[lane];
      }
      if (args.sum_num != nullptr) {
        args.sum_num[r * args.sum_pitch + x] = num_sum;
        args.sum_den[r * args.sum_pitch + x] = den_sum;
        return;
      }
      const double value = std::floor(static_cast<double>(num_sum) / static_cast<double>(den_sum) + 0.5);
      out_row[x] = static_cast<std::uint8_t>(std::clamp(value, 0.0, 255.0));
    };
    step.template operator()<Step::kFirst>(0);
    if (r == 0)
      for (int x = 1; x < width; ++x) step.template operator()<Step::kRun>(x);
    else
      for (int x = 1; x < width; ++x) step.template operator()<Step::kSlide>(x);
  }
}

// A tile kernel and the vector width its offset layout must be padded to.
struct Kernel {
  void (*run)(const TileArgs&);
  int lanes;
};

// Four lanes: the one vector width every x86-64 (SSE2) and ARM64 (NEON) has.
void tile_baseline(const TileArgs& t) { tile_kernel<4>(t); }

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) void tile_avx2(const TileArgs& t) { tile_kernel<8>(t); }
__attribute__((target("avx512f,avx2,fma"))) void tile_avx512(const TileArgs& t) { tile_kernel<16>(t); }

// The instruction sets the kernels may use, capped by FRAMEPIPE_CPU_FEATURES (baseline,
// avx2 or avx512) so that the tests can run every variant on one machine.
enum class Isa { kBaseline, kAvx2, kAvx512 };

Isa usable_isa() {
  __builtin_cpu_init();
  Isa isa = Isa::kBaseline;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    isa = Isa::kAvx2;
    if (__builtin_cpu_supports("avx512f")) isa = Isa::kAvx512;
  }
  if (const char* cap = std::getenv("FRAMEPIPE_CPU_FEATURES")) {
    const std::string text(cap);
    if (text == "baseline") isa = Isa::kBaseline;
    if (text == "avx2" && isa == Isa::kAvx512) isa = Isa::kAvx2;
  }
  return isa;
}

Kernel pick_kernel(int search_radius) {
  static const Isa isa = usable_isa();
  // 16 lanes pay only when a row of offsets fills more than 8; otherwise they would be half
  // padding.
  if (isa == Isa::kAvx512 && 2 * search_radius + 1 > 8) return {tile_avx512, 16};
  if (isa != Isa::kBaseline) return {tile_avx2, 8};
  return {tile_baseline, 4};
}
#else
Kernel pick_kernel(int) { return {tile_baseline, 4}; }
#endif

// What every tile of one call shares: the kernel, the geometry, and how the image is cut.
struct Plan {
  Kernel kernel;
  int k;                 // patch radius
  int s;                 // search radius
  int lanes_per_dy;      // offsets stored per dy: 2s+1 rounded up to whole vectors
  int offsets;           // (2s+1) * lanes_per_dy
  float exponent_scale;  // -log2(e) / (|P| h^2)
  int tiles_x;
  int tiles_y;
};

// The start of part i of n items cut into `parts` nearly equal parts. Consecutive starts
// differ by n / parts rounded down or up, so no part is longer than ceil(n / parts).
int part_start(int n, int i, int parts) { return static_cast<int>(static_cast<long long>(n) * i / parts); }
int longest_part(int n, int parts) { return (n + parts - 1) / parts; }

// One worker's buffers for a tile.
struct TileBuffers {
  float* pad;
  std::int32_t* columns;
  std::int32_t* running;
};

// Every worker's TileBuffers, carved from the scratch, each sized for the largest tile. They
// are sized here, before the workers start, so that no worker allocates and a worker that
// gets its first tile late in a run does not either.
class WorkerBuffers {
 public:
  WorkerBuffers(NlmeansScratch& scratch, const Plan& plan, ConstImageU8 src) {
    const int width = longest_part(src.width, plan.tiles_x);
    const int height = longest_part(src.height, plan.tiles_y);
    pad_stride_ = whole_cache_lines<float>(static_cast<std::size_t>(width + 2 * plan.k + plan.lanes_per_dy) *
                                           static_cast<std::size_t>(height + 2 * plan.k + 2 * plan.s));
    columns_stride_ = whole_cache_lines<std::int32_t>(static_cast<std::size_t>(width + 2 * plan.k) *
                                                      static_cast<std::size_t>(plan.offsets));
    running_stride_ = whole_cache_lines<std::int32_t>(static_cast<std::size_t>(plan.offsets));
    const auto workers = static_cast<std::size_t>(worker_count());
    pads_ = at_least(scratch.pads, pad_stride_ * workers);
    columns_ = at_least(scratch.columns, columns_stride_ * workers);
    running_ = at_least(scratch.running, running_stride_ * workers);
  }

  TileBuffers of(int worker) const {
    const auto w = static_cast<std::size_t>(worker);
    return {pads_ + pad_stride_ * w, columns_ + columns_stride_ * w, running_ + running_stride_ * w};
  }

 private:
  std::size_t pad_stride_;
  std::size_t columns_stride_;
  std::size_t running_stride_;
  float* pads_;
  std::int32_t* columns_;
  std::int32_t* running_;
};

// Where a tile's results go: the 8-bit output, or (when num is set) the two sums.
struct Outputs {
  ImageU8 dst;
  ImageF32 num;
  ImageF32 den;
};

// Denoises tile `tile` of dst with one worker's buffers.
void run_tile(ConstImageU8 src, const Outputs& outputs, const Plan& plan, const float* lane_bias, int tile,
              const TileBuffers& buffers) {
  const int k = plan.k;
  const int s = plan.s;
  const int tx = tile % plan.tiles_x;
  const int ty = tile / plan.tiles_x;
  const int x0 = part_start(src.width, tx, plan.tiles_x);
  const int x1 = part_start(src.width, tx + 1, plan.tiles_x);
  const int y0 = part_start(src.height, ty, plan.tiles_y);
  const int y1 = part_start(src.height, ty + 1, plan.tiles_y);
  const int width = x1 - x0;
  const int height = y1 - y0;

  // The pad holds E over rows y0-k-s .. y1+k+s-1 and columns x0-k-s .. x1+k-s+lanes_per_dy-1:
  // the last vector of a row of offsets reads the partners of its padding lanes too.
  const int pad_width = width + 2 * k + plan.lanes_per_dy;
  const int pad_height = height + 2 * k + 2 * s;
  for (int py = 0; py < pad_height; ++py) {
    const std::uint8_t* in = src.row(reflect101(y0 - k - s + py, src.height));
    float* out = buffers.pad + static_cast<std::ptrdiff_t>(py) * pad_width;
    for (int px = 0; px < pad_width; ++px) out[px] = in[reflect101(x0 - k - s + px, src.width)];
  }

  TileArgs args{};
  args.pad = buffers.pad;
  args.pad_pitch = pad_width;
  args.width = width;
  args.height = height;
  args.k = k;
  args.s = s;
  args.lanes_per_dy = plan.lanes_per_dy;
  args.exponent_scale = plan.exponent_scale;
  args.lane_bias = lane_bias;
  args.columns = buffers.columns;
  args.running = buffers.running;
  if (outputs.num.data != nullptr) {
    args.sum_num = outputs.num.row(y0) + x0;
    args.sum_den = outputs.den.row(y0) + x0;
    args.sum_pitch = outputs.num.pitch / static_cast<std::ptrdiff_t>(sizeof(float));
  } else {
    args.out = outputs.dst.row(y0) + x0;
    args.out_pitch = outputs.dst.pitch;
  }
  plan.kernel.run(args);
}

void check(ConstImageU8 src, int dst_width, int dst_height, const ops::NlmeansParams& p) {
  if (src.width != dst_width || src.height != dst_height)
    throw std::invalid_argument("nlmeans: source and destination sizes differ");
  if (!(p.h > 0.0) || !std::isfinite(p.h)) throw std::invalid_argument("nlmeans: h must be > 0");
  if (p.patch < 1 || p.patch % 2 == 0)
    throw std::invalid_argument("nlmeans: patch must be odd and >= 1, got " + std::to_string(p.patch));
  if (p.search < 1 || p.search % 2 == 0)
    throw std::invalid_argument("nlmeans: search must be odd and >= 1, got " + std::to_string(p.search));
}

// The kernel for this machine and the tiles: as wide as the column-sum budget allows, then
// cut in height until every worker has several tiles to balance the load; taller tiles spend
// less on their first row.
Plan make_plan(ConstImageU8 src, const ops::NlmeansParams& params) {
  Plan plan{};
  plan.k = params.patch / 2;
  plan.s = params.search / 2;
  plan.kernel = pick_kernel(plan.s);
  plan.lanes_per_dy = (2 * plan.s + 1 + plan.kernel.lanes - 1) / plan.kernel.lanes * plan.kernel.lanes;
  plan.offsets = (2 * plan.s + 1) * plan.lanes_per_dy;
  const double patch_area = static_cast<double>(params.patch) * params.patch;
  // Weights are computed as powers of 2. A tiny h saturates to the largest float scale, which
  // still gives weight 1 to a zero SSD and the negligible 2^-126 to any other.
  const double scale = -1.4426950408889634 / (patch_area * params.h * params.h);
  plan.exponent_scale = static_cast<float>(std::max(scale, -static_cast<double>(std::numeric_limits<float>::max())));

  const int budget_width =
      static_cast<int>(kColumnBudgetBytes / (sizeof(std::int32_t) * plan.offsets)) - 2 * plan.k;
  const int tile_width = std::clamp(budget_width, 16, std::max(16, src.width));
  plan.tiles_x = (src.width + tile_width - 1) / tile_width;
  const int wanted_tiles = worker_count() * 4;
  plan.tiles_y = std::clamp((wanted_tiles + plan.tiles_x - 1) / plan.tiles_x, 1, std::max(1, src.height / 16));
  return plan;
}

// The padding lanes' exponents go far below -126, so their weight is the negligible 2^-126.
const float* make_lane_bias(std::vector<float>& buffer, const Plan& plan) {
  float* bias = at_least(buffer, static_cast<std::size_t>(plan.lanes_per_dy));
  std::fill_n(bias, plan.lanes_per_dy, -1000.0f);
  std::fill_n(bias, 2 * plan.s + 1, 0.0f);
  return bias;
}

}  // namespace

int reflect101(int i, int n) {
  if (n <= 1) return 0;
  const long long period = 2LL * (n - 1);
  long long m = static_cast<long long>(i) % period;
  if (m < 0) m += period;
  return static_cast<int>(m < n ? m : period - m);
}

namespace {

void denoise(ConstImageU8 src, const Outputs& outputs, const ops::NlmeansParams& params, NlmeansScratch& scratch) {
  if (params.patch > kMaxPatch)
    throw std::invalid_argument("nlmeans: patch above the supported " + std::to_string(kMaxPatch));
  if (params.search > kMaxSearch)
    throw std::invalid_argument("nlmeans: search above the supported " + std::to_string(kMaxSearch));
  if (src.empty()) return;

  const Plan plan = make_plan(src, params);
  const float* lane_bias = make_lane_bias(scratch.lane_bias, plan);
  const WorkerBuffers buffers(scratch, plan, src);
  parallel_rows_on_workers(plan.tiles_x * plan.tiles_y, [&](int worker, int begin, int end) {
    const TileBuffers mine = buffers.of(worker);
    for (int tile = begin; tile < end; ++tile) run_tile(src, outputs, plan, lane_bias, tile, mine);
  });
}

}  // namespace

void nlmeans(ConstImageU8 src, ImageU8 dst, const ops::NlmeansParams& params, NlmeansScratch& scratch) {
  check(src, dst.width, dst.height, params);
  denoise(src, {dst, {}, {}}, params, scratch);
}

void nlmeans_sums(ConstImageU8 src, ImageF32 num, ImageF32 den, const ops::NlmeansParams& params,
                  NlmeansScratch& scratch) {
  check(src, num.width, num.height, params);
  if (den.width != num.width || den.height != num.height)
    throw std::invalid_argument("nlmeans: the weight sums differ in size from the value sums");
  denoise(src, {{}, num, den}, params, scratch);
}

void nlmeans(ConstImageU8 src, ImageU8 dst, const ops::NlmeansParams& params) {
  // One per calling thread: a caller that denoises frame after frame without a scratch of its
  // own (tests, the CUDA twin's checks) still allocates only on its first frame.
  thread_local NlmeansScratch scratch;
  nlmeans(src, dst, params, scratch);
}

void nlmeans_exact(ConstImageU8 src, ImageF32 dst, const ops::NlmeansParams& params) {
  check(src, dst.width, dst.height, params);
  if (src.empty()) return;
  const int k = params.patch / 2;
  const int s = params.search / 2;
  const double norm = static_cast<double>(params.patch) * params.patch * params.h * params.h;
  // E over every coordinate any patch of any offset touches, so the loops below need no
  // reflection (which would dominate the cost).
  const int margin = k + s;
  const int ew = src.width + 2 * margin;
  const int eh = src.height + 2 * margin;
  std::vector<double> extended(static_cast<std::size_t>(ew) * static_cast<std::size_t>(eh));
  for (int y = 0; y < eh; ++y)
    for (int x = 0; x < ew; ++x)
      extended[static_cast<std::size_t>(y) * ew + x] =
          src(reflect101(x - margin, src.width), reflect101(y - margin, src.height));
  auto e = [&](int x, int y) {
    return extended[static_cast<std::size_t>(y + margin) * ew + static_cast<std::size_t>(x + margin)];
  };
  parallel_rows(src.height, [&](int begin, int end) {
    for (int y = begin; y < end; ++y)
      for (int x = 0; x < src.width; ++x) {
        double num = 0.0;
        double den = 0.0;
        for (int dy = -s; dy <= s; ++dy)
          for (int dx = -s; dx <= s; ++dx) {
            double ssd = 0.0;
            for (int ky = -k; ky <= k; ++ky)
              for (int kx = -k; kx <= k; ++kx) {
                const double d = e(x + kx, y + ky) - e(x + dx + kx, y + dy + ky);
                ssd += d * d;
              }
            // An identical patch has weight 1 even where h * h underflows to 0.
            const double w = ssd == 0.0 ? 1.0 : std::exp(-ssd / norm);
            num += w * e(x + dx, y + dy);
            den += w;
          }
        dst(x, y) = static_cast<float>(num / den);
      }
  });
}

}  // namespace fp::cpu
