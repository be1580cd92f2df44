// The CUDA backend's parameter limits at the command line: `validate --device cuda:0` and
// `run` on CUDA refuse a value the kernel cannot take with exit 2 and FILE:LINE:COL, before
// any output exists — also in a build without CUDA, where the limits are still known.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/e2e/cli_runner.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

const char* const kLargeRadius = R"(input: testsrc://64x48@25?frames=3
stages:
  - {id: hist, type: luma_histogram, output: hist.jsonl}
  - {id: smooth, type: mean_smooth, radius: 40}
  - {id: out, type: encode, output: out.mp4}
)";

void write_pipeline(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

void expect_radius_refused(const CommandResult& result) {
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("p.yaml:4:45: stages[1].radius: must be <= 32 on a CUDA device (got 40)"),
            std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("--device cpu"), std::string::npos) << result.output;
}

TEST(DeviceLimitsCli, ValidateForCudaAppliesTheKernelsLimitWithOrWithoutAGpu) {
  TempDir dir("limits-validate");
  write_pipeline(dir / "p.yaml", kLargeRadius);
  expect_radius_refused(run_framepipe({"validate", "p.yaml", "--device", "cuda:0"}, dir.path()));
  expect_radius_refused(run_framepipe({"validate", "p.yaml", "--device", "cuda"}, dir.path()));
  const auto cpu = run_framepipe({"validate", "p.yaml", "--device", "cpu"}, dir.path());
  EXPECT_EQ(cpu.exit_code, 0) << cpu.output;
}

TEST(DeviceLimitsCli, RunForCudaIsRefusedBeforeAnyOutputExists) {
  TempDir dir("limits-run");
  write_pipeline(dir / "p.yaml", std::string("device: cuda:0\n") + kLargeRadius);
  const auto result = run_framepipe({"run", "p.yaml"}, dir.path());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("p.yaml:5:45: stages[1].radius: must be <= 32 on a CUDA device"), std::string::npos)
      << result.output;
  EXPECT_FALSE(fs::exists(dir / "out.mp4"));
  EXPECT_FALSE(fs::exists(dir / "hist.jsonl"));
  // --set lowers it to the limit: then only the device itself can be missing.
  const auto fixed = run_framepipe({"validate", "p.yaml", "--set", "smooth.radius=32"}, dir.path());
  EXPECT_EQ(fixed.output.find("radius"), std::string::npos) << fixed.output;
  // Valid where a GPU is present; without one, the device is the one error (exit 2, named),
  // never a crash.
  if (cli_cuda_device().empty()) {
    EXPECT_EQ(fixed.exit_code, 2) << fixed.output;
    EXPECT_NE(fixed.output.find("cuda"), std::string::npos) << fixed.output;
  } else {
    EXPECT_EQ(fixed.exit_code, 0) << fixed.output;
  }
}

// On a machine with a GPU, `device: auto` resolves to it, so its limits apply.
TEST(DeviceLimitsCli, AutoOnAGpuAppliesTheCudaLimits) {
  FP_REQUIRE_CLI_GPU();
  TempDir dir("limits-auto");
  write_pipeline(dir / "p.yaml", kLargeRadius);
  const auto result = run_framepipe({"run", "p.yaml"}, dir.path());
  expect_radius_refused(result);
  EXPECT_FALSE(fs::exists(dir / "out.mp4"));
}

TEST(DeviceLimitsCli, StagesShowsTheCudaLimit) {
  const auto result = run_framepipe({"stages", "mean_smooth"});
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("[1, 1024]; cuda <= 32"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace fp::test
