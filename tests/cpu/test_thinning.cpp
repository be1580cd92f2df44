#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "cpu/luma_histogram.hpp"
#include "cpu/thinning.hpp"
#include "test_images.hpp"

namespace fp::cpu {
namespace {

using test::kSizes;
using Grid = std::vector<std::vector<int>>;  // [y][x], 0 or 1

Grid binarized(const HostImageU8& image, int threshold) {
  Grid g(static_cast<std::size_t>(image.height()), std::vector<int>(static_cast<std::size_t>(image.width())));
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) g[y][x] = image(x, y) > threshold ? 1 : 0;
  return g;
}

// Zhang and Suen (1984) as in the paper: P2..P9 clockwise from north, pixels outside the
// image are 0, each sub-iteration marks first and deletes afterwards; returns the passes.
int naive_zhang_suen(Grid& g) {
  const int h = static_cast<int>(g.size());
  const int w = h > 0 ? static_cast<int>(g[0].size()) : 0;
  auto at = [&](int x, int y) { return x < 0 || y < 0 || x >= w || y >= h ? 0 : g[y][x]; };
  int passes = 0;
  for (;;) {
    ++passes;
    bool changed = false;
    for (int sub = 0; sub < 2; ++sub) {
      std::vector<std::pair<int, int>> marked;
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          if (g[y][x] == 0) continue;
          const int p2 = at(x, y - 1), p3 = at(x + 1, y - 1), p4 = at(x + 1, y), p5 = at(x + 1, y + 1);
          const int p6 = at(x, y + 1), p7 = at(x - 1, y + 1), p8 = at(x - 1, y), p9 = at(x - 1, y - 1);
          const int seq[9] = {p2, p3, p4, p5, p6, p7, p8, p9, p2};
          const int b = p2 + p3 + p4 + p5 + p6 + p7 + p8 + p9;
          int a = 0;
          for (int i = 0; i < 8; ++i) a += seq[i] == 0 && seq[i + 1] == 1;
          if (b < 2 || b > 6 || a != 1) continue;
          if (sub == 0 && (p2 * p4 * p6 != 0 || p4 * p6 * p8 != 0)) continue;
          if (sub == 1 && (p2 * p4 * p8 != 0 || p2 * p6 * p8 != 0)) continue;
          marked.emplace_back(x, y);
        }
      for (const auto& [x, y] : marked) g[y][x] = 0;
      changed = changed || !marked.empty();
    }
    if (!changed) return passes;
  }
}

// thinning() into an image with pitch != width; returns the output and the passes.
std::pair<HostImageU8, int> run_thinning(const HostImageU8& src, int threshold, int extra = 2) {
  HostImageU8 out = test::pitched_image(src.width(), src.height(), extra);
  const int passes = thinning(src.view(), out.view(), threshold);
  test::expect_padding_untouched(out, extra);
  return {test::copy_of(out.view()), passes};
}

HostImageU8 to_image(const Grid& g, int w, int h, int scale) {
  HostImageU8 image(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) image(x, y) = static_cast<std::uint8_t>(g[y][x] * scale);
  return image;
}

void expect_thinning_matches_naive(const HostImageU8& src, int threshold) {
  SCOPED_TRACE("threshold " + std::to_string(threshold));
  Grid g = binarized(src, threshold);
  const int want_passes = naive_zhang_suen(g);
  const auto [got, passes] = run_thinning(src, threshold);
  EXPECT_TRUE(test::images_equal(got, to_image(g, src.width(), src.height(), 255)));
  EXPECT_EQ(passes, want_passes);
}

std::string show(const HostImageU8& image) {
  std::string s;
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) s += image(x, y) != 0 ? '#' : '.';
    s += '\n';
  }
  return s;
}

TEST(Thinning, BinarizeIsStrictlyAboveThreshold) {
  const HostImageU8 src = test::random_image(17, 13, 300);
  for (const int threshold : {-1, 0, 100, 254, 255}) {
    HostImageU8 out = test::pitched_image(17, 13, 2);
    binarize(src.view(), out.view(), threshold);
    test::expect_padding_untouched(out, 2);
    for (int y = 0; y < 13; ++y)
      for (int x = 0; x < 17; ++x) ASSERT_EQ(out(x, y), src(x, y) > threshold ? 1 : 0) << threshold;
  }
}

TEST(Thinning, MatchesNaiveOnBlobsAtOtsuAndFixedThresholds) {
  std::uint32_t seed = 310;
  for (const auto size : kSizes) {
    SCOPED_TRACE(test::describe(size));
    const HostImageU8 src = test::blob_image(size.w, size.h, seed++);
    expect_thinning_matches_naive(src, otsu_threshold(histogram(src.view())));
    expect_thinning_matches_naive(src, 40);
    expect_thinning_matches_naive(src, 90);
  }
}

TEST(Thinning, MatchesNaiveOnNoise) {
  std::uint32_t seed = 320;
  for (const auto size : kSizes) {
    SCOPED_TRACE(test::describe(size));
    const HostImageU8 src = test::random_image(size.w, size.h, seed++);
    expect_thinning_matches_naive(src, 127);
    expect_thinning_matches_naive(src, 60);  // mostly foreground: wide regions with pinholes
  }
}

TEST(Thinning, ZhangSuenOnAZeroOneImageInPlace) {
  const HostImageU8 src = test::blob_image(64, 48, 330);
  HostImageU8 image = test::pitched_image(64, 48, 4);
  binarize(src.view(), image.view(), 70);
  Grid g = binarized(src, 70);
  const int want_passes = naive_zhang_suen(g);
  EXPECT_EQ(zhang_suen(image.view()), want_passes);
  test::expect_padding_untouched(image, 4);
  EXPECT_TRUE(test::images_equal(test::copy_of(image.view()), to_image(g, 64, 48, 1)));
}

TEST(Thinning, SourceAndDestinationMayBeOnePlane) {
  const HostImageU8 src = test::blob_image(64, 48, 340);
  const auto [want, want_passes] = run_thinning(src, 80);
  HostImageU8 image = src;
  const int passes = thinning(image.view(), image.view(), 80);
  EXPECT_EQ(passes, want_passes);
  EXPECT_TRUE(test::images_equal(test::copy_of(image.view()), want));
}

TEST(Thinning, ConstantImageAtOrBelowThresholdIsEmptyAfterOnePass) {
  for (const auto size : kSizes) {
    SCOPED_TRACE(test::describe(size));
    const HostImageU8 src(size.w, size.h, 0, 100);
    for (const int threshold : {100, 200}) {
      const auto [out, passes] = run_thinning(src, threshold);
      EXPECT_EQ(passes, 1);
      EXPECT_TRUE(test::images_equal(out, HostImageU8(size.w, size.h)));
    }
  }
}

TEST(Thinning, ConstantImageAboveThresholdSmallCases) {
  // 1x1: a lone pixel has B = 0 < 2 and stays; nothing changes in the first pass.
  {
    const auto [out, passes] = run_thinning(HostImageU8(1, 1, 0, 200), 100);
    EXPECT_EQ(out(0, 0), 255);
    EXPECT_EQ(passes, 1);
  }
  // 2x2: every pixel has B = 3, A = 1 and a background P2 or P6 and P4 or P8, so the first
  // sub-iteration removes the whole square (Zhang-Suen's known flaw); the second pass finds
  // nothing.
  {
    const auto [out, passes] = run_thinning(HostImageU8(2, 2, 0, 200), 100);
    EXPECT_TRUE(test::images_equal(out, HostImageU8(2, 2)));
    EXPECT_EQ(passes, 2);
  }
}

// The 8-connected components of the foreground.
int components(const HostImageU8& image) {
  const int w = image.width(), h = image.height();
  std::vector<int> seen(static_cast<std::size_t>(w * h), 0);
  int count = 0;
  for (int y0 = 0; y0 < h; ++y0)
    for (int x0 = 0; x0 < w; ++x0) {
      if (image(x0, y0) == 0 || seen[static_cast<std::size_t>(y0 * w + x0)] != 0) continue;
      ++count;
      std::vector<std::pair<int, int>> stack{{x0, y0}};
      seen[static_cast<std::size_t>(y0 * w + x0)] = 1;
      while (!stack.empty()) {
        const auto [x, y] = stack.back();
        stack.pop_back();
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int nx = x + dx, ny = y + dy;
            if (nx < 0 || ny < 0 || nx >= w || ny >= h || image(nx, ny) == 0) continue;
            if (seen[static_cast<std::size_t>(ny * w + nx)] != 0) continue;
            seen[static_cast<std::size_t>(ny * w + nx)] = 1;
            stack.emplace_back(nx, ny);
          }
      }
    }
  return count;
}

// The skeleton Zhang-Suen gives a filled w x h rectangle (w > h) with background around
// it: each pass peels one layer off every side until a single row remains, the upper of
// the two middle rows when h is even, running from x0 + h/2 to x0 + w - (h+1)/2 - 1
// (w - h pixels). Checked by hand on 6x3; the naive version above agrees on all sizes.
HostImageU8 rectangle_skeleton(int canvas_w, int canvas_h, int x0, int y0, int w, int h) {
  HostImageU8 image(canvas_w, canvas_h);
  for (int x = x0 + h / 2; x <= x0 + w - (h + 1) / 2 - 1; ++x) image(x, y0 + (h - 1) / 2) = 255;
  return image;
}

// The shape the task asks of a rectangle's skeleton, checked apart from the exact pixels:
// inside the rectangle, on its middle rows, one pixel thick, one connected piece, centred.
void expect_thin_middle_segment(const HostImageU8& out, int x0, int y0, int w, int h) {
  int count = 0, min_x = 1 << 30, max_x = -1;
  std::vector<int> per_column(static_cast<std::size_t>(out.width()), 0);
  for (int y = 0; y < out.height(); ++y)
    for (int x = 0; x < out.width(); ++x) {
      if (out(x, y) == 0) continue;
      ++count;
      EXPECT_TRUE(x >= x0 && x < x0 + w && y >= y0 && y < y0 + h) << "outside the rectangle at " << x << "," << y;
      EXPECT_TRUE(y == y0 + (h - 1) / 2 || y == y0 + h / 2) << "off the middle rows at " << x << "," << y;
      ++per_column[static_cast<std::size_t>(x)];
      min_x = std::min(min_x, x);
      max_x = std::max(max_x, x);
    }
  ASSERT_GT(count, 0);
  for (int c : per_column) EXPECT_LE(c, 1) << "thicker than one pixel";
  EXPECT_EQ(components(out), 1);
  EXPECT_EQ(count, max_x - min_x + 1) << "gaps in the segment";
  EXPECT_GE(count, w - h - 1);
  EXPECT_LE(std::abs((min_x - x0) - (x0 + w - 1 - max_x)), 1) << "not centred";
}

TEST(Thinning, FilledRectangleBecomesItsMiddleSegment) {
  HostImageU8 src(64, 48, 70);
  for (int y = 14; y < 34; ++y)
    for (int x = 12; x < 52; ++x) src(x, y) = 200;
  const auto [out, passes] = run_thinning(src, 100);
  SCOPED_TRACE(show(out));
  expect_thin_middle_segment(out, 12, 14, 40, 20);
  EXPECT_TRUE(test::images_equal(out, rectangle_skeleton(64, 48, 12, 14, 40, 20)));
  // h/2 passes peel it down to one row; one more finds nothing to delete.
  EXPECT_EQ(passes, 11);
}

TEST(Thinning, ConstantImageAboveThresholdIsTheRectangleSkeleton) {
  // Pixels outside count as background, so a constant image is a rectangle that fills it.
  for (const auto size : std::vector<test::Size>{{6, 3}, {17, 13}, {64, 48}, {640, 360}}) {
    SCOPED_TRACE(test::describe(size));
    const HostImageU8 src(size.w, size.h, size.w + 3, 180);
    const auto [out, passes] = run_thinning(src, 179);
    expect_thin_middle_segment(out, 0, 0, size.w, size.h);
    EXPECT_TRUE(test::images_equal(out, rectangle_skeleton(size.w, size.h, 0, 0, size.w, size.h)));
    EXPECT_EQ(passes, size.h / 2 + 1);
  }
  // Taller than wide: the same, transposed (13x17 gives column 6, rows 6..9).
  const auto [out, passes] = run_thinning(HostImageU8(13, 17, 0, 255), 0);
  HostImageU8 want(13, 17);
  for (int y = 6; y <= 9; ++y) want(6, y) = 255;
  EXPECT_TRUE(test::images_equal(out, want)) << show(out);
  EXPECT_EQ(passes, 7);
}

TEST(Thinning, LinesOneThickSurviveAndSkeletonsAreStable) {
  // A pixel on a one-pixel line has B = 2 and A = 2, an end has B = 1: nothing is removed.
  HostImageU8 src(20, 12);
  for (int x = 2; x < 18; ++x) src(x, 2) = 255;       // horizontal
  for (int i = 0; i < 6; ++i) src(3 + i, 5 + i) = 255;  // diagonal
  for (int y = 4; y < 11; ++y) src(15, y) = 255;       // vertical
  const auto [out, passes] = run_thinning(src, 127);
  EXPECT_TRUE(test::images_equal(out, src)) << show(out);
  EXPECT_EQ(passes, 1);
  // A skeleton thinned again is unchanged.
  const HostImageU8 blobs = test::blob_image(64, 48, 350);
  const auto [skeleton, first_passes] = run_thinning(blobs, 80);
  EXPECT_GT(first_passes, 1);
  const auto [again, again_passes] = run_thinning(skeleton, 127);
  EXPECT_TRUE(test::images_equal(again, skeleton));
  EXPECT_EQ(again_passes, 1);
}

TEST(Thinning, CallsOfOtherSizesInBetweenChangeNothing) {
  // Buffers are reused from call to call; nothing of an earlier call may leak into a later.
  const HostImageU8 src = test::blob_image(64, 48, 360);
  const int threshold = otsu_threshold(histogram(src.view()));
  Grid g = binarized(src, threshold);
  const int want_passes = naive_zhang_suen(g);
  const HostImageU8 want = to_image(g, 64, 48, 255);
  for (const auto size : std::vector<test::Size>{{200, 100}, {5, 3}, {64, 48}, {640, 360}}) {
    SCOPED_TRACE("after " + test::describe(size));
    run_thinning(test::random_image(size.w, size.h, 361), 60);  // mostly foreground: long lists
    const auto [got, passes] = run_thinning(src, threshold);
    EXPECT_TRUE(test::images_equal(got, want));
    EXPECT_EQ(passes, want_passes);
  }
}

}  // namespace
}  // namespace fp::cpu
