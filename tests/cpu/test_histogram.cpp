#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cpu/luma_histogram.hpp"
#include "test_images.hpp"

namespace fp::cpu {
namespace {

using test::kSizes;

ops::Histogram256 naive_histogram(const HostImageU8& image) {
  ops::Histogram256 bins{};
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) ++bins[image(x, y)];
  return bins;
}

double naive_mean(const HostImageU8& image) {
  if (image.width() * image.height() == 0) return 0.0;
  double sum = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) sum += image(x, y);
  return sum / (image.width() * image.height());
}

// Otsu by brute force over the pixels: for every t, the two classes' weights and means from
// the pixels themselves, and the between-class variance as w0 (mu0 - mu)^2 + w1 (mu1 - mu)^2.
// An empty class 0 is no split (so a single value v gives v). Ties within 1e-12 relative
// go to the smallest t.
int naive_otsu(const HostImageU8& image) {
  const double n = static_cast<double>(image.width()) * image.height();
  if (n == 0) return 0;
  const double mu = naive_mean(image);
  std::vector<double> variance(256, -1.0);
  for (int t = 0; t < 256; ++t) {
    double n0 = 0, s0 = 0, n1 = 0, s1 = 0;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) {
        const int v = image(x, y);
        if (v <= t) {
          n0 += 1;
          s0 += v;
        } else {
          n1 += 1;
          s1 += v;
        }
      }
    if (n0 == 0) continue;
    const double mu0 = s0 / n0;
    const double mu1 = n1 > 0 ? s1 / n1 : 0.0;
    variance[static_cast<std::size_t>(t)] = n0 / n * (mu0 - mu) * (mu0 - mu) + n1 / n * (mu1 - mu) * (mu1 - mu);
  }
  double best = -1.0;
  for (double v : variance) best = std::max(best, v);
  for (int t = 0; t < 256; ++t)
    if (variance[static_cast<std::size_t>(t)] >= 0 && variance[static_cast<std::size_t>(t)] >= best * (1 - 1e-12))
      return t;
  return 0;
}

TEST(Histogram, MatchesCountingOnAllSizes) {
  std::uint32_t seed = 1;
  for (const auto size : kSizes) {
    SCOPED_TRACE(test::describe(size));
    const HostImageU8 image = test::random_image(size.w, size.h, seed++);
    const ops::Histogram256 bins = histogram(image.view());
    EXPECT_EQ(bins, naive_histogram(image));
    std::uint64_t total = 0;
    for (auto b : bins) total += b;
    EXPECT_EQ(total, static_cast<std::uint64_t>(size.w) * static_cast<std::uint64_t>(size.h));
  }
}

TEST(Histogram, StatsMatchBruteForce) {
  std::uint32_t seed = 100;
  for (const auto size : kSizes) {
    for (const bool blobs : {false, true}) {
      SCOPED_TRACE(test::describe(size) + (blobs ? " blobs" : " noise"));
      const HostImageU8 image =
          blobs ? test::blob_image(size.w, size.h, seed++) : test::random_image(size.w, size.h, seed++);
      const ops::LumaStats stats = luma_stats(image.view());
      EXPECT_EQ(stats.bins, naive_histogram(image));
      EXPECT_NEAR(stats.mean, naive_mean(image), 1e-9);
      EXPECT_EQ(stats.otsu, naive_otsu(image));
      EXPECT_EQ(otsu_threshold(stats.bins), stats.otsu);
    }
  }
}

TEST(Histogram, ConstantImageHasOneBinAndOtsuAtTheValue) {
  for (const auto size : kSizes)
    for (const int value : {0, 1, 77, 254, 255}) {
      SCOPED_TRACE(test::describe(size) + " value " + std::to_string(value));
      HostImageU8 image = test::pitched_image(size.w, size.h);
      for (int y = 0; y < size.h; ++y)
        for (int x = 0; x < size.w; ++x) image(x, y) = static_cast<std::uint8_t>(value);
      const ops::LumaStats stats = luma_stats(image.view());
      ops::Histogram256 want{};
      want[static_cast<std::size_t>(value)] = static_cast<std::uint32_t>(size.w * size.h);
      EXPECT_EQ(stats.bins, want);
      EXPECT_DOUBLE_EQ(stats.mean, value);
      EXPECT_EQ(stats.otsu, value);
    }
}

TEST(Histogram, OtsuKnownAnswers) {
  // Two values: every t in [a, b-1] splits them the same way; the smallest is a.
  ops::Histogram256 two{};
  two[40] = 100;
  two[200] = 300;
  EXPECT_EQ(otsu_threshold(two), 40);
  // Two equal groups of three values each: t = 12 separates them.
  ops::Histogram256 groups{};
  for (int v : {10, 11, 12}) groups[static_cast<std::size_t>(v)] = 50;
  for (int v : {100, 101, 102}) groups[static_cast<std::size_t>(v)] = 50;
  EXPECT_EQ(otsu_threshold(groups), 12);
  // Two adjacent values, however unequal their counts: the only real split is t = 0.
  ops::Histogram256 skewed{};
  skewed[0] = 10;
  skewed[1] = 90;
  EXPECT_EQ(otsu_threshold(skewed), 0);
  // Empty histogram (empty image).
  EXPECT_EQ(otsu_threshold(ops::Histogram256{}), 0);
  const HostImageU8 empty(0, 0);
  const ops::LumaStats stats = luma_stats(empty.view());
  EXPECT_EQ(stats.mean, 0.0);
  EXPECT_EQ(stats.otsu, 0);
}

TEST(Histogram, OtsuIsNotOffByOneOnAThreeLevelImage) {
  // Values 0, 128, 255 in proportions 1:1:2: a hand check gives t in [128, 254] best
  // (separating 255 from the rest: w0=w1=1/2, mu0=64, mu1=255, variance 9120.25) over
  // t in [0, 127] (w0=1/4, mu0=0, mu1=212.67, variance 8480.3); the smallest is 128.
  ops::Histogram256 bins{};
  bins[0] = 1;
  bins[128] = 1;
  bins[255] = 2;
  EXPECT_EQ(otsu_threshold(bins), 128);
}

}  // namespace
}  // namespace fp::cpu
