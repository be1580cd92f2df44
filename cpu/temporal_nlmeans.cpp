#include "cpu/temporal_nlmeans.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

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

template <class Store>
void evaluate(ConstImageU8 current, std::span<const TemporalReference> previous, const ops::TemporalNlmeansParams& p,
              int dst_width, int dst_height, Store store) {
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
  if (current.empty()) return;
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
                      const ops::TemporalNlmeansParams& params, ImageU8 dst) {
  evaluate(current, previous, params, dst.width, dst.height, [&](int x, int y, double mean) {
    dst(x, y) = static_cast<std::uint8_t>(std::clamp(std::floor(mean + 0.5), 0.0, 255.0));
  });
}

}  // namespace fp::cpu
