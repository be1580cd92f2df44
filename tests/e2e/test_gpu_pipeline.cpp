// The same pipelines run on the CPU and on the GPU (through the CLI) must agree: histogram
// rows identical, mean_smooth, thinning, tile and pyramid_fusion bit-identical, nlmeans and
// temporal_nlmeans within one gray level (their float weights may round differently near a
// .5; nothing else reads their output, since a one-level difference going into max_energy's
// choice could move a fused sample by more), and the same frames with the same timestamps.
// temporal_nlmeans' history crosses the GPU run's slots. Skipped where no CUDA device is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "media/frame_source.hpp"
#include "tests/e2e/cli_runner.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

// Every stage's output as bit-exact y4m, so that each can be compared on its own.
std::string pipeline_yaml(const std::string& input) {
  return "device: auto\n"
         "input: " + input + "\n"
         "stages:\n"
         "  - {id: hist,    type: luma_histogram, output: hist.jsonl}\n"
         "  - {id: denoise, type: nlmeans, input: input, h: 12, patch: 7, search: 21}\n"
         "  - {id: tdenoise, type: temporal_nlmeans, input: input, h: 12, frames: 2}\n"
         "  - {id: smooth,  type: mean_smooth, input: input, radius: 3}\n"
         "  - {id: fused,   type: pyramid_fusion, inputs: [input, smooth], levels: 5, rule: max_energy}\n"
         "  - {id: skel,    type: thinning, input: smooth, threshold: otsu}\n"
         "  - {id: fixed,   type: thinning, input: input, threshold: 100}\n"
         "  - {id: grid,    type: tile, inputs: [input, smooth, skel], columns: 2}\n"
         "  - {id: e1, type: encode, input: denoise, output: denoise.y4m}\n"
         "  - {id: e2, type: encode, input: fused,   output: fused.y4m}\n"
         "  - {id: e3, type: encode, input: smooth,  output: smooth.y4m}\n"
         "  - {id: e4, type: encode, input: skel,    output: skel.y4m}\n"
         "  - {id: e5, type: encode, input: fixed,   output: fixed.y4m}\n"
         "  - {id: e6, type: encode, input: input,   output: input.y4m}\n"
         "  - {id: e7, type: encode, input: grid,    output: grid.y4m}\n"
         "  - {id: e8, type: encode, input: tdenoise, output: tdenoise.y4m}\n";
}

std::vector<Frame> read_all(const fs::path& file) {
  auto source = open_source(file.string());
  std::vector<Frame> frames;
  while (auto frame = source->read()) frames.push_back(std::move(*frame));
  return frames;
}

std::vector<std::string> read_lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The largest difference between two frames' planes; -1 when their sizes differ.
int max_difference(const Frame& a, const Frame& b) {
  int worst = 0;
  for (std::size_t p = 0; p < a.planes.size(); ++p) {
    const auto va = a.planes[p].cview();
    const auto vb = b.planes[p].cview();
    if (va.width != vb.width || va.height != vb.height) return -1;
    for (int y = 0; y < va.height; ++y)
      for (int x = 0; x < va.width; ++x) worst = std::max(worst, std::abs(int(va.row(y)[x]) - int(vb.row(y)[x])));
  }
  return worst;
}

class GpuMatchesCpu : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuMatchesCpu, EveryStageAgrees) {
  FP_REQUIRE_CLI_GPU();
  constexpr int kComparedFrames = 5;
  TempDir cpu_dir("gpu-cpu");
  TempDir gpu_dir("gpu-cuda");
  for (const auto* dir : {&cpu_dir, &gpu_dir}) {
    std::ofstream(*dir / "p.yaml") << pipeline_yaml(GetParam());
    const std::string device = dir == &cpu_dir ? "cpu" : cli_cuda_device();
    const auto result = run_framepipe({"run", "p.yaml", "--device", device, "--frames", std::to_string(kComparedFrames),
                                       "--stats-json", "stats.json", "--quiet"},
                                      dir->path());
    ASSERT_EQ(result.exit_code, 0) << device << ": " << result.output;
  }

  std::ifstream stats_file(gpu_dir / "stats.json");
  const auto stats = nlohmann::json::parse(stats_file);
  EXPECT_EQ(stats["device"], cli_cuda_device());
  EXPECT_EQ(stats["frames"], kComparedFrames);

  EXPECT_EQ(read_lines(cpu_dir / "hist.jsonl"), read_lines(gpu_dir / "hist.jsonl"));

  const std::vector<std::pair<std::string, int>> outputs = {
      {"input.y4m", 0}, {"smooth.y4m", 0}, {"skel.y4m", 0}, {"fixed.y4m", 0}, {"grid.y4m", 0}, {"fused.y4m", 0},
      {"denoise.y4m", 1}, {"tdenoise.y4m", 1}};
  for (const auto& [name, tolerance] : outputs) {
    const auto cpu = read_all(cpu_dir / name);
    const auto gpu = read_all(gpu_dir / name);
    ASSERT_EQ(cpu.size(), static_cast<std::size_t>(kComparedFrames)) << name;
    ASSERT_EQ(gpu.size(), cpu.size()) << name;
    for (std::size_t i = 0; i < cpu.size(); ++i) {
      EXPECT_EQ(gpu[i].pts, cpu[i].pts) << name << " frame " << i;
      const int diff = max_difference(cpu[i], gpu[i]);
      EXPECT_GE(diff, 0) << name << " frame " << i << ": sizes differ";
      EXPECT_LE(diff, tolerance) << name << " frame " << i;
    }
  }
}

// Odd sizes exercise every kernel's borders; 640x360 with several frames in flight the slots.
INSTANTIATE_TEST_SUITE_P(Sizes, GpuMatchesCpu,
                         ::testing::Values("testsrc://161x97@25?noise=20&frames=8",
                                           "testsrc://640x360@30?noise=20&frames=8"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return param_info.index == 0 ? std::string("odd_161x97") : std::string("640x360");
                         });

// A long run through the GPU path keeps every frame, in order, with its timestamps.
TEST(GpuPipeline, KeepsEveryFrameInOrder) {
  FP_REQUIRE_CLI_GPU();
  TempDir dir("gpu-order");
  std::ofstream(dir / "p.yaml") << "input: testsrc://320x240@30?noise=10&frames=40\n"
                                   "stages:\n"
                                   "  - {id: hist, type: luma_histogram, output: h.jsonl}\n"
                                   "  - {id: s, type: mean_smooth, input: hist, radius: 1}\n"
                                   "  - {id: e, type: encode, input: s, output: out.y4m}\n";
  const auto result = run_framepipe({"run", "p.yaml", "--device", cli_cuda_device(), "--quiet"}, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto frames = read_all(dir / "out.y4m");
  ASSERT_EQ(frames.size(), 40u);
  for (std::size_t i = 1; i < frames.size(); ++i) EXPECT_GT(frames[i].pts, frames[i - 1].pts) << i;
  const auto rows = read_lines(dir / "h.jsonl");
  ASSERT_EQ(rows.size(), 40u);
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(nlohmann::json::parse(rows[i])["frame"], i);
}

// A parameter the CUDA kernel cannot take is a configuration error (exit 2) where it was
// written, before any output exists.
TEST(GpuPipeline, RadiusBeyondTheKernelIsRefused) {
  FP_REQUIRE_CLI_GPU();
  TempDir dir("gpu-radius");
  std::ofstream(dir / "p.yaml") << "input: testsrc://64x48@30?frames=2\n"
                                   "stages:\n"
                                   "  - {id: wide, type: mean_smooth, radius: 40}\n"
                                   "  - {id: e, type: encode, input: wide, output: out.y4m}\n";
  const auto result = run_framepipe({"run", "p.yaml", "--device", cli_cuda_device()}, dir.path());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("p.yaml:3:43: stages[0].radius: must be <= 32 on a CUDA device (got 40)"),
            std::string::npos)
      << result.output;
  EXPECT_FALSE(fs::exists(dir / "out.y4m"));
}

}  // namespace
}  // namespace fp::test
