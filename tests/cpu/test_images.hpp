// Test images for tests/cpu: seeded random planes, planes with pitch != width whose padding
// is watched for stray writes, and the sizes every operation is checked on.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/host_image.hpp"

namespace fp::test {

struct Size {
  int w;
  int h;
};

// The odd sizes (1x1, 2x2, 17x13), a small one and a real one.
// The largest is 640x360, or 320x180 under a sanitizer (FRAMEPIPE_SMALL_SIZES, which the
// presets set): the same tiles and bands on a quarter of the pixels, where each pixel costs
// ten times as much; the release run keeps 640x360.
inline const std::vector<Size> kSizes = {{1, 1}, {2, 2}, {17, 13}, {64, 48},
                                         std::getenv("FRAMEPIPE_SMALL_SIZES") != nullptr ? Size{320, 180}
                                                                                        : Size{640, 360}};

inline std::string describe(Size size) { return std::to_string(size.w) + "x" + std::to_string(size.h); }

// Padding bytes get this value, so that a write past the row end shows.
constexpr std::uint8_t kPadByte = 0xA5;

// An image with pitch = width + extra, its padding filled with kPadByte.
inline HostImageU8 pitched_image(int w, int h, int extra = 7) { return HostImageU8(w, h, w + extra, kPadByte); }

// Uniform random pixels. mt19937's raw output is specified by the standard, unlike the
// distributions, so the same seed gives the same image everywhere.
inline HostImageU8 random_image(int w, int h, std::uint32_t seed, int extra = 5) {
  HostImageU8 image = pitched_image(w, h, extra);
  std::mt19937 rng(seed);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) image(x, y) = static_cast<std::uint8_t>(rng() >> 24);
  return image;
}

// A smooth random landscape (a few random blobs plus mild noise): thresholding it gives
// shapes with thick and thin parts, holes and several components, unlike white noise.
inline HostImageU8 blob_image(int w, int h, std::uint32_t seed, int extra = 3) {
  HostImageU8 image = pitched_image(w, h, extra);
  std::mt19937 rng(seed);
  auto uniform = [&rng](double lo, double hi) { return lo + (hi - lo) * (rng() / 4294967296.0); };
  struct Blob {
    double x, y, r, a;
  };
  std::vector<Blob> blobs;
  const double scale = std::max(2.0, std::min(w, h) / 4.0);
  for (int i = 0; i < 12; ++i)
    blobs.push_back({uniform(0, w), uniform(0, h), uniform(0.3, 1.2) * scale, uniform(-120, 160)});
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double v = 60;
      for (const Blob& b : blobs) {
        const double d2 = ((x - b.x) * (x - b.x) + (y - b.y) * (y - b.y)) / (b.r * b.r);
        v += b.a * std::exp(-d2);
      }
      v += uniform(-10, 10);
      image(x, y) = static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L));
    }
  return image;
}

// Copies the pixels of any view into a tightly packed image (for comparisons).
template <class T>
HostImage<std::remove_const_t<T>> copy_of(ImageView<T> view) {
  HostImage<std::remove_const_t<T>> image(view.width, view.height);
  for (int y = 0; y < view.height; ++y)
    for (int x = 0; x < view.width; ++x) image(x, y) = view(x, y);
  return image;
}

// Checks that nothing was written into the padding of an image made by pitched_image.
inline void expect_padding_untouched(const HostImageU8& image, int extra) {
  const ImageView<const std::uint8_t> view = image.view();
  int bad = 0;
  for (int y = 0; y < view.height; ++y)
    for (int x = view.width; x < view.width + extra; ++x)
      if (view.row(y)[x] != kPadByte) ++bad;
  EXPECT_EQ(bad, 0) << "bytes written into the row padding";
}

// Counts pixels that differ, and reports the first one.
inline ::testing::AssertionResult images_equal(const HostImageU8& got, const HostImageU8& want) {
  if (got.width() != want.width() || got.height() != want.height())
    return ::testing::AssertionFailure() << "sizes differ";
  long differing = 0;
  int first_x = 0, first_y = 0;
  for (int y = 0; y < got.height(); ++y)
    for (int x = 0; x < got.width(); ++x)
      if (got(x, y) != want(x, y) && differing++ == 0) {
        first_x = x;
        first_y = y;
      }
  if (differing == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << differing << " pixels differ, first at (" << first_x << "," << first_y
                                       << "): got " << int{got(first_x, first_y)} << ", want "
                                       << int{want(first_x, first_y)};
}

}  // namespace fp::test
