#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "cpu/mean_smooth.hpp"
#include "test_images.hpp"

namespace fp::cpu {
namespace {

using test::kSizes;

// Direct summation over the window with clamped coordinates, rounded as documented.
HostImageU8 naive_mean_smooth(const HostImageU8& src, int r) {
  const int w = src.width();
  const int h = src.height();
  HostImageU8 out(w, h);
  const std::uint64_t n = static_cast<std::uint64_t>(2 * r + 1) * static_cast<std::uint64_t>(2 * r + 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::uint64_t sum = 0;
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) sum += src(std::clamp(x + dx, 0, w - 1), std::clamp(y + dy, 0, h - 1));
      out(x, y) = static_cast<std::uint8_t>((sum + n / 2) / n);
    }
  return out;
}

HostImageU8 run(const HostImageU8& src, int radius, int extra = 3) {
  HostImageU8 dst = test::pitched_image(src.width(), src.height(), extra);
  mean_smooth(src.view(), dst.view(), radius);
  test::expect_padding_untouched(dst, extra);
  return dst;
}

void expect_matches_naive(const HostImageU8& src, int radius) {
  SCOPED_TRACE("radius " + std::to_string(radius));
  EXPECT_TRUE(test::images_equal(test::copy_of(run(src, radius).view()), naive_mean_smooth(src, radius)));
}

TEST(MeanSmooth, MatchesNaiveOnAllSizes) {
  std::uint32_t seed = 10;
  for (const auto size : kSizes) {
    SCOPED_TRACE(test::describe(size));
    const HostImageU8 src = test::random_image(size.w, size.h, seed++);
    for (int radius : {0, 1, 2, 3, 7}) expect_matches_naive(src, radius);
  }
}

TEST(MeanSmooth, MatchesNaiveForRadiiUpToAndBeyondTheImage) {
  std::uint32_t seed = 20;
  for (const auto size : std::vector<test::Size>{{1, 1}, {2, 2}, {17, 13}, {64, 48}}) {
    SCOPED_TRACE(test::describe(size));
    const HostImageU8 src = test::random_image(size.w, size.h, seed++);
    for (int radius : {5, 12, 13, 16, 17, 30, 47, 48, 70}) expect_matches_naive(src, radius);
  }
}

TEST(MeanSmooth, MatchesNaiveForHugeRadii) {
  // 1024 is the last radius summed in 32 bits, 1025 the first in 64 bits.
  const HostImageU8 src = test::random_image(5, 4, 31);
  for (int radius : {1023, 1024, 1025, 1500}) expect_matches_naive(src, radius);
  // Past 2047 a window sum of 8-bit pixels no longer fits in 32 bits.
  expect_matches_naive(test::random_image(3, 2, 32), 2100);
}

TEST(MeanSmooth, WhiteStaysWhiteAtTheLargestRoundingSums) {
  // 255 everywhere makes every sum 255 n + n/2, the largest the division ever sees.
  for (int radius : {1, 2, 100, 1000, 1024, 1025, 2047, 2048, 3000, 5000, 100000}) {
    SCOPED_TRACE("radius " + std::to_string(radius));
    HostImageU8 src(9, 7, 0, 255);
    const HostImageU8 dst = run(src, radius);
    for (int y = 0; y < 7; ++y)
      for (int x = 0; x < 9; ++x) ASSERT_EQ(dst(x, y), 255);
  }
}

TEST(MeanSmooth, ConstantImageStaysConstant) {
  for (const auto size : kSizes)
    for (const int value : {0, 1, 128, 255})
      for (const int radius : {0, 1, 2, 9, 1000}) {
        SCOPED_TRACE(test::describe(size) + " value " + std::to_string(value) + " radius " + std::to_string(radius));
        HostImageU8 src = test::pitched_image(size.w, size.h);
        for (int y = 0; y < size.h; ++y)
          for (int x = 0; x < size.w; ++x) src(x, y) = static_cast<std::uint8_t>(value);
        const HostImageU8 dst = run(src, radius);
        int wrong = 0;
        for (int y = 0; y < size.h; ++y)
          for (int x = 0; x < size.w; ++x) wrong += dst(x, y) != value;
        ASSERT_EQ(wrong, 0);
      }
}

TEST(MeanSmooth, KnownAnswerRoundsHalfUp) {
  // A single 1 in a 3x3 window of zeros: sum 1, n 9, (1 + 4) / 9 = 0. Five ones: (5 + 4) / 9 = 1.
  HostImageU8 src(3, 3, 0, 0);
  src(1, 1) = 1;
  EXPECT_EQ(run(src, 1)(1, 1), 0);
  src(0, 0) = src(2, 0) = src(0, 2) = src(2, 2) = 1;
  EXPECT_EQ(run(src, 1)(1, 1), 1);
  // An edge: a 1x3 row 0, 0, 90 with radius 1 replicates the ends; the middle window of
  // 3 rows (all the same row) sums 3 * 90 = 270, 270 / 9 = 30.
  HostImageU8 row(3, 1, 0, 0);
  row(2, 0) = 90;
  const HostImageU8 out = run(row, 1);
  EXPECT_EQ(out(0, 0), 0);
  EXPECT_EQ(out(1, 0), 30);
  EXPECT_EQ(out(2, 0), 60);
}

TEST(MeanSmooth, RejectsBadArguments) {
  HostImageU8 src(4, 4);
  HostImageU8 dst(4, 4);
  HostImageU8 other(5, 4);
  EXPECT_THROW(mean_smooth(src.view(), dst.view(), -1), std::invalid_argument);
  EXPECT_THROW(mean_smooth(src.view(), other.view(), 1), std::invalid_argument);
  HostImageU8 empty(0, 0);
  HostImageU8 empty_out(0, 0);
  EXPECT_NO_THROW(mean_smooth(empty.view(), empty_out.view(), 3));
}

}  // namespace
}  // namespace fp::cpu
