// cuda::nlmeans against the definition. The unrounded float result must lie within the
// error that float arithmetic can make (float_error_bound: a few hundredths of a gray level)
// of the double-precision reference (cpu::nlmeans_exact on small frames; on large ones, the
// same definition evaluated here at a fixed set of pixels: every border row and column band,
// tile seams and random pixels), at the borders as everywhere else; the 8-bit results (this
// kernel's and cpu::nlmeans') are the exact value rounded, or its neighbour only where the
// exact value is within that error of the .5 between them. Frames are noisy (smooth content plus Gaussian noise)
// unless a test needs otherwise; parameters cover patch 1..15, search 1..51, h from tiny
// (only identical patches count) to huge (the plain mean of the search window).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cpu/nlmeans.hpp"
#include "cpu/parallel.hpp"
#include "cuda/device_image.hpp"
#include "cuda/nlmeans.hpp"
#include "cuda/stream.hpp"
#include "tests/cuda/cuda_test_util.hpp"
#include "tests/cuda/gpu_test.hpp"

namespace fp::cuda {
namespace {

// FRAMEPIPE_SMALL_SIZES=1 (the sanitizer runs) replaces the large frames with small ones and
// trims the parameter sweep: the kernel's indexing and synchronization do not depend on size.
using fp::test::small_sizes;

// A full HD frame, or a frame of several tiles in each direction in the small mode.
std::pair<int, int> large(int width, int height) {
  return small_sizes() ? std::pair{std::min(width, 200), std::min(height, 120)} : std::pair{width, height};
}

// Reflect-101 by walking, independent of cpu::reflect101 and of the kernel's.
int walk_reflect(int i, int n) {
  if (n == 1) return 0;
  while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
  return i;
}

// Smooth content (a ramp, a disc, bars) plus Gaussian noise of the given sigma, clamped.
HostImageU8 noisy_frame(int width, int height, std::uint32_t seed, int pitch_extra = 0, double sigma = 15.0) {
  HostImageU8 image(width, height, width + pitch_extra);
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  const double cx = width * 0.6;
  const double cy = height * 0.4;
  const double radius = 0.3 * std::min(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double v = 40.0 + 120.0 * (x + y) / (width + height + 1.0);
      if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < radius * radius) v += 70.0;
      if ((x / 9) % 4 == 0) v -= 30.0;
      v += noise(rng);
      image(x, y) = static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L));
    }
  return image;
}

std::string describe(int width, int height, const ops::NlmeansParams& p) {
  std::ostringstream text;
  text << width << "x" << height << " patch " << p.patch << " search " << p.search << " h " << p.h;
  return text.str();
}

ops::NlmeansParams to_cpu(const ops::NlmeansParams& p) {
  ops::NlmeansParams c;
  c.h = p.h;
  c.patch = p.patch;
  c.search = p.search;
  return c;
}

HostImageF32 gpu_unrounded(const HostImageU8& src, const ops::NlmeansParams& p) {
  const auto device_src = test::to_device(src);
  DeviceImage<float> device_dst(src.width(), src.height());
  nlmeans_unrounded(device_src.view(), device_dst.view(), p, nullptr);
  HostImageF32 out(src.width(), src.height());
  download(ConstImageF32(device_dst.view()), out.view(), nullptr);
  FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return out;
}

HostImageU8 gpu_rounded(const HostImageU8& src, const ops::NlmeansParams& p) {
  const auto device_src = test::to_device(src);
  DeviceImage<std::uint8_t> device_dst(src.width(), src.height());
  nlmeans(device_src.view(), device_dst.view(), p, nullptr);
  return test::to_host(device_dst);
}

// The definition at one pixel, in double precision (an identical patch has weight 1 even
// where the exponent underflows, as in cpu::nlmeans_exact).
double exact_at(const HostImageU8& src, int x, int y, const ops::NlmeansParams& p) {
  const int k = p.patch / 2;
  const int s = p.search / 2;
  const int r = k + s;
  std::vector<int> xs(2 * r + 1);
  std::vector<int> ys(2 * r + 1);
  for (int i = 0; i <= 2 * r; ++i) {
    xs[i] = walk_reflect(x - r + i, src.width());
    ys[i] = walk_reflect(y - r + i, src.height());
  }
  // E at (x + dx, y + dy).
  auto e = [&](int dx, int dy) { return static_cast<double>(src(xs[dx + r], ys[dy + r])); };
  const double norm = static_cast<double>(p.patch) * p.patch * p.h * p.h;
  double num = 0.0;
  double den = 0.0;
  for (int qy = -s; qy <= s; ++qy)
    for (int qx = -s; qx <= s; ++qx) {
      double ssd = 0.0;
      for (int ky = -k; ky <= k; ++ky)
        for (int kx = -k; kx <= k; ++kx) {
          const double d = e(kx, ky) - e(qx + kx, qy + ky);
          ssd += d * d;
        }
      const double w = ssd == 0.0 ? 1.0 : std::exp(-ssd / norm);
      num += w * e(qx, qy);
      den += w;
    }
  return num / den;
}

struct Pixel {
  int x;
  int y;
};

// At most about `budget` pixels: bands of rows and columns at every border and through the
// middle, every pixel around the kernel's tile seams in a few rows, and random pixels.
std::vector<Pixel> sample_pixels(int width, int height, std::size_t budget, std::uint32_t seed) {
  std::vector<Pixel> pixels;
  const std::vector<int> rows = {0, 1, 2, 3, height / 2, height - 4, height - 3, height - 2, height - 1};
  const std::vector<int> columns = {0, 1, 2, 3, width / 2, width - 4, width - 3, width - 2, width - 1};
  const int x_step = std::max(1, static_cast<int>(width * rows.size() / (budget / 3)));
  const int y_step = std::max(1, static_cast<int>(height * columns.size() / (budget / 3)));
  for (const int y : rows)
    if (y >= 0 && y < height)
      for (int x = 0; x < width; x += x_step) pixels.push_back({x, y});
  for (const int x : columns)
    if (x >= 0 && x < width)
      for (int y = 0; y < height; y += y_step) pixels.push_back({x, y});
  // Tile seams: 32 columns wide and 32 or 64 rows high, in every configuration.
  for (const int y : {31, 32, 33, 63, 64, 65})
    for (int x = 26; x < std::min(width, 104); ++x)
      if (y < height) pixels.push_back({x, y});
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> any_x(0, width - 1);
  std::uniform_int_distribution<int> any_y(0, height - 1);
  while (pixels.size() < budget) pixels.push_back({any_x(rng), any_y(rng)});
  return pixels;
}

// How far a float nlmeans (this kernel's unrounded result, or cpu::nlmeans' before its
// rounding) may be from the exact weighted mean m = sum w_i I_i / sum w_i, in gray levels.
// u = 2^-24 is float's unit roundoff, n = search^2 the number of terms, e = 2.718...
//  - Weights. The exact weight is w = 2^x with x = -c * SSD, c = log2(e) / (patch^2 h^2).
//    The SSD is an exact integer (below 2^24, so exact in float too); c is rounded to float
//    (1 rounding) and the product (an fma with the exact magic-bias term on the GPU, a
//    multiply on the CPU) once more: x' = x (1 + d), |d| <= 2.01 u. Then
//    |2^x' - 2^x| <= 2^x ln2 |x| 2.01 u <= 2.01 u / e, since |x| 2^-|x| <= 1 / (e ln2). The
//    exp2 itself (ex2.approx on the GPU, about 2 ulp: the CUDA guide's bound for __expf,
//    which is ex2.approx of a scaled argument, less the scaling's part; a degree-6
//    polynomial on the CPU, about 2e-7) adds a relative error below 2^-20, four times that
//    margin. Weights under 2^-126 flush to 0
//    (GPU) or stay 2^-126 (CPU): negligible next to the centre weight.
//  - Mean. The centre offset has SSD 0 and weight exactly 1 in both, so sum w >= 1, and
//    |I_i - m| <= 255. Changing each weight by dw_i moves the mean by
//    sum dw_i (I_i - m) / sum w' <= 255 (n 2.01 u / e + 2^-20).
//  - Sums. num and den are sums of n non-negative float terms (each product rounded once or
//    fused): in any order each is within a relative (n + 1) u of its exact value; the
//    division (IEEE, no fast math) and the float result add 2 u: at most 255 (2 n + 4) u.
// In all: 255 * 1.01 * ((0.74 n + 2 n + 4) u + 2^-20), plus 2^-16 for the reference itself
// where cpu::nlmeans_exact stores it as a float: 0.019 for a 21x21 search, 0.11 for 51x51.
// A wrong weight, offset or reflected pixel moves a result by far more.
double float_error_bound(const ops::NlmeansParams& p) {
  const double n = static_cast<double>(p.search) * p.search;
  const double u = std::ldexp(1.0, -24);
  return 255.0 * 1.01 * ((2.01 / std::exp(1.0) * n + 2 * n + 4) * u + std::ldexp(1.0, -20)) + std::ldexp(1.0, -16);
}

// The rounding of a float result to 8 bits (floor(v + 0.5), the addition itself rounded in
// float at most 2^-16 away for values up to 256) adds to the bound near a .5.
double rounded_error_bound(const ops::NlmeansParams& p) { return float_error_bound(p) + std::ldexp(1.0, -16); }

// Whether an 8-bit result is the exact value rounded, or its neighbour where the exact value
// lies within `bound` of the .5 between them.
bool is_rounded_exact(int got, double exact, double bound) {
  if (got == static_cast<int>(std::floor(exact + 0.5))) return true;
  const double below = std::floor(exact);
  return std::fabs(exact - (below + 0.5)) <= bound && (got == below || got == below + 1);
}

// Within `reach` (patch and search radius) of an edge: where reflection decides the result.
bool near_border(int x, int y, int width, int height, int reach) {
  return x < reach || y < reach || x >= width - reach || y >= height - reach;
}

struct ExactPixel {
  int x;
  int y;
  double value;
};

// The exact result at every pixel where the reference is affordable, otherwise at the
// sampled pixels (every border band among them).
std::vector<ExactPixel> exact_values(const HostImageU8& src, const ops::NlmeansParams& p) {
  const double per_pixel = static_cast<double>(p.search) * p.search * p.patch * p.patch;
  const double pixels = static_cast<double>(src.width()) * src.height();
  std::vector<ExactPixel> values;
  if (pixels * per_pixel <= 4e8) {
    HostImageF32 want(src.width(), src.height());
    cpu::nlmeans_exact(src.view(), want.view(), to_cpu(p));
    for (int y = 0; y < src.height(); ++y)
      for (int x = 0; x < src.width(); ++x) values.push_back({x, y, want(x, y)});
    return values;
  }
  const auto budget = static_cast<std::size_t>(std::clamp(3e8 / per_pixel, 300.0, 12000.0));
  const std::vector<Pixel> sample = sample_pixels(src.width(), src.height(), budget, 7);
  values.resize(sample.size());
  cpu::parallel_rows(static_cast<int>(sample.size()), [&](int begin, int end) {
    for (int i = begin; i < end; ++i) values[i] = {sample[i].x, sample[i].y, exact_at(src, sample[i].x, sample[i].y, p)};
  });
  return values;
}

std::string at_pixel(int x, int y, double got, double exact) {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + "): got " + std::to_string(got) + ", exact " +
         std::to_string(exact);
}

// The unrounded result within float_error_bound of the exact one, over the frame and, said
// apart, over the border bands where reflection decides; prints the largest errors.
void expect_unrounded_matches_exact(const HostImageU8& src, const ops::NlmeansParams& p) {
  const HostImageF32 got = gpu_unrounded(src, p);
  const int reach = p.patch / 2 + p.search / 2;
  double worst = 0.0;
  double worst_border = 0.0;
  std::string where;
  std::string where_border;
  for (const ExactPixel& e : exact_values(src, p)) {
    const double error = std::fabs(static_cast<double>(got(e.x, e.y)) - e.value);
    if (error > worst) {
      worst = error;
      where = at_pixel(e.x, e.y, got(e.x, e.y), e.value);
    }
    if (near_border(e.x, e.y, src.width(), src.height(), reach) && error > worst_border) {
      worst_border = error;
      where_border = at_pixel(e.x, e.y, got(e.x, e.y), e.value);
    }
  }
  const double bound = float_error_bound(p);
  std::printf("[ nlmeans  ] %-40s max |gpu - exact| = %.2e (border %.2e), bound %.2e\n",
              describe(src.width(), src.height(), p).c_str(), worst, worst_border, bound);
  EXPECT_LE(worst_border, bound) << describe(src.width(), src.height(), p) << " worst at the border at " << where_border;
  EXPECT_LE(worst, bound) << describe(src.width(), src.height(), p) << " worst at " << where;
}

// The 8-bit results of the kernel and of cpu::nlmeans are the exact value rounded, or its
// neighbour only near a .5 (checked against the exact value wherever it is computed); and
// wherever the two differ (every pixel), by 1, with the kernel's unrounded value within twice
// the bound of the .5 between them (each is within the bound of the exact value).
void expect_rounded_matches_cpu(const HostImageU8& src, const ops::NlmeansParams& p) {
  const HostImageU8 got = gpu_rounded(src, p);
  const HostImageF32 unrounded = gpu_unrounded(src, p);
  HostImageU8 want(src.width(), src.height());
  cpu::nlmeans(src.view(), want.view(), to_cpu(p));
  const double bound = rounded_error_bound(p);
  long gpu_wrong = 0;
  long cpu_wrong = 0;
  std::string where;
  for (const ExactPixel& e : exact_values(src, p)) {
    if (!is_rounded_exact(got(e.x, e.y), e.value, bound) && gpu_wrong++ == 0) where = "gpu " + at_pixel(e.x, e.y, got(e.x, e.y), e.value);
    if (!is_rounded_exact(want(e.x, e.y), e.value, bound) && cpu_wrong++ == 0) where += " cpu " + at_pixel(e.x, e.y, want(e.x, e.y), e.value);
  }
  EXPECT_EQ(gpu_wrong, 0) << describe(src.width(), src.height(), p) << ": first at " << where;
  EXPECT_EQ(cpu_wrong, 0) << describe(src.width(), src.height(), p) << ": first at " << where;
  long unexplained = 0;
  std::string first;
  for (int y = 0; y < src.height(); ++y)
    for (int x = 0; x < src.width(); ++x) {
      if (got(x, y) == want(x, y)) continue;
      const double boundary = std::min(got(x, y), want(x, y)) + 0.5;
      if (std::abs(got(x, y) - want(x, y)) == 1 && std::fabs(unrounded(x, y) - boundary) <= 2 * bound) continue;
      if (unexplained++ == 0)
        first = "(" + std::to_string(x) + ", " + std::to_string(y) + "): gpu " + std::to_string(got(x, y)) + " (" +
                std::to_string(unrounded(x, y)) + "), cpu " + std::to_string(want(x, y));
    }
  EXPECT_EQ(unexplained, 0) << describe(src.width(), src.height(), p) << ": gpu and cpu differ away from a .5, first at "
                            << first;
}

TEST(NlmeansCuda, ParameterLimits) {
  // Pure argument checks: no device needed.
  EXPECT_NO_THROW(check_nlmeans_params({10, 7, 21}));
  EXPECT_NO_THROW(check_nlmeans_params({1e-30, 1, 1}));
  EXPECT_NO_THROW(check_nlmeans_params({1e30, kNlmeansMaxPatch, kNlmeansMaxSearch}));
  for (const ops::NlmeansParams p :
       {ops::NlmeansParams{0, 7, 21}, ops::NlmeansParams{-1, 7, 21}, ops::NlmeansParams{NAN, 7, 21}, ops::NlmeansParams{INFINITY, 7, 21},
        ops::NlmeansParams{10, 6, 21}, ops::NlmeansParams{10, 0, 21}, ops::NlmeansParams{10, -1, 21},
        ops::NlmeansParams{10, kNlmeansMaxPatch + 2, 21}, ops::NlmeansParams{10, 7, 20}, ops::NlmeansParams{10, 7, 0},
        ops::NlmeansParams{10, 7, -3}, ops::NlmeansParams{10, 7, kNlmeansMaxSearch + 2}})
    EXPECT_THROW(check_nlmeans_params(p), std::invalid_argument) << describe(0, 0, p);
}

TEST(NlmeansCuda, UnroundedMatchesExactOnTestSizes) {
  FP_REQUIRE_GPU();
  std::uint32_t seed = 1;
  for (const auto& size : test::kernel_test_sizes())
    expect_unrounded_matches_exact(noisy_frame(size.width, size.height, seed++, size.pitch_extra), {10, 7, 21});
}

TEST(NlmeansCuda, RoundedMatchesCpuOnTestSizes) {
  FP_REQUIRE_GPU();
  std::uint32_t seed = 100;
  for (const auto& size : test::kernel_test_sizes())
    expect_rounded_matches_cpu(noisy_frame(size.width, size.height, seed++, size.pitch_extra), {10, 7, 21});
}

TEST(NlmeansCuda, ParameterSets) {
  FP_REQUIRE_GPU();
  // Every patch side the kernel is compiled for, each with a search that takes its wide
  // tuning and one that takes its narrow one (cuda/nlmeans.cu, launch_for: e.g. patch 7 with
  // 21, 31 or 51 against 11 or 9); searches from 1 to 51 (51 with patch 7: the largest tile
  // of shifted copies), weak to strong h; sizes not multiples of the tile, one wider than
  // several tiles.
  const std::vector<ops::NlmeansParams> sets = {
      {10, 7, 21}, {5, 3, 5},   {10, 5, 11}, {30, 9, 31},  {5, 7, 31},   {30, 3, 21},  {10, 9, 5},  {5, 5, 21},
      {30, 7, 11}, {10, 1, 1},  {10, 1, 3},  {20, 1, 21},  {10, 3, 1},   {12, 11, 7},  {15, 13, 9}, {40, 15, 5},
      {25, 15, 3}, {10, 3, 51}, {8, 5, 41},  {30, 11, 13}, {2, 3, 17},   {0.5, 3, 7},  {1000, 7, 9}, {1e-30, 7, 21},
      {10, 5, 15}, {10, 3, 11}, {10, 7, 51}, {10, 11, 5},  {10, 13, 21}, {10, 15, 21}};
  std::uint32_t seed = 200;
  for (const ops::NlmeansParams& p : sets) {
    expect_unrounded_matches_exact(noisy_frame(45, 37, seed++, 3), p);
    if (!small_sizes()) expect_unrounded_matches_exact(noisy_frame(97, 70, seed++), p);
  }
  if (small_sizes()) return;
  for (const ops::NlmeansParams& p : {ops::NlmeansParams{5, 3, 5}, ops::NlmeansParams{30, 9, 31}, ops::NlmeansParams{10, 15, 51}})
    expect_rounded_matches_cpu(noisy_frame(301, 150, seed++, 1), p);
  expect_unrounded_matches_exact(noisy_frame(1920, 1080, seed++), {30, 9, 31});
  expect_unrounded_matches_exact(noisy_frame(1920, 1080, seed++), {5, 3, 5});
}

TEST(NlmeansCuda, FramesSmallerThanTheWindow) {
  FP_REQUIRE_GPU();
  // The reflection wraps several times around frames narrower than the search window.
  std::uint32_t seed = 300;
  for (const auto& [width, height] :
       std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {1, 2}, {2, 2}, {3, 2}, {1, 40}, {40, 1}, {5, 4}, {7, 33}})
    for (const ops::NlmeansParams p : {ops::NlmeansParams{10, 7, 21}, ops::NlmeansParams{30, 3, 51}, ops::NlmeansParams{20, 15, 5}})
      expect_unrounded_matches_exact(test::random_image(width, height, seed++), p);
}

TEST(NlmeansCuda, HugeHGivesTheWindowMean) {
  FP_REQUIRE_GPU();
  // With h huge every weight is 1 (to 1e-7): the output is the plain mean of E over the
  // search window, computed here without any patch, which checks directly that every offset
  // is visited once and reads the right pixel.
  std::uint32_t seed = 400;
  for (const auto& [width, height] : std::vector<std::pair<int, int>>{{61, 45}, {5, 3}, large(200, 131)})
    for (const ops::NlmeansParams p :
         {ops::NlmeansParams{1e6, 3, 5}, ops::NlmeansParams{1e6, 7, 21}, ops::NlmeansParams{1e6, 15, 51}, ops::NlmeansParams{1e6, 1, 3}}) {
      const HostImageU8 src = test::random_image(width, height, seed++);
      const HostImageF32 got = gpu_unrounded(src, p);
      const int s = p.search / 2;
      double worst = 0.0;
      std::string where;
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
          double sum = 0.0;
          for (int dy = -s; dy <= s; ++dy)
            for (int dx = -s; dx <= s; ++dx) sum += src(walk_reflect(x + dx, width), walk_reflect(y + dy, height));
          const double want = sum / ((2.0 * s + 1) * (2.0 * s + 1));
          const double error = std::fabs(got(x, y) - want);
          if (error > worst) {
            worst = error;
            where = std::to_string(x) + ", " + std::to_string(y);
          }
        }
      EXPECT_LE(worst, 1e-3) << describe(width, height, p) << " at " << where;
    }
}

TEST(NlmeansCuda, ConstantImageStaysConstant) {
  FP_REQUIRE_GPU();
  for (const auto& [width, height] : std::vector<std::pair<int, int>>{{1, 1}, {33, 17}, large(1920, 1080)})
    // One value in the small mode (the sanitizer runs): the values exercise arithmetic, not
    // memory accesses, and racecheck makes each call slow.
    for (const int value : small_sizes() ? std::vector<int>{93} : std::vector<int>{0, 93, 255})
      for (const ops::NlmeansParams p : {ops::NlmeansParams{10, 7, 21}, ops::NlmeansParams{3, 15, 51}, ops::NlmeansParams{10, 1, 1}}) {
        // Under racecheck this one call takes minutes; HugeHGivesTheWindowMean runs the same
        // patch and search on a frame of several tiles in the small mode.
        if (small_sizes() && p.search == 51 && width > 64) continue;
        const HostImageU8 src(width, height, 0, static_cast<std::uint8_t>(value));
        const HostImageF32 unrounded = gpu_unrounded(src, p);
        const HostImageU8 rounded = gpu_rounded(src, p);
        int wrong = 0;
        for (int y = 0; y < height; ++y)
          for (int x = 0; x < width; ++x)
            wrong += unrounded(x, y) != static_cast<float>(value) || rounded(x, y) != value;
        EXPECT_EQ(wrong, 0) << describe(width, height, p) << " value " << value;
      }
}

TEST(NlmeansCuda, RoundedIsTheUnroundedRounded) {
  FP_REQUIRE_GPU();
  const auto [width, height] = large(333, 211);
  const HostImageU8 src = noisy_frame(width, height, 500, 7, 30.0);
  for (const ops::NlmeansParams p : {ops::NlmeansParams{10, 7, 21}, ops::NlmeansParams{25, 5, 15}}) {
    const HostImageF32 unrounded = gpu_unrounded(src, p);
    const HostImageU8 rounded = gpu_rounded(src, p);
    int wrong = 0;
    for (int y = 0; y < src.height(); ++y)
      for (int x = 0; x < src.width(); ++x)
        wrong += rounded(x, y) != static_cast<int>(std::floor(unrounded(x, y) + 0.5f));
    EXPECT_EQ(wrong, 0) << describe(src.width(), src.height(), p);
  }
}

TEST(NlmeansCuda, AnyPitchAndAlignment) {
  FP_REQUIRE_GPU();
  const ops::NlmeansParams p{12, 5, 11};
  std::uint32_t seed = 600;
  for (const auto& [width, height] : std::vector<std::pair<int, int>>{{1, 1}, {31, 9}, {130, 67}})
    for (const auto& [src_offset, pitch_extra] : std::vector<std::pair<int, int>>{{0, 0}, {1, 3}, {7, 1}, {13, 16}}) {
      const HostImageU8 src = noisy_frame(width, height, seed++);
      test::PaddedDeviceImage<std::uint8_t> device_src(width, height, width + pitch_extra, src_offset);
      test::PaddedDeviceImage<std::uint8_t> device_dst(width, height, width + 2 * pitch_extra + 1, src_offset + 3);
      test::PaddedDeviceImage<float> device_float(width, height, 4 * (width + pitch_extra), 4 * src_offset);
      upload(src.view(), device_src.view, nullptr);
      nlmeans(device_src.view, device_dst.view, p, nullptr);
      nlmeans_unrounded(device_src.view, device_float.view, p, nullptr);
      HostImageU8 got(width, height);
      HostImageF32 got_float(width, height);
      download(ConstImageU8(device_dst.view), got.view(), nullptr);
      download(ConstImageF32(device_float.view), got_float.view(), nullptr);
      FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
      std::string where;
      EXPECT_EQ(test::max_abs_difference(got, gpu_rounded(src, p), &where), 0)
          << describe(width, height, p) << " offset " << src_offset << " pitch extra " << pitch_extra << " at "
          << where;
      const HostImageF32 want = gpu_unrounded(src, p);
      int differing = 0;
      for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) differing += got_float(x, y) != want(x, y);
      EXPECT_EQ(differing, 0) << describe(width, height, p) << " offset " << src_offset;
      EXPECT_EQ(device_dst.bytes_outside_changed(), 0) << describe(width, height, p) << ": written past a row";
      EXPECT_EQ(device_float.bytes_outside_changed(), 0) << describe(width, height, p) << ": written past a row";
    }
}

// Back-to-back calls on one stream with changing sizes and parameters, then the same calls
// on two streams at once: every result equals the one of a call alone.
TEST(NlmeansCuda, RepeatedCallsAndTwoStreams) {
  FP_REQUIRE_GPU();
  const auto [width_a, height_a] = large(1920, 1080);
  const auto [width_b, height_b] = large(641, 359);
  const HostImageU8 a = noisy_frame(width_a, height_a, 700);
  const HostImageU8 b = noisy_frame(width_b, height_b, 701, 5);
  const ops::NlmeansParams pa{10, 7, 21};
  const ops::NlmeansParams pb{20, 9, 31};
  const HostImageU8 want_a = gpu_rounded(a, pa);
  const HostImageU8 want_b = gpu_rounded(b, pb);
  const auto da = test::to_device(a);
  const auto db = test::to_device(b);
  DeviceImage<std::uint8_t> oa(a.width(), a.height());
  DeviceImage<std::uint8_t> ob(b.width(), b.height());
  for (int k = 0; k < 3; ++k) {
    nlmeans(da.view(), oa.view(), pa, nullptr);
    nlmeans(db.view(), ob.view(), pb, nullptr);
  }
  std::string where;
  EXPECT_EQ(test::max_abs_difference(test::to_host(oa), want_a, &where), 0) << "one stream, a, at " << where;
  EXPECT_EQ(test::max_abs_difference(test::to_host(ob), want_b, &where), 0) << "one stream, b, at " << where;
  Stream sa;
  Stream sb;
  for (int k = 0; k < 3; ++k) {
    nlmeans(da.view(), oa.view(), pa, sa.get());
    nlmeans(db.view(), ob.view(), pb, sb.get());
  }
  sa.synchronize();
  sb.synchronize();
  EXPECT_EQ(test::max_abs_difference(test::to_host(oa), want_a, &where), 0) << "two streams, a, at " << where;
  EXPECT_EQ(test::max_abs_difference(test::to_host(ob), want_b, &where), 0) << "two streams, b, at " << where;
}

TEST(NlmeansCuda, EmptyImageDoesNothing) {
  FP_REQUIRE_GPU();
  EXPECT_NO_THROW(nlmeans(ConstImageU8{nullptr, 0, 0, 0}, ImageU8{nullptr, 0, 0, 0}, {}, nullptr));
  EXPECT_NO_THROW(nlmeans_unrounded(ConstImageU8{nullptr, 5, 0, 5}, ImageF32{nullptr, 5, 0, 20}, {}, nullptr));
}

TEST(NlmeansCuda, RejectsBadArguments) {
  FP_REQUIRE_GPU();
  DeviceImage<std::uint8_t> src(32, 16);
  DeviceImage<std::uint8_t> dst(32, 16);
  DeviceImage<std::uint8_t> other(31, 16);
  DeviceImage<float> floats(32, 16);
  EXPECT_THROW(nlmeans(src.view(), dst.view(), {10, 8, 21}, nullptr), std::invalid_argument);
  EXPECT_THROW(nlmeans(src.view(), dst.view(), {10, 7, kNlmeansMaxSearch + 2}, nullptr), std::invalid_argument);
  EXPECT_THROW(nlmeans(src.view(), dst.view(), {0, 7, 21}, nullptr), std::invalid_argument);
  EXPECT_THROW(nlmeans_unrounded(src.view(), floats.view(), {10, kNlmeansMaxPatch + 2, 21}, nullptr),
               std::invalid_argument);
  EXPECT_THROW(nlmeans(src.view(), other.view(), {}, nullptr), std::invalid_argument);
  EXPECT_THROW(nlmeans(src.view(), src.view(), {}, nullptr), std::invalid_argument);
  EXPECT_THROW(nlmeans(ConstImageU8{nullptr, 4, 4, 4}, ImageU8{dst.view().data, 4, 4, dst.view().pitch}, {}, nullptr),
               std::invalid_argument);
  // Nothing was enqueued by the rejected calls.
  FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

}  // namespace
}  // namespace fp::cuda
