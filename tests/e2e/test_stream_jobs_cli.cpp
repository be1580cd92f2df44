// `framepipe run --jobs N`: a run on many inputs holds at most N streams at once, the others
// start in turn as streams end. Proven on real processes: 200 small files through --jobs 4
// give every output complete, the stats count at most 4 streams at once, and the process's
// peak memory is that of a 4-stream run, not of a 200-stream one. Ctrl-C and --fail-fast
// leave the waiting streams unstarted (listed as such), and live inputs that would fill every
// place are refused before anything runs.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fcntl.h>
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

constexpr int kFiles = 200;
constexpr int kFramesEach = 5;

// The files are in/c000.y4m ... in/c199.y4m; each stream is named after its file's stem.
std::string stem(int i) {
  char name[16];
  std::snprintf(name, sizeof name, "c%03d", i);
  return name;
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

// A tiny raw video file (YUV4MPEG2, read by FFmpeg without any codec): made in microseconds,
// so that hundreds of inputs cost the test nothing. Each file's frames differ.
void write_y4m(const fs::path& path, int seed) {
  constexpr int kWidth = 64;
  constexpr int kHeight = 48;
  std::ofstream out(path, std::ios::binary);
  out << "YUV4MPEG2 W" << kWidth << " H" << kHeight << " F25:1 Ip A1:1 C420jpeg\n";
  for (int f = 0; f < kFramesEach; ++f) {
    out << "FRAME\n";
    out << std::string(kWidth * kHeight, static_cast<char>((seed * 3 + f * 17) % 220 + 16));
    out << std::string(kWidth * kHeight / 2, static_cast<char>(128));
  }
}

struct MeasuredRun {
  int exit_code = -1;  // -1: killed after the time bound
  long peak_rss_kib = 0;
};

// Runs framepipe as a child and reads its peak resident memory from the kernel (wait4's
// rusage: ru_maxrss, in KiB), which counts every byte any of its threads touched at once.
MeasuredRun run_measured(const std::vector<std::string>& args, const fs::path& cwd) {
  const std::string binary = framepipe_binary();
  std::vector<std::string> argv_text{binary};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = (cwd / "measured.log").string();
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(cwd.c_str()) != 0) _exit(127);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  MeasuredRun result;
  if (pid < 0) return result;
  const auto deadline = Clock::now() + std::chrono::duration<double>(time_bound(60));
  int status = 0;
  rusage usage{};
  while (wait4(pid, &status, WNOHANG, &usage) == 0) {
    if (Clock::now() > deadline) {
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.peak_rss_kib = usage.ru_maxrss;
  return result;
}

std::string log_of(const TempDir& dir) {
  std::ifstream in(dir / "measured.log");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// 200 small files in in/, and a pipeline that encodes each to out/{stream}.mp4.
void write_two_hundred_files(const TempDir& dir) {
  fs::create_directories(dir / "in");
  fs::create_directories(dir / "out");
  for (int i = 0; i < kFiles; ++i) write_y4m(dir / "in" / (stem(i) + ".y4m"), i);
  std::ofstream(dir / "p.yaml") << "inputs: {glob: 'in/*.y4m'}\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: 'out/{stream}.mp4'}\n";
}

TEST(StreamJobsCli, TwoHundredFilesRunFourAtATime) {
  TempDir dir("stream-jobs-200");
  write_two_hundred_files(dir);
  const auto capped = run_measured({"run", "p.yaml", "--jobs", "4", "--stats-json", "stats.json"}, dir.path());
  ASSERT_EQ(capped.exit_code, 0) << log_of(dir);
  for (int i = 0; i < kFiles; ++i) {
    const auto output = dir / "out" / (stem(i) + ".mp4");
    ASSERT_EQ(count_frames(output), kFramesEach) << output;
  }
  const auto stats = read_json(dir / "stats.json");
  ASSERT_EQ(stats["streams"].size(), static_cast<std::size_t>(kFiles));
  EXPECT_EQ(stats["jobs"], 4);
  EXPECT_EQ(stats["max_concurrent_streams"], 4);  // never more; and the cap was used
  EXPECT_EQ(stats["streams_not_started"], 0);
  EXPECT_EQ(stats["frames"], kFiles * kFramesEach);
}

// Each stream's memory shows in a 200-at-once run; capped at 4, the peak stays near a
// 4-stream run's: well within a third of the way from it to the 200-stream peak. A test of
// its own, so that the one above (what runs, and when) still runs under a sanitizer, whose
// allocator keeps freed memory in quarantine, so that 200 streams one after another hold as
// much as 200 at once: there only this one skips, with the reason that the sanitizer runs
// allow (tools/run-sanitizers.sh).
TEST(StreamJobsCli, FourAtATimePeakMemoryIsThatOfFourStreams) {
  if (cli_under_sanitizer())
    GTEST_SKIP() << "a memory limit cannot be tested under a sanitizer (its allocator's quarantine keeps freed "
                    "memory, so streams run one after another peak as high as all at once)";
  TempDir dir("stream-jobs-200-rss");
  write_two_hundred_files(dir);
  const auto capped = run_measured({"run", "p.yaml", "-q", "--jobs", "4"}, dir.path());
  ASSERT_EQ(capped.exit_code, 0) << log_of(dir);
  // The yardsticks: the same pipeline on 4 of the files at once, and on all 200 at once.
  const auto four = run_measured({"run", "p.yaml", "-q", "--jobs", "4", "-i", "in/c000.y4m", "-i", "in/c001.y4m", "-i",
                                  "in/c002.y4m", "-i", "in/c003.y4m"},
                                 dir.path());
  ASSERT_EQ(four.exit_code, 0) << log_of(dir);
  const auto all = run_measured({"run", "p.yaml", "-q", "--jobs", std::to_string(kFiles)}, dir.path());
  ASSERT_EQ(all.exit_code, 0) << log_of(dir);
  ASSERT_GT(all.peak_rss_kib, four.peak_rss_kib * 3 / 2) << "the measurement cannot tell 4 streams from 200";
  EXPECT_LT(capped.peak_rss_kib - four.peak_rss_kib, (all.peak_rss_kib - four.peak_rss_kib) / 3)
      << "peak RSS: 4 streams " << four.peak_rss_kib << " KiB, 200 at once " << all.peak_rss_kib
      << " KiB, 200 with --jobs 4 " << capped.peak_rss_kib << " KiB";
}

// Without --jobs the cap follows the memory the process may have: under a data limit
// (ulimit -d) that 8 streams of 720p at once exceed, the default runs fewer at once and every
// stream completes. 25 frames a stream, so that the 8 really run at once (of 3 frames each,
// the first ended before the last began, and 8 "at once" fitted 600 MiB on a 2-core CI
// machine). Measured there: 8 at once map 1430 MiB of data, 2 at a time 490-570 MiB, 3 at
// a time 630-700; the limit, 800 MiB, is far from the first and above what the default
// (2 here) needs.
TEST(StreamJobsCli, TheDefaultFitsTheMemoryThereIs) {
  if (cli_under_sanitizer()) GTEST_SKIP() << "a memory limit cannot be tested under a sanitizer";
  TempDir dir("stream-jobs-default");
  std::ofstream(dir / "p.yaml") << "input: testsrc://1280x720@25?frames=25\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: '{stream}.mkv'}\n";
  std::vector<std::string> args{"run", "p.yaml", "--stats-json", "stats.json"};
  constexpr int kStreams = 8;
  constexpr int kFramesAStream = 25;
  for (int i = 0; i < kStreams; ++i) args.insert(args.end(), {"-i", "testsrc://1280x720@25?frames=25"});
  constexpr long kDataLimitKib = 800 * 1024;

  // The yardstick: all of them at once do not fit.
  auto all_at_once = args;
  all_at_once.insert(all_at_once.end(), {"--jobs", std::to_string(kStreams)});
  const auto too_many = run_framepipe_with_data_limit(all_at_once, dir.path(), kDataLimitKib);
  ASSERT_EQ(too_many.exit_code, 1) << "8 streams at once should not fit in the limit\n" << too_many.output;
  for (int i = 0; i < kStreams; ++i) fs::remove(dir / (std::to_string(i) + ".mkv"));

  const auto result = run_framepipe_with_data_limit(args, dir.path(), kDataLimitKib);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (int i = 0; i < kStreams; ++i) EXPECT_EQ(count_frames(dir / (std::to_string(i) + ".mkv")), kFramesAStream) << i;
  const auto stats = read_json(dir / "stats.json");
  EXPECT_GE(stats["jobs"].get<int>(), 1);
  EXPECT_LT(stats["jobs"].get<int>(), kStreams);
  EXPECT_LE(stats["max_concurrent_streams"].get<int>(), stats["jobs"].get<int>());
}

// Five long inputs, two at a time (the file's `jobs: 2`): Ctrl-C finalizes the two running,
// and the three waiting never start (no output, "not started" in the summary and the stats),
// exit 130.
TEST(StreamJobsCli, CtrlCLeavesTheWaitingStreamsUnstarted) {
  TempDir dir("stream-jobs-sigint");
  std::ofstream(dir / "p.yaml") << "realtime: true\n"
                                   "jobs: 2\n"
                                   "input: testsrc://64x48@25?frames=100000\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: 'cam{stream}.mp4'}\n";
  std::vector<std::string> args{"run", "p.yaml", "--stats-json", "stats.json"};
  for (int i = 0; i < 5; ++i) args.insert(args.end(), {"-i", "testsrc://64x48@25?frames=100000"});
  BackgroundRun run(dir.path(), args);
  ASSERT_TRUE(eventually([&] { return fs::exists(dir / "cam0.mp4") && fs::exists(dir / "cam1.mp4"); }, 10))
      << "the first two streams never opened their outputs: " << run.outcome();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a few frames in each
  ASSERT_TRUE(run.catches_within(SIGINT, 10)) << "framepipe ended, or never handled SIGINT: " << run.outcome();
  run.signal(SIGINT);
  const auto [code, seconds] = run.wait(time_bound(10));
  EXPECT_EQ(code, 130) << run.output();
  EXPECT_LT(seconds, time_bound(2.0));
  for (const char* file : {"cam0.mp4", "cam1.mp4"}) EXPECT_GT(count_frames(dir / file), 0) << file;
  for (const char* file : {"cam2.mp4", "cam3.mp4", "cam4.mp4"}) EXPECT_FALSE(fs::exists(dir / file)) << file;
  EXPECT_NE(run.output().find("not started (interrupted)"), std::string::npos) << run.output();
  EXPECT_NE(run.output().find("3 not started"), std::string::npos) << run.output();
  const auto stats = read_json(dir / "stats.json");
  ASSERT_EQ(stats["streams"].size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(stats["streams"][i]["started"], i < 2) << "stream " << i;
  EXPECT_EQ(stats["streams_not_started"], 3);
  EXPECT_EQ(stats["max_concurrent_streams"], 2);
}

// The first stream fails at once; under --fail-fast the streams waiting behind it never start.
TEST(StreamJobsCli, FailFastStartsNoWaitingStream) {
  TempDir dir("stream-jobs-fail-fast");
  std::ofstream(dir / "p.yaml") << "input: testsrc://64x48@25?frames=5\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: '{stream}.mkv'}\n";
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "--jobs", "1", "--fail-fast", "--stats-json",
                                                  "stats.json", "-i", "missing.mp4", "-i", "testsrc://64x48@25?frames=5",
                                                  "-i", "testsrc://64x48@25?frames=5"},
                                                 dir.path(), static_cast<int>(time_bound(30)));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("stream 0: missing.mp4"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("not started (another stream failed)"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(dir / "1.mkv"));
  EXPECT_FALSE(fs::exists(dir / "2.mkv"));
  const auto stats = read_json(dir / "stats.json");
  EXPECT_EQ(stats["streams_not_started"], 2);
  EXPECT_EQ(stats["streams"][1]["started"], false);
  EXPECT_EQ(stats["streams"][2]["stopped_by_failure"], true);
}

// A live input never ends and never gives its place back: --jobs 1 with one live input and
// a file would never start the file, so it is refused (exit 2) before anything runs.
TEST(StreamJobsCli, LiveInputsThatWouldFillEveryPlaceAreRefused) {
  TempDir dir("stream-jobs-live");
  std::ofstream(dir / "p.yaml") << "input: testsrc://64x48@25?frames=5\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: '{stream}.mkv'}\n";
  const auto result = run_framepipe_with_timeout(
      {"run", "p.yaml", "--jobs", "1", "-i", "testsrc://64x48@25?frames=0", "-i", "testsrc://64x48@25?frames=5"},
      dir.path(), static_cast<int>(time_bound(30)));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--jobs 1: 1 of the 2 inputs are live"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("give --jobs at least 2"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(dir / "0.mkv"));
  EXPECT_FALSE(fs::exists(dir / "1.mkv"));
}

// `jobs:` in the file: a whole number 0..1024, checked with its line; --jobs overrides it.
TEST(StreamJobsCli, TheFilesJobsKeyIsCheckedAndTheOptionOverridesIt) {
  TempDir dir("stream-jobs-key");
  std::ofstream(dir / "bad.yaml") << "input: testsrc://64x48@25?frames=2\n"
                                     "jobs: many\n"
                                     "stages:\n"
                                     "  - {id: out, type: encode, output: '{stream}.mkv'}\n";
  const auto bad = run_framepipe({"run", "bad.yaml", "-i", "testsrc://64x48@25?frames=2", "-i",
                                  "testsrc://64x48@25?frames=2"},
                                 dir.path());
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("bad.yaml:2:7: jobs: must be a whole number 0..1024"), std::string::npos) << bad.output;
  std::ofstream(dir / "p.yaml") << "input: testsrc://64x48@25?frames=2\n"
                                   "jobs: 1\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: '{stream}.mkv'}\n";
  const std::vector<std::string> live{"run", "p.yaml", "-i", "testsrc://64x48@25?frames=0", "-i",
                                      "testsrc://64x48@25?frames=2"};
  // Bounded: the live input never ends, so a refusal that broke would run forever.
  const auto refused = run_framepipe_with_timeout(live, dir.path(), static_cast<int>(time_bound(30)));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("p.yaml: jobs: 1: 1 of the 2 inputs are live"), std::string::npos) << refused.output;
  auto overridden = live;
  overridden.insert(overridden.end(), {"--jobs", "2", "--frames", "2", "--stats-json", "stats.json"});
  const auto ran = run_framepipe_with_timeout(overridden, dir.path(), static_cast<int>(time_bound(30)));
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_EQ(read_json(dir / "stats.json")["jobs"], 2);
}

}  // namespace
}  // namespace fp::test
