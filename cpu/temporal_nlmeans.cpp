#include "cpu/temporal_nlmeans.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/exp2_polynomial.hpp"
#include "cpu/nlmeans.hpp"
#include "cpu/parallel.hpp"

namespace fp::cpu {
namespace {

// How it is evaluated: block by block (the motion blocks), and within a block offset by
// offset. For one offset the squared differences over the block and its patch margin are
// summed into an integral image, which gives every pixel's patch SSD in four reads: exact
// integers, whatever the patch, so the weights are the definition's.

// Pixel (x, y) of the frame extended by reflect-101.
std::uint8_t extended(ConstImageU8 image, int x, int y) {
  if (static_cast<unsigned>(x) >= static_cast<unsigned>(image.width)) x = reflect101(x, image.width);
  if (static_cast<unsigned>(y) >= static_cast<unsigned>(image.height)) y = reflect101(y, image.height);
  return image(x, y);
}

// One frame searched for a block: where and how far.
struct Window {
  ConstImageU8 frame;
  int vx = 0;      // the block's vector into the frame
  int vy = 0;
  int radius = 0;  // offsets d in [-radius, radius]^2 around it
};

// A block's running sums and the buffers one offset needs, kept per thread.
struct BlockScratch {
  std::vector<double> num;
  std::vector<double> den;
  std::vector<std::int64_t> integral;  // (width + 2k + 1) x (height + 2k + 1)
};

// Adds every offset of `window` to the sums of the block [x0, x1) x [y0, y1).
void add_window(ConstImageU8 current, const Window& window, int k, double norm, int x0, int x1, int y0, int y1,
                BlockScratch& scratch) {
  const int bw = x1 - x0;
  const int bh = y1 - y0;
  const int iw = bw + 2 * k + 1;  // integral columns: one leading zero column
  const int ih = bh + 2 * k + 1;
  scratch.integral.assign(static_cast<std::size_t>(iw) * static_cast<std::size_t>(ih), 0);
  auto integral = [&](int x, int y) -> std::int64_t& { return scratch.integral[static_cast<std::size_t>(y) * iw + x]; };
  for (int dy = -window.radius; dy <= window.radius; ++dy)
    for (int dx = -window.radius; dx <= window.radius; ++dx) {
      const int sx = window.vx + dx;  // the partner of pixel (x, y) is (x + sx, y + sy)
      const int sy = window.vy + dy;
      for (int y = 0; y < bh + 2 * k; ++y) {
        std::int64_t row = 0;
        const int py = y0 - k + y;
        for (int x = 0; x < bw + 2 * k; ++x) {
          const int px = x0 - k + x;
          const int d = static_cast<int>(extended(current, px, py)) - static_cast<int>(extended(window.frame, px + sx, py + sy));
          row += d * d;
          integral(x + 1, y + 1) = integral(x + 1, y) + row;
        }
      }
      for (int y = 0; y < bh; ++y)
        for (int x = 0; x < bw; ++x) {
          const std::int64_t ssd = integral(x + 2 * k + 1, y + 2 * k + 1) - integral(x, y + 2 * k + 1) -
                                   integral(x + 2 * k + 1, y) + integral(x, y);
          const double w = ssd == 0 ? 1.0 : std::exp(-static_cast<double>(ssd) / norm);
          const std::size_t i = static_cast<std::size_t>(y) * bw + x;
          scratch.num[i] += w * extended(window.frame, x0 + x + sx, y0 + y + sy);
          scratch.den[i] += w;
        }
    }
}

void check_inputs(ConstImageU8 current, std::span<const TemporalReference> previous, const ops::TemporalNlmeansParams& p,
                  int dst_width, int dst_height) {
  check_temporal_nlmeans_params(p);
  if (current.width != dst_width || current.height != dst_height)
    throw std::invalid_argument("temporal_nlmeans: source and destination sizes differ");
  if (previous.size() > static_cast<std::size_t>(p.frames))
    throw std::invalid_argument("temporal_nlmeans: more previous frames than `frames`");
  const int blocks_x = ops::motion_blocks(current.width);
  const int blocks_y = ops::motion_blocks(current.height);
  for (const auto& ref : previous) {
    if (ref.frame.width != current.width || ref.frame.height != current.height)
      throw std::invalid_argument("temporal_nlmeans: a previous frame differs in size");
    if (ref.motion == nullptr || ref.motion->blocks_x != blocks_x || ref.motion->blocks_y != blocks_y ||
        ref.motion->vectors.size() != static_cast<std::size_t>(blocks_x) * static_cast<std::size_t>(blocks_y))
      throw std::invalid_argument("temporal_nlmeans: a previous frame's motion field does not fit the frame");
  }
}

template <class Store>
void evaluate(ConstImageU8 current, std::span<const TemporalReference> previous, const ops::TemporalNlmeansParams& p,
              int dst_width, int dst_height, Store store) {
  check_inputs(current, previous, p, dst_width, dst_height);
  if (current.empty()) return;
  const int blocks_x = ops::motion_blocks(current.width);
  const int blocks_y = ops::motion_blocks(current.height);
  const int k = p.spatial.patch / 2;
  const double norm = static_cast<double>(p.spatial.patch) * p.spatial.patch * p.spatial.h * p.spatial.h;
  parallel_rows(blocks_y, [&](int begin, int end) {
    thread_local BlockScratch scratch;
    for (int by = begin; by < end; ++by)
      for (int bx = 0; bx < blocks_x; ++bx) {
        const int x0 = bx * ops::kMotionBlock;
        const int y0 = by * ops::kMotionBlock;
        const int x1 = std::min(x0 + ops::kMotionBlock, current.width);
        const int y1 = std::min(y0 + ops::kMotionBlock, current.height);
        const std::size_t pixels = static_cast<std::size_t>(x1 - x0) * static_cast<std::size_t>(y1 - y0);
        scratch.num.assign(pixels, 0.0);
        scratch.den.assign(pixels, 0.0);
        add_window(current, {current, 0, 0, p.spatial.search / 2}, k, norm, x0, x1, y0, y1, scratch);
        for (const auto& ref : previous) {
          const ops::MotionVector v = ref.motion->at(bx, by);
          add_window(current, {ref.frame, v.x, v.y, p.temporal_search / 2}, k, norm, x0, x1, y0, y1, scratch);
        }
        for (int y = y0; y < y1; ++y)
          for (int x = x0; x < x1; ++x) {
            const std::size_t i = static_cast<std::size_t>(y - y0) * (x1 - x0) + (x - x0);
            store(x, y, scratch.num[i] / scratch.den[i]);
          }
      }
  });
}

// The fast evaluation that the CPU backend runs (temporal_nlmeans, rounded): the current
// frame's window from nlmeans' vectorized kernel (nlmeans_sums), the previous frames' block by
// block in float, each offset in loops over whole rows that the compiler vectorizes: the
// squared differences, their sums down 2K+1 rows, then along 2K+1 columns, then the weights as
// 2^(SSD * scale) from a polynomial (cpu/nlmeans' too). Within float error of the definition.

// 2^u for u <= 0 (cpu/exp2_polynomial.hpp), u held at -126 and above, as cpu/nlmeans does.
inline float exp2_below_zero(float u) {
  u = std::max(u, -126.0f);
  const float shifted = u + kExp2Shift;
  std::int32_t bits;
  std::memcpy(&bits, &shifted, sizeof bits);
  bits <<= 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return exp2_fraction(u - (shifted - kExp2Shift)) * scale;
}

// Every worker's block buffers at their largest (a whole block, radii k and t), so that no
// block of any later call grows them: resize and assign within capacity do not allocate.
void reserve_block_scratch(TemporalNlmeansScratch& scratch, int k, int t) {
  const auto workers = static_cast<std::size_t>(worker_count());
  if (scratch.workers.size() < workers) scratch.workers.resize(workers);
  const auto block = static_cast<std::size_t>(ops::kMotionBlock);
  const std::size_t cw = block + 2 * static_cast<std::size_t>(k);
  const std::size_t ww = cw + 2 * static_cast<std::size_t>(t);
  for (TemporalBlockScratch& f : scratch.workers) {
    f.current.reserve(cw * cw);
    f.window.reserve(ww * ww);
    f.values.reserve(ww * ww);
    f.squares.reserve(cw * cw);
    f.columns.reserve(cw * block);
    f.ssd.reserve(block);
    f.num.reserve(block * block);
    f.den.reserve(block * block);
  }
}

// image(x0 + i, y0 + j), extended by reflect-101, into `out` (w x h).
void extend_into(ConstImageU8 image, int x0, int y0, int w, int h, std::vector<std::int32_t>& out) {
  out.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
  for (int j = 0; j < h; ++j) {
    const std::uint8_t* row = image.row(reflect101(y0 + j, image.height));
    std::int32_t* dst = out.data() + static_cast<std::size_t>(j) * w;
    const int x_first = x0 >= 0 && x0 + w <= image.width ? 0 : w;  // all inside: no reflection
    if (x_first == 0)
      for (int i = 0; i < w; ++i) dst[i] = row[x0 + i];
    else
      for (int i = 0; i < w; ++i) dst[i] = row[reflect101(x0 + i, image.width)];
  }
}

// Adds the previous frame's window (vector v, radius t) to the block's sums.
void add_window_fast(ConstImageU8 frame, int vx, int vy, int t, int k, float scale, int x0, int y0, int bw, int bh,
                     TemporalBlockScratch& f) {
  const int cw = bw + 2 * k;  // the block and its patch margin
  const int ch = bh + 2 * k;
  const int ww = cw + 2 * t;  // the window
  const int wh = ch + 2 * t;
  extend_into(frame, x0 - k - t + vx, y0 - k - t + vy, ww, wh, f.window);
  f.values.resize(f.window.size());
  for (std::size_t i = 0; i < f.window.size(); ++i) f.values[i] = static_cast<float>(f.window[i]);
  f.squares.resize(static_cast<std::size_t>(cw) * ch);
  f.columns.resize(static_cast<std::size_t>(cw) * bh);
  f.ssd.resize(static_cast<std::size_t>(bw));
  const int side = 2 * k + 1;
  for (int dy = -t; dy <= t; ++dy)
    for (int dx = -t; dx <= t; ++dx) {
      for (int j = 0; j < ch; ++j) {
        const std::int32_t* c = f.current.data() + static_cast<std::size_t>(j) * cw;
        const std::int32_t* w = f.window.data() + static_cast<std::size_t>(j + t + dy) * ww + (t + dx);
        std::int32_t* sq = f.squares.data() + static_cast<std::size_t>(j) * cw;
        for (int i = 0; i < cw; ++i) {
          const std::int32_t d = c[i] - w[i];
          sq[i] = d * d;
        }
      }
      for (int j = 0; j < bh; ++j) {
        std::int32_t* col = f.columns.data() + static_cast<std::size_t>(j) * cw;
        const std::int32_t* sq = f.squares.data() + static_cast<std::size_t>(j) * cw;
        for (int i = 0; i < cw; ++i) col[i] = sq[i];
        for (int r = 1; r < side; ++r)
          for (int i = 0; i < cw; ++i) col[i] += sq[static_cast<std::size_t>(r) * cw + i];
      }
      for (int j = 0; j < bh; ++j) {
        const std::int32_t* col = f.columns.data() + static_cast<std::size_t>(j) * cw;
        const float* value = f.values.data() + static_cast<std::size_t>(j + k + t + dy) * ww + (k + t + dx);
        float* num = f.num.data() + static_cast<std::size_t>(j) * bw;
        float* den = f.den.data() + static_cast<std::size_t>(j) * bw;
        std::int32_t* ssd = f.ssd.data();
        for (int i = 0; i < bw; ++i) ssd[i] = col[i];
        for (int r = 1; r < side; ++r)
          for (int i = 0; i < bw; ++i) ssd[i] += col[i + r];
        for (int i = 0; i < bw; ++i) {
          const float weight = exp2_below_zero(static_cast<float>(ssd[i]) * scale);
          num[i] += weight * value[i];
          den[i] += weight;
        }
      }
    }
}

}  // namespace

void check_temporal_nlmeans_params(const ops::TemporalNlmeansParams& p) {
  if (!(p.spatial.h > 0.0) || !std::isfinite(p.spatial.h))
    throw std::invalid_argument("temporal_nlmeans: h must be > 0 and finite");
  if (p.spatial.patch < 1 || p.spatial.patch % 2 == 0)
    throw std::invalid_argument("temporal_nlmeans: patch must be odd and >= 1, got " + std::to_string(p.spatial.patch));
  if (p.spatial.search < 1 || p.spatial.search % 2 == 0)
    throw std::invalid_argument("temporal_nlmeans: search must be odd and >= 1, got " + std::to_string(p.spatial.search));
  if (p.temporal_search < 1 || p.temporal_search % 2 == 0)
    throw std::invalid_argument("temporal_nlmeans: temporal_search must be odd and >= 1, got " +
                                std::to_string(p.temporal_search));
  if (p.frames < 0 || p.frames > ops::kMaxTemporalFrames)
    throw std::invalid_argument("temporal_nlmeans: frames must be in 0.." + std::to_string(ops::kMaxTemporalFrames) +
                                ", got " + std::to_string(p.frames));
}

void temporal_nlmeans_unrounded(ConstImageU8 current, std::span<const TemporalReference> previous,
                                const ops::TemporalNlmeansParams& params, ImageF32 dst) {
  evaluate(current, previous, params, dst.width, dst.height,
           [&](int x, int y, double mean) { dst(x, y) = static_cast<float>(mean); });
}

void temporal_nlmeans(ConstImageU8 current, std::span<const TemporalReference> previous,
                      const ops::TemporalNlmeansParams& params, ImageU8 dst, TemporalNlmeansScratch& scratch) {
  check_inputs(current, previous, params, dst.width, dst.height);
  if (current.empty()) return;
  const std::size_t pixels = static_cast<std::size_t>(current.width) * static_cast<std::size_t>(current.height);
  scratch.num.resize(pixels);
  scratch.den.resize(pixels);
  const ImageF32 num{scratch.num.data(), current.width, current.height, current.width * static_cast<std::ptrdiff_t>(sizeof(float))};
  const ImageF32 den{scratch.den.data(), current.width, current.height, current.width * static_cast<std::ptrdiff_t>(sizeof(float))};
  nlmeans_sums(current, num, den, params.spatial, scratch.spatial);
  const int k = params.spatial.patch / 2;
  const int t = params.temporal_search / 2;
  // -log2(e) / (|P| h^2), held at float's largest for a tiny h (a zero SSD still weighs 1).
  const double patch_area = static_cast<double>(params.spatial.patch) * params.spatial.patch;
  const float scale = static_cast<float>(std::max(-1.4426950408889634 / (patch_area * params.spatial.h * params.spatial.h),
                                                  -static_cast<double>(std::numeric_limits<float>::max())));
  const int blocks_x = ops::motion_blocks(current.width);
  reserve_block_scratch(scratch, k, t);
  parallel_rows_on_workers(ops::motion_blocks(current.height), [&](int worker, int begin, int end) {
    TemporalBlockScratch& f = scratch.workers[static_cast<std::size_t>(worker)];
    for (int by = begin; by < end; ++by)
      for (int bx = 0; bx < blocks_x; ++bx) {
        const int x0 = bx * ops::kMotionBlock;
        const int y0 = by * ops::kMotionBlock;
        const int bw = std::min(ops::kMotionBlock, current.width - x0);
        const int bh = std::min(ops::kMotionBlock, current.height - y0);
        f.num.assign(static_cast<std::size_t>(bw) * bh, 0.0f);
        f.den.assign(static_cast<std::size_t>(bw) * bh, 0.0f);
        if (!previous.empty()) extend_into(current, x0 - k, y0 - k, bw + 2 * k, bh + 2 * k, f.current);
        for (const auto& ref : previous) {
          const ops::MotionVector v = ref.motion->at(bx, by);
          add_window_fast(ref.frame, v.x, v.y, t, k, scale, x0, y0, bw, bh, f);
        }
        for (int y = 0; y < bh; ++y)
          for (int x = 0; x < bw; ++x) {
            const float n = num(x0 + x, y0 + y) + f.num[static_cast<std::size_t>(y) * bw + x];
            const float d = den(x0 + x, y0 + y) + f.den[static_cast<std::size_t>(y) * bw + x];
            dst(x0 + x, y0 + y) = static_cast<std::uint8_t>(std::clamp(std::floor(n / d + 0.5f), 0.0f, 255.0f));
          }
      }
  });
}

void temporal_nlmeans(ConstImageU8 current, std::span<const TemporalReference> previous,
                      const ops::TemporalNlmeansParams& params, ImageU8 dst) {
  thread_local TemporalNlmeansScratch scratch;
  temporal_nlmeans(current, previous, params, dst, scratch);
}

}  // namespace fp::cpu
