// Running out of device memory, in a test program of its own: it holds nearly all of the
// GPU's memory, so ctest runs it alone (RUN_SERIAL), never beside other GPU tests.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/device_image.hpp"
#include "media/frame_source.hpp"
#include "pipeline/config/loader.hpp"
#include "pipeline/engine/executor.hpp"
#include "tests/cuda/gpu_test.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

// Device memory runs out (another process holds nearly all of it; here the test itself):
// the run ends with an error that says so, names the device and the size it asked for, and
// the output that needed no device memory (the input, straight from the decoder) is
// finalized with the frames it received.
TEST(GpuOutOfMemory, IsAClearErrorAndOtherOutputsAreFinalized) {
  FP_REQUIRE_GPU();
  if (std::getenv("FRAMEPIPE_SMALL_SIZES") != nullptr) GTEST_SKIP() << "holds nearly all device memory, which a compute-sanitizer run needs itself";
  // Take everything but ~8 MiB, in 256 MiB pieces so that fragmentation cannot leave a
  // large free block behind.
  std::vector<cuda::CudaArray<std::uint8_t, cuda::DeviceMemory>> held;
  constexpr std::size_t kPiece = 256u << 20;
  constexpr std::size_t kLeave = 8u << 20;  // less than one 4K frame
  for (;;) {
    std::size_t free = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
    if (free <= kLeave) break;
    const std::size_t piece = std::min(kPiece, free - kLeave);
    if (piece < (2u << 20)) break;
    try {
      held.emplace_back(piece);
    } catch (const std::runtime_error&) {
      break;  // what is left is fragmented; good enough
    }
  }
  const fs::path dir = fs::path(FRAMEPIPE_BINARY_DIR) / "test-output" / "gpu-out-of-memory";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string yaml = "input: testsrc://3840x2160@30?frames=3\n"
                           "stages:\n"
                           "  - {id: denoise, type: nlmeans, input: input}\n"
                           "  - {id: out, type: encode, input: denoise, output: " + (dir / "denoise.y4m").string() + "}\n"
                           "  - {id: raw, type: encode, input: input, output: " + (dir / "input.y4m").string() + "}\n";
  const auto definition = parse_pipeline(yaml, "test.yaml");
  try {
    run_pipeline(definition, Device{DeviceKind::Cuda, 0}, RunOptions{});
    FAIL() << "expected the run to run out of device memory";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("cuda:0"), std::string::npos) << message;
    EXPECT_NE(message.find("MiB of device memory"), std::string::npos) << message;
  }
  held.clear();
  // Finalized: a readable file (what reached it before the failure is in it).
  EXPECT_NO_THROW(open_source((dir / "input.y4m").string()));
}

}  // namespace
}  // namespace fp::test
