// The GPU executor keeps every frame that a slot's work reads until that work is complete.
// The same pipeline runs on the CPU (the reference) and on the GPU, and every output frame
// must agree. Skipped where no CUDA device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cuda/spin.hpp"
#include "media/frame_source.hpp"
#include "pipeline/config/loader.hpp"
#include "pipeline/engine/executor.hpp"
#include "stages/stage.hpp"
#include "tests/cuda/gpu_test.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

std::vector<Frame> read_all(const fs::path& file) {
  auto source = open_source(file.string());
  std::vector<Frame> frames;
  while (auto frame = source->read()) frames.push_back(std::move(*frame));
  return frames;
}

struct Difference {
  int max = 0;               // largest difference of one sample
  double differing = 0;      // fraction of samples that differ
};

Difference compare(const Frame& a, const Frame& b) {
  Difference d;
  long long samples = 0;
  long long differing = 0;
  for (std::size_t p = 0; p < a.planes.size(); ++p) {
    const auto va = a.planes[p].cview();
    const auto vb = b.planes[p].cview();
    EXPECT_EQ(va.width, vb.width);
    EXPECT_EQ(va.height, vb.height);
    for (int y = 0; y < std::min(va.height, vb.height); ++y)
      for (int x = 0; x < std::min(va.width, vb.width); ++x) {
        const int diff = std::abs(int(va.row(y)[x]) - int(vb.row(y)[x]));
        d.max = std::max(d.max, diff);
        differing += diff != 0;
        ++samples;
      }
  }
  d.differing = samples > 0 ? static_cast<double>(differing) / static_cast<double>(samples) : 0.0;
  return d;
}

class GpuExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(FRAMEPIPE_BINARY_DIR) / "test-output" /
           ("gpu-executor-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "cpu");
    fs::create_directories(dir_ / "gpu");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // Runs `yaml` (its paths written as OUT/...) on the CPU into cpu/ and on cuda:0 into gpu/.
  void run_both(const std::string& yaml, const RunOptions& gpu_options) {
    for (const auto* device : {"cpu", "gpu"}) {
      std::string text = yaml;
      const std::string out = (dir_ / device).string() + "/";
      for (std::size_t at = 0; (at = text.find("OUT/", at)) != std::string::npos;) text.replace(at, 4, out);
      const auto definition = parse_pipeline(text, "test.yaml");
      const bool gpu = std::string(device) == "gpu";
      const auto stats = run_pipeline(definition, gpu ? Device{DeviceKind::Cuda, 0} : Device{},
                                      gpu ? gpu_options : RunOptions{});
      EXPECT_FALSE(stats.interrupted);
      (gpu ? gpu_stats_ : cpu_stats_) = stats;
    }
  }

  // Every frame of cpu/NAME and gpu/NAME, in order: at most `max_diff` apart in any sample,
  // and at most `max_differing` of the samples different at all.
  void expect_same_frames(const std::string& name, std::size_t frames, int max_diff, double max_differing) {
    const auto cpu = read_all(dir_ / "cpu" / name);
    const auto gpu = read_all(dir_ / "gpu" / name);
    ASSERT_EQ(cpu.size(), frames);
    ASSERT_EQ(gpu.size(), frames);
    int bad = 0;
    for (std::size_t i = 0; i < frames; ++i) {
      EXPECT_EQ(cpu[i].pts, gpu[i].pts) << name << " frame " << i;
      const auto d = compare(cpu[i], gpu[i]);
      if (d.max > max_diff || d.differing > max_differing) {
        ADD_FAILURE() << name << " frame " << i << ": largest difference " << d.max << ", "
                      << d.differing * 100 << "% of the samples differ";
        if (++bad == 5) return;  // enough to see the pattern
      }
    }
  }

  fs::path dir_;
  RunStats cpu_stats_;  // the last run_both's
  RunStats gpu_stats_;
};

// Deterministic: each slot's stream is held by a spin kernel right before the upload, so the
// copy from the decoder's page-locked frame is still pending long after the graph has moved
// on, while the source thread runs ahead decoding the next frames into its pool. If the
// executor let go of the source frame before the slot completed, the pool would hand the
// same buffer to the next frame and the device would copy the wrong picture.
TEST_F(GpuExecutorTest, UploadReadsTheSourceFrameEvenWhenTheCopyIsLate) {
  FP_REQUIRE_GPU();
  constexpr int kFrames = 24;
  RunOptions options;
  options.slots = 2;
  options.queue_depth = 4;
  options.hooks.before_upload = [](FrameContext& context) { cuda::spin(20000.0, context.stream); };
  // The input feeds no host sink (which would keep its buffer alive): only the device reads it.
  run_both("input: testsrc://320x240@30?noise=20&frames=" + std::to_string(kFrames) + R"(
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: out, type: encode, output: OUT/smooth.y4m}
)",
           options);
  expect_same_frames("smooth.y4m", kFrames, 0, 0.0);
}

// Realistic: three frames in flight, noisy 1080p through nlmeans, the input read only by the
// device; every output frame as the CPU makes it (nlmeans' float weights may round one gray
// level apart on at most 1% of the samples).
TEST_F(GpuExecutorTest, NlmeansInThreeSlotsMatchesTheCpuOnEveryFrame) {
  FP_REQUIRE_GPU();
  const int frames = small_sizes() ? 4 : 30;
  const std::string size = small_sizes() ? "96x64" : "1920x1080";
  RunOptions options;
  options.slots = 3;
  options.queue_depth = 4;
  run_both("input: testsrc://" + size + "@30?noise=20&frames=" + std::to_string(frames) + R"(
stages:
  - {id: denoise, type: nlmeans, h: 12, patch: 7, search: 21}
  - {id: out, type: encode, output: OUT/denoise.y4m}
)",
           options);
  expect_same_frames("denoise.y4m", static_cast<std::size_t>(frames), 1, 0.01);
}

std::vector<std::string> read_lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Every stage whose GPU result must equal the CPU's, bit for bit, through the executor with
// two frames in flight: luma_histogram's rows, mean_smooth, pyramid_fusion (its kernels
// repeat the CPU's float operations, unfused: cuda/pyramid_fusion.cu), thinning with Otsu's
// and a fixed threshold, and tile (2D copies, and the fill of its empty cell). An odd size,
// so that every kernel's right and bottom borders and tile's half chroma samples are in it.
// (nlmeans, whose float weights may round one level apart, is checked above and in
// tests/cuda/test_nlmeans.cpp; nothing here reads its output.)
TEST_F(GpuExecutorTest, EveryExactStageMatchesTheCpuOnEveryFrame) {
  FP_REQUIRE_GPU();
  constexpr int kFrames = 8;
  RunOptions options;
  options.slots = 2;
  options.queue_depth = 4;
  run_both("input: testsrc://161x97@30?noise=20&frames=" + std::to_string(kFrames) + R"(
stages:
  - {id: hist, type: luma_histogram, output: OUT/hist.jsonl}
  - {id: smooth, type: mean_smooth, input: hist, radius: 2}
  - {id: fused, type: pyramid_fusion, inputs: [input, smooth], levels: 4, rule: max_energy, gain: [1.0, 1.3, 1.2]}
  - {id: skel, type: thinning, input: smooth, threshold: otsu}
  - {id: fixed, type: thinning, input: input, threshold: 100}
  - {id: grid, type: tile, inputs: [input, fused, skel], columns: 2}
  - {id: e1, type: encode, input: smooth, output: OUT/smooth.y4m}
  - {id: e2, type: encode, input: fused, output: OUT/fused.y4m}
  - {id: e3, type: encode, input: skel, output: OUT/skel.y4m}
  - {id: e4, type: encode, input: fixed, output: OUT/fixed.y4m}
  - {id: e5, type: encode, input: grid, output: OUT/grid.y4m}
)",
           options);
  const auto cpu_rows = read_lines(dir_ / "cpu" / "hist.jsonl");
  EXPECT_EQ(cpu_rows.size(), static_cast<std::size_t>(kFrames));
  EXPECT_EQ(read_lines(dir_ / "gpu" / "hist.jsonl"), cpu_rows);
  for (const char* name : {"smooth.y4m", "fused.y4m", "skel.y4m", "fixed.y4m", "grid.y4m"})
    expect_same_frames(name, kFrames, 0, 0.0);
}

// The host side of a frame (pipeline/engine/host_copies): chroma that no stage changed neither
// goes up nor comes down (the sinks take the decoded frame's), thinning's neutral chroma is
// made on the host, and the two sinks of one node share one download — the outputs still
// the CPU's, byte for byte. 96x64: luma 6144 bytes a frame.
TEST_F(GpuExecutorTest, OnlyTheLumaStagesWroteCrossesPcieOncePerNode) {
  FP_REQUIRE_GPU();
  constexpr int kFrames = 6;
  constexpr std::int64_t kLuma = 96 * 64;
  run_both("input: testsrc://96x64@30?noise=20&frames=" + std::to_string(kFrames) + R"(
stages:
  - {id: smooth, type: mean_smooth, radius: 2}
  - {id: skel, type: thinning, input: smooth, threshold: otsu}
  - {id: a, type: encode, input: smooth, output: OUT/a.y4m}
  - {id: b, type: encode, input: smooth, output: OUT/b.y4m}
  - {id: c, type: encode, input: skel, output: OUT/c.y4m}
  - {id: d, type: encode, input: input, output: OUT/d.y4m}
)",
           RunOptions{});
  EXPECT_EQ(gpu_stats_.bytes_uploaded, kFrames * kLuma);        // the luma alone goes up
  EXPECT_EQ(gpu_stats_.bytes_downloaded, kFrames * 2 * kLuma);  // smooth's luma once, skel's once
  EXPECT_EQ(cpu_stats_.bytes_uploaded + cpu_stats_.bytes_downloaded, 0);
  for (const char* name : {"a.y4m", "b.y4m", "c.y4m", "d.y4m"}) expect_same_frames(name, kFrames, 0, 0.0);
}

// A stage that reads chroma (tile) still gets it on the device, and its chroma comes down.
TEST_F(GpuExecutorTest, ChromaGoesUpForAStageThatReadsIt) {
  FP_REQUIRE_GPU();
  constexpr int kFrames = 4;
  constexpr std::int64_t kLuma = 96 * 64;
  constexpr std::int64_t kFrame = kLuma + 2 * (48 * 32);
  run_both("input: testsrc://96x64@30?noise=20&frames=" + std::to_string(kFrames) + R"(
stages:
  - {id: smooth, type: mean_smooth, radius: 2}
  - {id: grid, type: tile, inputs: [input, smooth], columns: 2}
  - {id: e, type: encode, input: grid, output: OUT/grid.y4m}
)",
           RunOptions{});
  EXPECT_EQ(gpu_stats_.bytes_uploaded, kFrames * kFrame);
  const std::int64_t grid = gpu_stats_.bytes_downloaded / kFrames;  // the grid's whole frame
  EXPECT_GT(grid, 2 * kLuma);
  expect_same_frames("grid.y4m", kFrames, 0, 0.0);
}

}  // namespace
}  // namespace fp::test
