#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cpu/nlmeans.hpp"
#include "test_images.hpp"

namespace fp::cpu {
namespace {

using test::kSizes;

// Reflect-101 by walking: bounce off the ends one step at a time.
int naive_reflect(int i, int n) {
  if (n == 1) return 0;
  while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
  return i;
}

// The definition, word for word, in double precision, without the library's helpers.
HostImageF32 naive_nlmeans(const HostImageU8& src, const ops::NlmeansParams& p) {
  const int w = src.width();
  const int h = src.height();
  const int k = p.patch / 2;
  const int s = p.search / 2;
  auto e = [&](int x, int y) { return static_cast<double>(src(naive_reflect(x, w), naive_reflect(y, h))); };
  HostImageF32 out(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double num = 0;
      double den = 0;
      for (int qy = y - s; qy <= y + s; ++qy)
        for (int qx = x - s; qx <= x + s; ++qx) {
          double ssd = 0;
          for (int ky = -k; ky <= k; ++ky)
            for (int kx = -k; kx <= k; ++kx) {
              const double d = e(x + kx, y + ky) - e(qx + kx, qy + ky);
              ssd += d * d;
            }
          const double weight = std::exp(-ssd / (p.patch * p.patch * p.h * p.h));
          num += weight * e(qx, qy);
          den += weight;
        }
      out(x, y) = static_cast<float>(num / den);
    }
  return out;
}

HostImageF32 exact(const HostImageU8& src, const ops::NlmeansParams& p) {
  HostImageF32 out(src.width(), src.height(), src.width() + 2);
  nlmeans_exact(src.view(), out.view(), p);
  return test::copy_of(ImageView<const float>(out.view()));
}

HostImageU8 fast(const HostImageU8& src, const ops::NlmeansParams& p, int extra = 4) {
  HostImageU8 out = test::pitched_image(src.width(), src.height(), extra);
  nlmeans(src.view(), out.view(), p);
  test::expect_padding_untouched(out, extra);
  return out;
}

std::string describe(const ops::NlmeansParams& p) {
  return "h " + std::to_string(p.h) + " patch " + std::to_string(p.patch) + " search " + std::to_string(p.search);
}

// The fast result must be the exact value rounded, up to float error (about 2e-5 at 255):
// never more than 0.5 + 1e-4 away from it. An error e in the unrounded value changes the
// rounding of about 2 e of all pixels, so the count of those is the sensitive measure: an
// error of 1e-4 would show as about 46 of the 230400 pixels of 640x360, float error as a few.
void expect_fast_matches_exact(const HostImageU8& src, const ops::NlmeansParams& p) {
  SCOPED_TRACE(describe(p));
  const HostImageF32 want = exact(src, p);
  const HostImageU8 got = fast(src, p);
  double worst = 0;
  int worst_x = 0, worst_y = 0;
  long rounded_differently = 0;
  for (int y = 0; y < src.height(); ++y)
    for (int x = 0; x < src.width(); ++x) {
      const double diff = std::fabs(got(x, y) - static_cast<double>(want(x, y)));
      if (diff > worst) {
        worst = diff;
        worst_x = x;
        worst_y = y;
      }
      if (got(x, y) != std::floor(want(x, y) + 0.5)) ++rounded_differently;
    }
  EXPECT_LE(worst, 0.5 + 1e-4) << "at (" << worst_x << "," << worst_y << "): fast " << int(got(worst_x, worst_y))
                               << ", exact " << want(worst_x, worst_y);
  // Only pixels whose exact value lies within float error of x.5 may round differently.
  EXPECT_LE(rounded_differently, 2 + src.width() * src.height() / 20000) << "pixels rounded differently";
}

TEST(Nlmeans, Reflect101) {
  EXPECT_EQ(reflect101(-1, 5), 1);
  EXPECT_EQ(reflect101(-2, 5), 2);
  EXPECT_EQ(reflect101(5, 5), 3);
  EXPECT_EQ(reflect101(6, 5), 2);
  EXPECT_EQ(reflect101(0, 1), 0);
  EXPECT_EQ(reflect101(-7, 1), 0);
  EXPECT_EQ(reflect101(12345, 1), 0);
  EXPECT_EQ(reflect101(-1, 2), 1);
  EXPECT_EQ(reflect101(2, 2), 0);
  for (int n = 1; n <= 9; ++n)
    for (int i = -40; i <= 40; ++i) ASSERT_EQ(reflect101(i, n), naive_reflect(i, n)) << i << " in " << n;
  EXPECT_EQ(reflect101(-1000000007, 1920), naive_reflect(-1000000007, 1920));
}

TEST(Nlmeans, ExactMatchesNaiveDefinition) {
  std::uint32_t seed = 40;
  for (const auto size : std::vector<test::Size>{{1, 1}, {2, 2}, {17, 13}, {23, 9}}) {
    SCOPED_TRACE(test::describe(size));
    const HostImageU8 src = test::random_image(size.w, size.h, seed++);
    for (const ops::NlmeansParams p : {ops::NlmeansParams{10, 7, 21}, ops::NlmeansParams{40, 3, 5}, ops::NlmeansParams{25, 5, 9}}) {
      SCOPED_TRACE(describe(p));
      const HostImageF32 got = exact(src, p);
      const HostImageF32 want = naive_nlmeans(src, p);
      for (int y = 0; y < size.h; ++y)
        for (int x = 0; x < size.w; ++x) ASSERT_NEAR(got(x, y), want(x, y), 1e-4) << x << "," << y;
    }
  }
}

TEST(Nlmeans, FastMatchesExactDefaultParamsSmallSizes) {
  std::uint32_t seed = 50;
  for (const auto size : std::vector<test::Size>{{1, 1}, {2, 2}, {17, 13}, {64, 48}}) {
    SCOPED_TRACE(test::describe(size));
    const HostImageU8 noise = test::random_image(size.w, size.h, seed++);
    const HostImageU8 blobs = test::blob_image(size.w, size.h, seed++);
    for (const double h : {10.0, 30.0}) {
      expect_fast_matches_exact(noise, {h, 7, 21});
      expect_fast_matches_exact(blobs, {h, 7, 21});
    }
  }
}

TEST(Nlmeans, FastMatchesExactSeveralTilesAcross) {
  // Wider than one tile for the default parameters, so tile seams are crossed.
  const HostImageU8 src = test::blob_image(300, 24, 60);
  expect_fast_matches_exact(src, {12, 7, 21});
}

TEST(Nlmeans, FastMatchesExactOtherParams) {
  std::uint32_t seed = 70;
  const HostImageU8 src = test::blob_image(41, 29, seed++);
  for (const ops::NlmeansParams p : {ops::NlmeansParams{10, 1, 1}, ops::NlmeansParams{10, 1, 3}, ops::NlmeansParams{10, 3, 1},
                                ops::NlmeansParams{5, 5, 11}, ops::NlmeansParams{100, 9, 3}, ops::NlmeansParams{2, 3, 17},
                                ops::NlmeansParams{0.5, 3, 7}, ops::NlmeansParams{1000, 15, 5}, ops::NlmeansParams{20, 1, 51}})
    expect_fast_matches_exact(src, p);
}

TEST(Nlmeans, FastMatchesExactLargeSize) {
  const HostImageU8 src = test::blob_image(640, 360, 80);
  expect_fast_matches_exact(src, {10, 3, 7});
  const HostImageU8 noise = test::random_image(640, 360, 81);
  expect_fast_matches_exact(noise, {25, 3, 7});
}

TEST(Nlmeans, ConstantImageStaysConstant) {
  for (const auto size : kSizes)
    for (const int value : {0, 93, 255}) {
      SCOPED_TRACE(test::describe(size) + " value " + std::to_string(value));
      const HostImageU8 src(size.w, size.h, size.w + 1, static_cast<std::uint8_t>(value));
      // The largest size (kSizes) with a small window: its sums, not its window, are under test.
      const ops::NlmeansParams p = size.w >= 320 ? ops::NlmeansParams{10, 3, 7} : ops::NlmeansParams{10, 7, 21};
      const HostImageU8 got = fast(src, p);
      int wrong = 0;
      for (int y = 0; y < size.h; ++y)
        for (int x = 0; x < size.w; ++x) wrong += got(x, y) != value;
      EXPECT_EQ(wrong, 0);
    }
}

TEST(Nlmeans, SearchOneIsTheIdentity) {
  const HostImageU8 src = test::random_image(33, 21, 90);
  EXPECT_TRUE(test::images_equal(test::copy_of(fast(src, {10, 7, 1}).view()), test::copy_of(src.view())));
}

TEST(Nlmeans, RemovesNoiseFromAFlatPatch) {
  // A flat 100 with +-20 noise: the patches are all alike, so the output is close to 100.
  HostImageU8 src(64, 48, 0, 100);
  std::mt19937 rng(91);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) src(x, y) = static_cast<std::uint8_t>(80 + rng() % 41);
  const HostImageU8 got = fast(src, {30, 7, 21});
  double in_error = 0, out_error = 0;
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) {
      in_error += std::fabs(src(x, y) - 100.0);
      out_error += std::fabs(got(x, y) - 100.0);
    }
  EXPECT_LT(out_error, in_error / 4);
}

TEST(Nlmeans, RejectsBadParameters) {
  const HostImageU8 src(8, 8);
  HostImageU8 dst(8, 8);
  HostImageF32 fdst(8, 8);
  HostImageU8 wrong(9, 8);
  for (const ops::NlmeansParams p : {ops::NlmeansParams{0, 7, 21}, ops::NlmeansParams{-1, 7, 21}, ops::NlmeansParams{10, 6, 21},
                                ops::NlmeansParams{10, 0, 21}, ops::NlmeansParams{10, 7, 20}, ops::NlmeansParams{10, 7, -1}}) {
    SCOPED_TRACE(describe(p));
    EXPECT_THROW(nlmeans(src.view(), dst.view(), p), std::invalid_argument);
    EXPECT_THROW(nlmeans_exact(src.view(), fdst.view(), p), std::invalid_argument);
  }
  EXPECT_THROW(nlmeans(src.view(), wrong.view(), {}), std::invalid_argument);
}

}  // namespace
}  // namespace fp::cpu
