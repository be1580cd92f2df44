// Several inputs in one process (-i repeated, or `inputs:`): each stream's outputs are
// exactly those of a run on that input alone, a failing stream fails alone (or, with
// --fail-fast, stops the others), and Ctrl-C finalizes every stream's outputs.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/background_run.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/media/test_media_files.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Raw outputs (y4m and histogram rows) so that equality is byte for byte.
void write_pipeline(const TempDir& dir) {
  std::ofstream(dir / "p.yaml") << "input: testsrc://96x64@25?frames=5\n"
                                   "stages:\n"
                                   "  - {id: denoise, type: nlmeans, search: 7}\n"
                                   "  - {id: smooth, type: mean_smooth, radius: 2}\n"
                                   "  - {id: out, type: encode, output: 'out/{stream}.y4m'}\n"
                                   "  - {id: hist, type: luma_histogram, input: input, output: 'out/{stream}.csv'}\n";
  fs::create_directories(dir / "out");
}

const std::vector<std::string> kInputs = {"testsrc://96x64@25?frames=12&noise=10", "testsrc://96x64@25?frames=7&noise=30",
                                          "testsrc://96x64@25?frames=9", "testsrc://96x64@25?frames=15&noise=5"};

// GPUs that `framepipe --version` lists (cuda:0 cuda:1 ...).
int cli_gpu_count() {
  const std::string version = run_framepipe({"--version"}).output;
  int count = 0;
  while (version.find("cuda:" + std::to_string(count) + " ") != std::string::npos) ++count;
  return count;
}

// `device` for the run on all inputs; each input alone runs on `alone_device` (the same
// device unless given).
void expect_streams_match_separate_runs(const std::string& device, std::string alone_device = {}) {
  if (alone_device.empty()) alone_device = device;
  TempDir dir("streams-match-" + device.substr(0, 4) + (device == "cuda:all" ? "-all" : ""));
  write_pipeline(dir);
  std::vector<std::string> args = {"run", "p.yaml", "-q", "--device", device, "--stats-json", "stats.json"};
  for (const auto& uri : kInputs) args.insert(args.end(), {"-i", uri});
  const auto together = run_framepipe(args, dir.path());
  ASSERT_EQ(together.exit_code, 0) << together.output;
  const auto stats = nlohmann::json::parse(read_bytes(dir / "stats.json"));
  ASSERT_EQ(stats["streams"].size(), kInputs.size());
  long long frames = 0;
  for (std::size_t i = 0; i < kInputs.size(); ++i) {
    const std::string name = std::to_string(i);
    EXPECT_EQ(stats["streams"][i]["name"], name);
    EXPECT_EQ(stats["streams"][i]["stages"][0]["id"], name + "/input");  // ids say which stream
    frames += stats["streams"][i]["frames"].get<long long>();
    // The same input alone, in a separate process, into separate files.
    const auto alone = run_framepipe({"run", "p.yaml", "-q", "--device", alone_device, "-i", kInputs[i], "--set",
                                      "out.output=alone.y4m", "--set", "hist.output=alone.csv"},
                                     dir.path());
    ASSERT_EQ(alone.exit_code, 0) << alone.output;
    EXPECT_EQ(read_bytes(dir / ("out/" + name + ".y4m")), read_bytes(dir / "alone.y4m")) << "stream " << name;
    EXPECT_EQ(read_bytes(dir / ("out/" + name + ".csv")), read_bytes(dir / "alone.csv")) << "stream " << name;
  }
  EXPECT_EQ(frames, 12 + 7 + 9 + 15);
  EXPECT_EQ(stats["frames"], frames);
  EXPECT_EQ(stats["streams_failed"], 0);
}

TEST(StreamsCli, EachStreamWritesWhatARunOnItsInputAloneWrites) { expect_streams_match_separate_runs("cpu"); }

TEST(StreamsCli, EachStreamWritesWhatARunOnItsInputAloneWritesOnTheGpu) {
  FP_REQUIRE_CLI_GPU();
  expect_streams_match_separate_runs(cli_cuda_device());
}

// cuda:all puts stream i on GPU i mod the GPU count; each GPU computes what the first does.
TEST(StreamsCli, CudaAllSpreadsTheStreamsOverEveryGpu) {
  FP_REQUIRE_CLI_GPU();
  const int gpus = cli_gpu_count();
  if (gpus < 2) GTEST_SKIP() << "one GPU: spreading streams needs two";
  expect_streams_match_separate_runs("cuda:all", cli_cuda_device());
  TempDir dir("streams-all-gpus-devices");
  write_pipeline(dir);
  std::vector<std::string> args = {"run", "p.yaml", "-q", "--device", "cuda:all", "--stats-json", "stats.json"};
  for (const auto& uri : kInputs) args.insert(args.end(), {"-i", uri});
  const auto result = run_framepipe(args, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto stats = nlohmann::json::parse(read_bytes(dir / "stats.json"));
  for (std::size_t i = 0; i < kInputs.size(); ++i)
    EXPECT_EQ(stats["streams"][i]["device"], "cuda:" + std::to_string(static_cast<int>(i) % gpus)) << "stream " << i;
}

TEST(StreamsCli, AStreamThatFailsFailsAlone) {
  TempDir dir("streams-fail-alone");
  std::ofstream(dir / "p.yaml") << "inputs:\n"
                                   "  - {uri: 'testsrc://64x48@25?frames=6', name: front}\n"
                                   "  - {uri: missing.mp4, name: back}\n"
                                   "  - {uri: 'testsrc://64x48@25?frames=4', name: side}\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: '{stream}.mkv'}\n";
  const auto result = run_framepipe({"run", "p.yaml", "--stats-json", "stats.json"}, dir.path());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("framepipe: error: stream back: missing.mp4: cannot open"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("10 frames from 3 streams"), std::string::npos) << result.output;
  EXPECT_EQ(count_frames(dir / "front.mkv"), 6);
  EXPECT_EQ(count_frames(dir / "side.mkv"), 4);
  EXPECT_FALSE(fs::exists(dir / "back.mkv"));
  const auto stats = nlohmann::json::parse(read_bytes(dir / "stats.json"));
  EXPECT_EQ(stats["streams_failed"], 1);
  EXPECT_EQ(stats["frames"], 10);
  EXPECT_NE(stats["streams"][1]["error"].get<std::string>().find("missing.mp4"), std::string::npos);
}

// A stream whose input fails midway: `cat a.ts b.ts` of two sizes stops at the change, after
// 24 frames (README: "A stream whose frame size changes midway ends the run at the change").
// False with the reason when this FFmpeg cannot make the file.
std::string write_input_that_fails_at_frame_24(const TempDir& dir, const std::string& name) {
  const VideoWriteSpec spec{.muxer = "mpegts", .encoder_options = "preset=ultrafast"};
  if (auto why = cannot_write(spec); !why.empty()) return why;
  write_video(spec, (dir / "a.ts").string(), testsrc_frames(96, 64, 24));
  write_video(spec, (dir / "b.ts").string(), testsrc_frames(64, 48, 12));
  concatenate_files((dir / "a.ts").string(), (dir / "b.ts").string(), (dir / name).string());
  return {};
}

// A stream that fails mid-run, after frames went through, fails alone: it is named, its
// output keeps the frames before the failure, and the other streams write every frame of
// their inputs. Paced (realtime), the failing input reaches its 24th frame about 1 s in,
// while the others run until 1.5 s and 1.75 s: they are still running when it fails. Exit 1.
TEST(StreamsCli, AStreamThatFailsMidRunFailsAlone) {
  TempDir dir("streams-fail-mid-run");
  if (auto why = write_input_that_fails_at_frame_24(dir, "joined.ts"); !why.empty()) GTEST_SKIP() << why;
  std::ofstream(dir / "p.yaml") << "realtime: true\n"
                                   "inputs:\n"
                                   "  - {uri: 'testsrc://96x64@50?frames=75', name: front}\n"
                                   "  - {uri: joined.ts, name: back}\n"
                                   "  - {uri: 'testsrc://64x48@40?frames=70', name: side}\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: '{stream}.mkv'}\n";
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "--stats-json", "stats.json"}, dir.path(),
                                                 static_cast<int>(time_bound(60)));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("framepipe: error: stream back: joined.ts: stream #0 (h264): the frame size changes "
                               "from 96x64 to 64x48 at frame 24"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(count_frames(dir / "front.mkv"), 75);
  EXPECT_EQ(count_frames(dir / "back.mkv"), 24);
  EXPECT_EQ(count_frames(dir / "side.mkv"), 70);
  const auto stats = nlohmann::json::parse(read_bytes(dir / "stats.json"));
  EXPECT_EQ(stats["streams_failed"], 1);
  EXPECT_NE(stats["streams"][1]["error"].get<std::string>().find("joined.ts"), std::string::npos) << stats.dump(2);
  EXPECT_EQ(stats["streams"][0]["frames"], 75);
  EXPECT_EQ(stats["streams"][1]["frames"], 24);  // what the failed stream wrote before failing
  EXPECT_EQ(stats["streams"][2]["frames"], 70);
}

// Endless inputs and one that fails midway: --fail-fast stops the endless ones (which would
// run forever otherwise) and finalizes their outputs. Paced at 25 fps, the failing input
// reaches its 24th frame about a second in, long after the endless streams opened their
// outputs and wrote frames: those outputs must exist, and decode.
TEST(StreamsCli, FailFastStopsEveryStreamAtTheFirstFailure) {
  TempDir dir("streams-fail-fast");
  if (auto why = write_input_that_fails_at_frame_24(dir, "joined.ts"); !why.empty()) GTEST_SKIP() << why;
  std::ofstream(dir / "p.yaml") << "realtime: true\n"
                                   "input: testsrc://64x48@25\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: '{stream}.mkv'}\n";
  const auto started = Clock::now();
  const auto result = run_framepipe_with_timeout(
      {"run", "p.yaml", "--fail-fast", "-i", "testsrc://64x48@25?frames=0", "-i", "testsrc://64x48@25?frames=0", "-i",
       "joined.ts"},
      dir.path(), static_cast<int>(time_bound(30)));
  const double took = std::chrono::duration<double>(Clock::now() - started).count();
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_LT(took, time_bound(10));
  EXPECT_NE(result.output.find("stream 2: joined.ts"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("the frame size changes"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("stopped (another stream failed)"), std::string::npos) << result.output;
  EXPECT_EQ(count_frames(dir / "2.mkv"), 24);
  for (const char* file : {"0.mkv", "1.mkv"}) EXPECT_GT(count_frames(dir / file), 0) << file;
}

TEST(StreamsCli, CtrlCFinalizesEveryStream) {
  TempDir dir("streams-sigint");
  std::ofstream(dir / "p.yaml") << "realtime: true\n"
                                   "inputs: ['testsrc://64x48@25?frames=0', 'testsrc://80x48@25?frames=0', "
                                   "'testsrc://64x64@25?frames=0']\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: 'cam{stream}.mp4'}\n";
  BackgroundRun run(dir.path(), {"run", "p.yaml"});
  // Every stream has opened its output before the interrupt (else the test would prove
  // nothing about that stream), and has had time for a few frames.
  ASSERT_TRUE(eventually(
      [&] { return fs::exists(dir / "cam0.mp4") && fs::exists(dir / "cam1.mp4") && fs::exists(dir / "cam2.mp4"); }, 10))
      << "not every stream opened its output: " << run.outcome();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_TRUE(run.catches_within(SIGINT, 10)) << "framepipe ended, or never handled SIGINT: " << run.outcome();
  run.signal(SIGINT);
  const auto [code, seconds] = run.wait(time_bound(10));
  EXPECT_EQ(code, 130) << run.output();
  EXPECT_LT(seconds, time_bound(2.0));
  for (const char* file : {"cam0.mp4", "cam1.mp4", "cam2.mp4"}) EXPECT_GT(count_frames(dir / file), 0) << file;
}

}  // namespace
}  // namespace fp::test
