#include "tools/denoise_quality/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "cpu/parallel.hpp"

namespace fp::quality {

namespace {

constexpr int kWindow = 11;
constexpr int kRadius = kWindow / 2;

// The 11-tap Gaussian (sigma 1.5), normalized: the 2D window is its outer product.
std::array<float, kWindow> gaussian_taps() {
  std::array<float, kWindow> taps{};
  double sum = 0;
  for (int i = 0; i < kWindow; ++i) sum += std::exp(-((i - kRadius) * (i - kRadius)) / (2 * 1.5 * 1.5));
  for (int i = 0; i < kWindow; ++i)
    taps[i] = static_cast<float>(std::exp(-((i - kRadius) * (i - kRadius)) / (2 * 1.5 * 1.5)) / sum);
  return taps;
}

// The five local moments SSIM needs, x, y, x^2, y^2 and xy, as planes.
constexpr int kMoments = 5;
using Moments = std::array<std::vector<float>, kMoments>;

// One thread's buffers, kept from frame to frame: a frame's are megabytes, which freshly
// allocated cost more in page faults than the filtering does.
struct SsimScratch {
  Moments row;         // one source row's moments, w wide
  Moments horizontal;  // every row filtered horizontally, (w - 10) x h
  Moments vertical;    // one output row, (w - 10) wide
};

void resize(Moments& m, std::size_t n) {
  for (auto& plane : m) plane.resize(n);
}

}  // namespace

double psnr(ConstImageU8 clean, ConstImageU8 test) {
  std::uint64_t sum = 0;
  for (int y = 0; y < clean.height; ++y)
    for (int x = 0; x < clean.width; ++x) {
      const int d = int{clean(x, y)} - int{test(x, y)};
      sum += static_cast<std::uint64_t>(d * d);
    }
  if (sum == 0) return kPsnrCap;
  const double mse = static_cast<double>(sum) / (static_cast<double>(clean.width) * clean.height);
  return std::min(kPsnrCap, 10.0 * std::log10(255.0 * 255.0 / mse));
}

// Separable: each row's moments filtered horizontally, then each column vertically, keeping
// only the windows inside the frame; the loops run along rows, so the compiler vectorizes them.
double ssim(ConstImageU8 clean, ConstImageU8 test) {
  static const auto taps = gaussian_taps();
  thread_local SsimScratch scratch;
  const int w = clean.width;
  const int h = clean.height;
  const int ow = w - 2 * kRadius;
  const int oh = h - 2 * kRadius;
  resize(scratch.row, static_cast<std::size_t>(w));
  resize(scratch.horizontal, static_cast<std::size_t>(ow) * static_cast<std::size_t>(h));
  resize(scratch.vertical, static_cast<std::size_t>(ow));
  for (int y = 0; y < h; ++y) {
    auto& r = scratch.row;
    for (int x = 0; x < w; ++x) {
      const float a = clean(x, y);
      const float b = test(x, y);
      r[0][x] = a;
      r[1][x] = b;
      r[2][x] = a * a;
      r[3][x] = b * b;
      r[4][x] = a * b;
    }
    for (int k = 0; k < kMoments; ++k) {
      float* dst = scratch.horizontal[k].data() + static_cast<std::size_t>(y) * ow;
      const float* src = r[k].data();
      std::fill(dst, dst + ow, 0.0f);
      for (int t = 0; t < kWindow; ++t)
        for (int x = 0; x < ow; ++x) dst[x] += taps[t] * src[x + t];
    }
  }
  constexpr double c1 = (0.01 * 255) * (0.01 * 255);
  constexpr double c2 = (0.03 * 255) * (0.03 * 255);
  double sum = 0;
  for (int y = 0; y < oh; ++y) {
    for (int k = 0; k < kMoments; ++k) {
      float* dst = scratch.vertical[k].data();
      std::fill(dst, dst + ow, 0.0f);
      for (int t = 0; t < kWindow; ++t) {
        const float* src = scratch.horizontal[k].data() + static_cast<std::size_t>(y + t) * ow;
        for (int x = 0; x < ow; ++x) dst[x] += taps[t] * src[x];
      }
    }
    const auto& m = scratch.vertical;
    for (int x = 0; x < ow; ++x) {
      const double mx = m[0][x];
      const double my = m[1][x];
      const double vx = m[2][x] - mx * mx;
      const double vy = m[3][x] - my * my;
      const double cov = m[4][x] - mx * my;
      sum += ((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2));
    }
  }
  return sum / (static_cast<double>(ow) * oh);
}

double mean_abs_difference(ConstImageU8 a, ConstImageU8 b) {
  std::uint64_t sum = 0;
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x) sum += static_cast<std::uint64_t>(std::abs(int{a(x, y)} - int{b(x, y)}));
  return static_cast<double>(sum) / (static_cast<double>(a.width) * a.height);
}

void check_range(const GrayVideo& clean, const GrayVideo& test, FrameRange range) {
  if (clean.width != test.width || clean.height != test.height || clean.frames != test.frames)
    throw UsageError(fmt::format("the clean video has {} frames of {}x{}, the test video {} of {}x{}", clean.frames,
                                 clean.width, clean.height, test.frames, test.width, test.height));
  if (range.from < 1 || range.to < range.from || range.to >= clean.frames)
    throw UsageError(fmt::format("frames {}..{}: need 1 <= from <= to < {} (flicker compares each frame with the one "
                                 "before)", range.from, range.to, clean.frames));
  if (clean.width < kWindow || clean.height < kWindow)
    throw UsageError(fmt::format("SSIM needs frames of at least {0}x{0}", kWindow));
}

Score score(const GrayVideo& clean, const GrayVideo& test, FrameRange range) {
  check_range(clean, test, range);
  const int count = range.to - range.from + 1;
  std::vector<Score> frames(static_cast<std::size_t>(count));
  cpu::parallel_rows(count, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const int n = range.from + i;
      Score& s = frames[static_cast<std::size_t>(i)];
      s.psnr = psnr(clean.frame(n), test.frame(n));
      s.ssim = ssim(clean.frame(n), test.frame(n));
      s.flicker = mean_abs_difference(test.frame(n), test.frame(n - 1));
      s.clean_flicker = mean_abs_difference(clean.frame(n), clean.frame(n - 1));
    }
  });
  Score mean;
  for (const Score& s : frames) {
    mean.psnr += s.psnr;
    mean.ssim += s.ssim;
    mean.flicker += s.flicker;
    mean.clean_flicker += s.clean_flicker;
  }
  mean.psnr /= count;
  mean.ssim /= count;
  mean.flicker /= count;
  mean.clean_flicker /= count;
  return mean;
}

}  // namespace fp::quality
