// split_chroma against the obvious loop: every U and V byte of an interleaved plane lands
// unchanged in its own plane, at every size the kernels are checked on.
#include <gtest/gtest.h>

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

TEST(SplitChromaCuda, RefusesAnOddPitch) {
  FP_REQUIRE_GPU();
  cuda::DeviceImage<std::uint8_t> uv(8, 2);
  cuda::DeviceImage<std::uint8_t> u(4, 2);
  cuda::DeviceImage<std::uint8_t> v(4, 2);
  EXPECT_THROW(cuda::split_chroma(uv.view().data, 7, u.view(), v.view(), nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace fp::test
