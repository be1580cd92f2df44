// split_chroma against the obvious loop: every U and V byte of an interleaved plane lands
// unchanged in its own plane, at every size the kernels are checked on.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda/split_chroma.hpp"
#include "tests/cuda/cuda_test_util.hpp"
#include "tests/cuda/gpu_test.hpp"

namespace fp::test {
namespace {

TEST(SplitChromaCuda, CopiesEachSampleToItsPlane) {
  FP_REQUIRE_GPU();
  for (const auto& size : kernel_test_sizes()) {
    // The interleaved plane: 2*width bytes a row, as NVDEC writes NV12's second plane.
    const HostImageU8 interleaved = random_image(2 * size.width, size.height, 77u + size.width, size.pitch_extra);
    const auto device_uv = to_device(interleaved);
    cuda::DeviceImage<std::uint8_t> u(size.width, size.height);
    cuda::DeviceImage<std::uint8_t> v(size.width, size.height);
    cuda::split_chroma(device_uv.view().data, device_uv.view().pitch, u.view(), v.view(), nullptr);
    FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    const HostImageU8 host_u = to_host(u);
    const HostImageU8 host_v = to_host(v);
    HostImageU8 expected_u(size.width, size.height);
    HostImageU8 expected_v(size.width, size.height);
    for (int y = 0; y < size.height; ++y)
      for (int x = 0; x < size.width; ++x) {
        expected_u(x, y) = interleaved(2 * x, y);
        expected_v(x, y) = interleaved(2 * x + 1, y);
      }
    std::string where;
    EXPECT_EQ(max_abs_difference(host_u, expected_u, &where), 0) << size.width << "x" << size.height << " U " << where;
    EXPECT_EQ(max_abs_difference(host_v, expected_v, &where), 0) << size.width << "x" << size.height << " V " << where;
  }
}

// Planes whose pitch is no multiple of the width nor of any alignment, and rows that start
// at addresses aligned to nothing but what the format needs (a pair: the interleaved plane's
// pitch and start are even, its pitch otherwise arbitrary; U and V at odd pitches and
// addresses): every sample in its place, nothing written into the pitch padding or around.
TEST(SplitChromaCuda, OddDevicePitchesAndUnalignedRows) {
  FP_REQUIRE_GPU();
  struct Case {
    int width;
    int height;
    int uv_pitch_extra;  // even
    int uv_offset;       // even
    int plane_pitch_extra;
    int plane_offset;
  };
  for (const Case& c : std::vector<Case>{{1, 1, 2, 2, 1, 1},
                                         {17, 13, 6, 2, 3, 5},
                                         {64, 48, 2, 6, 1, 3},
                                         {97, 61, 14, 10, 7, 1},
                                         {320, 181, 30, 254, 33, 7}}) {
    const HostImageU8 interleaved = random_image(2 * c.width, c.height, 91u + c.width);
    PaddedDeviceImage<std::uint8_t> uv(2 * c.width, c.height, 2 * c.width + c.uv_pitch_extra, c.uv_offset);
    cuda::upload(interleaved.view(), uv.view, nullptr);
    PaddedDeviceImage<std::uint8_t> u(c.width, c.height, c.width + c.plane_pitch_extra, c.plane_offset);
    PaddedDeviceImage<std::uint8_t> v(c.width, c.height, c.width + c.plane_pitch_extra + 2, c.plane_offset + 2);
    cuda::split_chroma(uv.view.data, uv.view.pitch, u.view, v.view, nullptr);
    FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    HostImageU8 expected_u(c.width, c.height);
    HostImageU8 expected_v(c.width, c.height);
    for (int y = 0; y < c.height; ++y)
      for (int x = 0; x < c.width; ++x) {
        expected_u(x, y) = interleaved(2 * x, y);
        expected_v(x, y) = interleaved(2 * x + 1, y);
      }
    const std::string what = std::to_string(c.width) + "x" + std::to_string(c.height) + " uv pitch " +
                             std::to_string(uv.view.pitch) + " offset " + std::to_string(c.uv_offset);
    std::string where;
    EXPECT_EQ(max_abs_difference(to_host(ConstImageU8(u.view)), expected_u, &where), 0) << what << " U " << where;
    EXPECT_EQ(max_abs_difference(to_host(ConstImageU8(v.view)), expected_v, &where), 0) << what << " V " << where;
    EXPECT_EQ(u.bytes_outside_changed(), 0) << what << ": U written outside its plane";
    EXPECT_EQ(v.bytes_outside_changed(), 0) << what << ": V written outside its plane";
    EXPECT_EQ(uv.bytes_outside_changed(), 0) << what << ": the source was written";
  }
}

TEST(SplitChromaCuda, RefusesAnOddPitch) {
  FP_REQUIRE_GPU();
  cuda::DeviceImage<std::uint8_t> uv(8, 2);
  cuda::DeviceImage<std::uint8_t> u(4, 2);
  cuda::DeviceImage<std::uint8_t> v(4, 2);
  EXPECT_THROW(cuda::split_chroma(uv.view().data, 7, u.view(), v.view(), nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace fp::test
