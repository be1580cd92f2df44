// `framepipe bench --pipeline`: one stream of a pipeline measured on a real run (here on the
// CPU: its encoders are what a CPU machine runs out of), as a table and as the JSON whose
// `cost` serve --cost reads. The pipeline's own outputs are never written: the bench encodes
// into a temporary folder of its own, removed after.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/e2e/cli_runner.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::set<std::string> bench_scratch_folders() {
  std::set<std::string> found;
  const char* tmp = std::getenv("TMPDIR");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", ec))
    if (entry.path().filename().string().rfind("framepipe-bench-", 0) == 0) found.insert(entry.path().string());
  return found;
}

TEST(BenchPipelineCli, MeasuresAStreamAndSaysHowManyFit) {
  TempDir dir("bench-pipeline");
  std::ofstream(dir / "camera.yaml") << R"(device: cpu
input: testsrc://160x120@30?noise=5
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: out, type: encode, output: '{stream}.mkv', preset: ultrafast}
  - {id: hist, type: luma_histogram, input: smooth, output: null}
  - {id: rows, type: luma_histogram, input: smooth, output: precious.csv}
)";
  // A file the pipeline names, not an encode output: the bench writes its rows elsewhere
  // (it used to truncate this one and fill it with the bench's rows).
  std::ofstream(dir / "precious.csv") << "keep me\n";
  const auto before = bench_scratch_folders();
  const auto result = run_framepipe({"bench", "--pipeline", "camera.yaml", "--seconds", "1", "--json", "cost.json"}, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* line : {"per frame", "CPU, the whole process", "the 1 encoder", "per stream at 30.00 fps",
                           "cpu_encode", "this machine carries"})
    EXPECT_NE(result.output.find(line), std::string::npos) << line << "\n" << result.output;

  std::ifstream in(dir / "cost.json");
  const json doc = json::parse(in);
  EXPECT_EQ(doc["device"], "cpu");
  EXPECT_EQ(doc["encoders"], 1);
  EXPECT_GT(doc["frames"].get<int>(), 10);
  const json& cost = doc["cost"];
  EXPECT_DOUBLE_EQ(cost["fps"].get<double>(), 30.0);  // the input's own rate
  EXPECT_GT(cost["cpu_ms"].get<double>(), 0.0);
  EXPECT_EQ(cost["gpu_ms"].get<double>(), 0.0);
  EXPECT_GE(cost["host_bytes"].get<double>(), 0.0);
  EXPECT_TRUE(doc["cpu_ms"]["encoders"].is_number()) << doc.dump(2);
  // The count is the budget over a stream's cores, here where the cores run out first.
  const double each = cost["cpu_ms"].get<double>() / 1000 * 30;
  const double budget = doc["budget"]["cpu_encode"].get<double>();
  EXPECT_EQ(doc["limited_by"], "cpu_encode") << doc.dump(2);
  EXPECT_EQ(doc["streams"].get<int>(), static_cast<int>(budget / each * (1 + 1e-9))) << doc.dump(2);
  EXPECT_TRUE(doc["budget"]["gpu"].is_null());  // no GPU, no GPU budget

  // Nothing of the pipeline's own outputs, and no scratch folder left behind.
  EXPECT_FALSE(fs::exists(dir / "out.mkv"));
  EXPECT_FALSE(fs::exists(dir / "input.mkv"));
  std::ifstream precious(dir / "precious.csv");
  std::string kept((std::istreambuf_iterator<char>(precious)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "keep me\n");
  // output: null is no file (it used to create one named null).
  EXPECT_FALSE(fs::exists(dir / "null"));
  EXPECT_EQ(bench_scratch_folders(), before);
}

TEST(BenchPipelineCli, APipelineThatCannotRunIsAnErrorNamingIt) {
  TempDir dir("bench-pipeline-bad");
  auto result = run_framepipe({"bench", "--pipeline", "missing.yaml", "--seconds", "1"}, dir.path());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("missing.yaml"), std::string::npos) << result.output;
  result = run_framepipe({"bench", "--pipeline", "missing.yaml", "--seconds", "0"}, dir.path());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--seconds"), std::string::npos) << result.output;
}

// run --cost: live inputs that the budget cannot carry together are refused before anything
// runs, naming how many fit; file inputs wait until their cost fits (one at a time here).
TEST(BenchPipelineCli, RunAdmitsItsStreamsByCost) {
  TempDir dir("run-cost");
  std::ofstream(dir / "smooth.yaml") << R"(device: cpu
input: testsrc://64x48@30?frames=0
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: out, type: encode, output: '{stream}.mkv', preset: ultrafast}
)";
  // A stream of it costs one core (as a bench --pipeline result says it: 33.3 ms a frame at 30 fps).
  std::ofstream(dir / "cost.json")
      << R"({"cost": {"fps": 30, "cpu_ms": 33.333333, "gpu_ms": 0, "host_bytes": 1e6, "device_bytes": 0}})";
  const std::vector<std::string> live = {"run", "smooth.yaml", "-i", "testsrc://64x48@30?frames=0&noise=1",
                                         "-i", "testsrc://64x48@30?frames=0&noise=2", "-i",
                                         "testsrc://64x48@30?frames=0&noise=3", "--cost", "cost.json"};
  auto args = live;
  args.insert(args.end(), {"--cpu-budget", "2"});
  // Bounded: were the refusal gone, three endless inputs would run for ever (exit 124 here).
  auto result = run_framepipe_with_timeout(args, dir.path(), static_cast<int>(time_bound(30)));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--cost cost.json: 3 of the inputs are live"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("carries 2 such streams (cpu_encode runs out first"), std::string::npos)
      << result.output;
  EXPECT_FALSE(fs::exists(dir / "noise1.mkv"));

  // Files: three, a core each, one core of budget: one at a time, every one written.
  result = run_framepipe({"run", "smooth.yaml", "-i", "testsrc://64x48@30?frames=4&noise=1", "-i",
                          "testsrc://64x48@30?frames=4&noise=2", "-i", "testsrc://64x48@30?frames=4&noise=3",
                          "--cost", "cost.json", "--cpu-budget", "1", "--stats-json", "stats.json", "-q"},
                         dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::ifstream in(dir / "stats.json");
  const json stats = json::parse(in);
  EXPECT_EQ(stats["max_concurrent_streams"], 1) << stats.dump(2);
  EXPECT_EQ(stats["streams"].size(), 3u);
  for (const auto& stream : stats["streams"]) EXPECT_EQ(stream["frames"], 4) << stats.dump(2);
}

}  // namespace
}  // namespace fp::test
