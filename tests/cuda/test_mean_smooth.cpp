// cuda::mean_smooth against cpu::mean_smooth, byte for byte: the standard sizes, every radius
// on several sizes, adversarial images (the largest sums, isolated pixels), any pitch and
// alignment of source and destination, repeated calls and two streams at once.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/mean_smooth.hpp"
#include "cuda/device_image.hpp"
#include "cuda/mean_smooth.hpp"
#include "cuda/stream.hpp"
#include "tests/cuda/cuda_test_util.hpp"
#include "tests/cuda/gpu_test.hpp"

namespace fp::cuda {
namespace {

HostImageU8 cpu_smooth(const HostImageU8& src, int radius) {
  HostImageU8 dst(src.width(), src.height());
  cpu::mean_smooth(src.view(), dst.view(), radius);
  return dst;
}

HostImageU8 gpu_smooth(const HostImageU8& src, int radius) {
  const auto device_src = test::to_device(src);
  DeviceImage<std::uint8_t> device_dst(src.width(), src.height());
  mean_smooth(device_src.view(), device_dst.view(), radius, nullptr);
  return test::to_host(device_dst);
}

std::string describe(const HostImageU8& image, int radius) {
  return std::to_string(image.width()) + "x" + std::to_string(image.height()) + " r=" + std::to_string(radius);
}

void expect_matches_cpu(const HostImageU8& src, int radius, const std::string& what = "") {
  std::string where;
  EXPECT_EQ(test::max_abs_difference(gpu_smooth(src, radius), cpu_smooth(src, radius), &where), 0)
      << describe(src, radius) << " " << what << ": first worst at " << where;
}

HostImageU8 pattern(int width, int height, int kind) {
  HostImageU8 image(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      int v = 0;
      switch (kind) {
        case 0: v = 255; break;                                      // the largest sums
        case 1: v = 0; break;
        case 2: v = (x == width / 2 && y == height / 3) ? 255 : 0; break;  // one bright pixel
        case 3: v = ((x + y) % 2) * 255; break;                      // checkerboard
        case 4: v = (x % 3 == 0) ? 255 : 0; break;                   // vertical stripes
        case 5: v = (y % 5 == 0) ? 255 : 0; break;                   // horizontal stripes
        default: v = (x == 0 || y == 0 || x == width - 1 || y == height - 1) ? 255 : 0;  // bright border
      }
      image(x, y) = static_cast<std::uint8_t>(v);
    }
  return image;
}
constexpr int kPatterns = 7;

TEST(MeanSmoothCuda, MatchesCpuOnTestSizes) {
  FP_REQUIRE_GPU();
  std::uint32_t seed = 1;
  for (const auto& size : test::kernel_test_sizes()) {
    const HostImageU8 src = test::random_image(size.width, size.height, seed++, size.pitch_extra);
    for (int radius : {1, 2, 3, 5, 8, 15, 16, 17, 32}) expect_matches_cpu(src, radius);
  }
}

TEST(MeanSmoothCuda, EveryRadiusOnSeveralSizes) {
  FP_REQUIRE_GPU();
  // Mid size with a host pitch, a full HD frame, sizes smaller than the window and the tile,
  // and tile-edge sizes (128 x 32 tiles).
  const std::vector<test::TestSize> sizes = {{333, 211, 7}, {1920, 1080, 0}, {1, 1, 0},  {17, 13, 0}, {1, 100, 0},
                                             {100, 1, 0},   {5, 3, 0},       {128, 32, 0}, {129, 33, 0}, {127, 31, 2}};
  std::uint32_t seed = 50;
  for (const auto& size : sizes) {
    const HostImageU8 src = test::random_image(size.width, size.height, seed++, size.pitch_extra);
    for (int radius = 1; radius <= kMeanSmoothMaxRadius; ++radius) expect_matches_cpu(src, radius);
  }
}

TEST(MeanSmoothCuda, AdversarialImagesEveryRadius) {
  FP_REQUIRE_GPU();
  for (int kind = 0; kind < kPatterns; ++kind) {
    const HostImageU8 src = pattern(150, 97, kind);
    for (int radius = 1; radius <= kMeanSmoothMaxRadius; ++radius)
      expect_matches_cpu(src, radius, "pattern " + std::to_string(kind));
  }
  // All 255 stays 255 for every radius: the largest sums divide back exactly.
  const HostImageU8 white = pattern(1920, 1080, 0);
  for (int radius = 1; radius <= kMeanSmoothMaxRadius; ++radius) {
    const HostImageU8 out = gpu_smooth(white, radius);
    std::string where;
    EXPECT_EQ(test::max_abs_difference(out, white, &where), 0) << "r=" << radius << " at " << where;
  }
}

TEST(MeanSmoothCuda, AnyPitchAndAlignment) {
  FP_REQUIRE_GPU();
  // Source and destination rows starting anywhere relative to 16-byte boundaries, pitches
  // that change the alignment from row to row, widths around the 16-byte and tile sizes.
  std::uint32_t seed = 200;
  for (int width : {1, 15, 16, 17, 130, 300})
    for (const auto& [src_offset, dst_offset] : std::vector<std::pair<int, int>>{{0, 0}, {1, 0}, {0, 3}, {7, 9}, {15, 15}})
      for (int pitch_extra : {0, 5, 16}) {
        const int height = 20 + static_cast<int>(seed % 19);
        const HostImageU8 src = test::random_image(width, height, seed++);
        test::PaddedDeviceImage<std::uint8_t> device_src(width, height, width + pitch_extra, src_offset);
        test::PaddedDeviceImage<std::uint8_t> device_dst(width, height, width + 2 * pitch_extra + 1, dst_offset);
        upload(src.view(), device_src.view, nullptr);
        for (int radius : {1, 4, 16, 32}) {
          mean_smooth(device_src.view, device_dst.view, radius, nullptr);
          HostImageU8 got(width, height);
          download(ConstImageU8(device_dst.view), got.view(), nullptr);
          FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
          std::string where;
          EXPECT_EQ(test::max_abs_difference(got, cpu_smooth(src, radius), &where), 0)
              << describe(src, radius) << " offsets " << src_offset << "/" << dst_offset << " pitch extra "
              << pitch_extra << " at " << where;
        }
      }
}

TEST(MeanSmoothCuda, RadiusZeroCopies) {
  FP_REQUIRE_GPU();
  const HostImageU8 src = test::random_image(333, 77, 9, 4);
  std::string where;
  EXPECT_EQ(test::max_abs_difference(gpu_smooth(src, 0), src, &where), 0) << where;
}

TEST(MeanSmoothCuda, EmptyImageDoesNothing) {
  FP_REQUIRE_GPU();
  EXPECT_NO_THROW(mean_smooth(ConstImageU8{nullptr, 0, 0, 0}, ImageU8{nullptr, 0, 0, 0}, 3, nullptr));
  EXPECT_NO_THROW(mean_smooth(ConstImageU8{nullptr, 5, 0, 5}, ImageU8{nullptr, 5, 0, 5}, 3, nullptr));
}

// Back-to-back calls on one stream, reusing the buffers, radius changing each time.
TEST(MeanSmoothCuda, RepeatedCalls) {
  FP_REQUIRE_GPU();
  const HostImageU8 src = test::random_image(1920, 1080, 31);
  const auto device_src = test::to_device(src);
  const std::vector<int> radii = {1, 15, 2, 32, 7, 1};
  std::vector<DeviceImage<std::uint8_t>> outs;
  for (std::size_t k = 0; k < radii.size(); ++k) outs.emplace_back(src.width(), src.height());
  DeviceImage<std::uint8_t> scratch(src.width(), src.height());
  for (std::size_t k = 0; k < radii.size(); ++k) {
    // The scratch buffer is rewritten with every radius before the kept output.
    mean_smooth(device_src.view(), scratch.view(), radii[(k + 1) % radii.size()], nullptr);
    mean_smooth(device_src.view(), outs[k].view(), radii[k], nullptr);
  }
  for (std::size_t k = 0; k < radii.size(); ++k) {
    std::string where;
    EXPECT_EQ(test::max_abs_difference(test::to_host(outs[k]), cpu_smooth(src, radii[k]), &where), 0)
        << "call " << k << " r=" << radii[k] << " at " << where;
  }
}

TEST(MeanSmoothCuda, TwoStreamsConcurrently) {
  FP_REQUIRE_GPU();
  const HostImageU8 a = test::random_image(3840, 2160, 41);
  const HostImageU8 b = pattern(1920, 1080, 3);
  const auto da = test::to_device(a);
  const auto db = test::to_device(b);
  DeviceImage<std::uint8_t> oa(a.width(), a.height());
  DeviceImage<std::uint8_t> ob(b.width(), b.height());
  Stream sa;
  Stream sb;
  for (int k = 0; k < 4; ++k) {
    mean_smooth(da.view(), oa.view(), 5, sa.get());
    mean_smooth(db.view(), ob.view(), 12, sb.get());
  }
  sa.synchronize();
  sb.synchronize();
  std::string where;
  EXPECT_EQ(test::max_abs_difference(test::to_host(oa), cpu_smooth(a, 5), &where), 0) << "stream a at " << where;
  EXPECT_EQ(test::max_abs_difference(test::to_host(ob), cpu_smooth(b, 12), &where), 0) << "stream b at " << where;
}

TEST(MeanSmoothCuda, RejectsBadArguments) {
  FP_REQUIRE_GPU();
  DeviceImage<std::uint8_t> src(32, 16);
  DeviceImage<std::uint8_t> dst(32, 16);
  DeviceImage<std::uint8_t> other(31, 16);
  EXPECT_THROW(mean_smooth(src.view(), dst.view(), -1, nullptr), std::invalid_argument);
  EXPECT_THROW(mean_smooth(src.view(), dst.view(), kMeanSmoothMaxRadius + 1, nullptr), std::invalid_argument);
  EXPECT_THROW(mean_smooth(src.view(), other.view(), 1, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace fp::cuda
