// Every pipeline in config/ runs through the CLI, and its outputs decode with the expected
// number of frames. New examples are picked up automatically.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "pipeline/config/loader.hpp"
#include "stages/registry.hpp"
#include "tests/e2e/cli_runner.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;
constexpr int kFrames = 4;

std::vector<std::string> example_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(fs::path(FRAMEPIPE_SOURCE_DIR) / "config"))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// (example file, "cpu" or "cuda"): every example runs on both backends.
class ExampleTest : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(ExampleTest, RunsAndItsOutputsHaveEveryFrame) {
  const fs::path file = std::get<0>(GetParam());
  std::string device = std::get<1>(GetParam());
  if (device == "cuda") {
    FP_REQUIRE_CLI_GPU();
    device = cli_cuda_device();
  }
  TempDir dir("example-" + file.stem().string() + "-" + std::get<1>(GetParam()));
  const auto definition = load_pipeline(file);

  std::vector<std::string> args = {"run", file.string(), "--frames", std::to_string(kFrames), "--stats-json",
                                   "stats.json", "--quiet", "--device", device};
  // Sources that are files or cameras (absent on a test machine) read the test source instead.
  for (const auto& stage : definition.stages) {
    if (stage.type == "decode" && stage.params.text("uri").rfind("testsrc://", 0) != 0)
      args.insert(args.end(), {"--set", stage.id + ".uri=testsrc://160x120@25?noise=15&frames=10"});
  }
  const auto result = run_framepipe(args, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;

  int outputs = 0;
  for (const auto& stage : definition.stages) {
    if (stage.type == "encode" && stage.params.text("output") != "null") {
      EXPECT_EQ(count_frames(dir / stage.params.text("output")), kFrames) << stage.id;
      ++outputs;
    } else if (stage.type == "luma_histogram") {
      const auto path = dir / stage.params.text("output");
      const bool csv = path.extension() == ".csv";
      EXPECT_EQ(count_lines(path), kFrames + (csv ? 1 : 0)) << stage.id;
      ++outputs;
    }
  }
  EXPECT_GT(outputs, 0) << "an example should produce something";

  std::ifstream stats_file(dir / "stats.json");
  const auto stats = nlohmann::json::parse(stats_file);
  EXPECT_EQ(stats["frames"], kFrames);
  EXPECT_EQ(stats["device"], device);
  EXPECT_EQ(stats["stages"].size(), definition.stages.size());
}

INSTANTIATE_TEST_SUITE_P(Config, ExampleTest,
                         ::testing::Combine(::testing::ValuesIn(example_files()), ::testing::Values("cpu", "cuda")),
                         [](const ::testing::TestParamInfo<ExampleTest::ParamType>& param_info) {
                           return fs::path(std::get<0>(param_info.param)).stem().string() + "_" +
                                  std::get<1>(param_info.param);
                         });

TEST(Examples, DefaultPipelineUsesEverySeedStage) {
  const auto definition = load_pipeline(fs::path(FRAMEPIPE_SOURCE_DIR) / "config" / "default.yaml");
  for (const auto& spec : stage_registry()) {
    const bool used = std::any_of(definition.stages.begin(), definition.stages.end(),
                                  [&](const StageDefinition& s) { return s.type == spec.type; });
    EXPECT_TRUE(used) << spec.type << " is missing from config/default.yaml";
  }
}

}  // namespace
}  // namespace fp::test
