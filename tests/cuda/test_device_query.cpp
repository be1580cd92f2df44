#include <gtest/gtest.h>

#include "tests/cuda/gpu_test.hpp"

namespace {

TEST(CudaDevice, CountNeverThrows) { EXPECT_GE(fp::cuda::device_count(), 0); }

TEST(CudaDevice, DescribesEveryDevice) {
  FP_REQUIRE_GPU();
  for (int i = 0; i < fp::cuda::device_count(); ++i) {
    const auto d = fp::cuda::describe_device(i);
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.compute_major, 5);
    EXPECT_GT(d.multiprocessors, 0);
    EXPECT_GT(d.memory_bytes, 0u);
  }
}

TEST(CudaDevice, UnknownOrdinalThrowsNamingIt) {
  try {
    fp::cuda::describe_device(fp::cuda::device_count() + 3);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cuda:"), std::string::npos);
  }
}

}  // namespace
