// SIGINT/SIGTERM end framepipe promptly whatever it is doing — opening an input whose server
// accepts the connection and never answers, running, or draining — with exit code 130, and a
// second signal ends it at once. A silent server that nobody interrupts ends the open with a
// clear error after the network timeout, never a hang.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "tests/e2e/background_run.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/e2e/silent_server.hpp"

namespace fp::test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kPipeline = R"(input: testsrc://96x64@25?frames=0
stages:
  - {id: hist, type: luma_histogram, output: hist.jsonl}
  - {id: out, type: encode, output: out.mp4}
)";

void write_pipeline(const TempDir& dir) { std::ofstream(dir / "p.yaml") << kPipeline; }

// SIGTERM 1.5 s into the open of a server that never answers: gone within 2 s, exit 130.
void expect_prompt_stop_while_opening(const std::string& uri, int sig) {
  TempDir dir("signals-open");
  write_pipeline(dir);
  BackgroundRun run(dir.path(), {"run", "p.yaml", "-q", "-i", uri});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_TRUE(run.alive()) << "framepipe ended before the signal; the test proves nothing";
  run.signal(sig);
  const auto [code, seconds] = run.wait(time_bound(5.0));
  EXPECT_EQ(code, 130) << uri;
  EXPECT_LT(seconds, time_bound(2.0)) << uri;
}

TEST(Signals, SigtermWhileOpeningASilentRtspServer) {
  SilentServer server;
  expect_prompt_stop_while_opening("rtsp://127.0.0.1:" + std::to_string(server.port()) + "/stream", SIGTERM);
}

TEST(Signals, SigintWhileOpeningASilentHttpServer) {
  SilentServer server;
  expect_prompt_stop_while_opening("http://127.0.0.1:" + std::to_string(server.port()) + "/video.ts", SIGINT);
}

// `framepipe probe` opens the URI as a run does, and a signal ends that open the same way.
TEST(Signals, SigintWhileProbingASilentHttpServer) {
  SilentServer server;
  TempDir dir("signals-probe");
  BackgroundRun run(dir.path(), {"probe", "http://127.0.0.1:" + std::to_string(server.port()) + "/video.ts"});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_TRUE(run.alive()) << "framepipe ended before the signal; the test proves nothing";
  run.signal(SIGINT);
  const auto [code, seconds] = run.wait(time_bound(5.0));
  EXPECT_EQ(code, 130) << run.output();
  EXPECT_LT(seconds, time_bound(2.0));
}

// The handler is there from the start: a signal while the pipeline file is still being read
// (a FIFO that nothing writes yet, as `framepipe run <(make-pipeline)` can be) is the same
// orderly interruption, and nothing is created.
TEST(Signals, SigintWhileReadingThePipeline) {
  TempDir dir("signals-load");
  ASSERT_EQ(mkfifo((dir / "p.yaml").c_str(), 0600), 0);
  BackgroundRun run(dir.path(), {"run", "p.yaml", "-q"});
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_TRUE(run.alive()) << "framepipe ended before the signal; the test proves nothing";
  run.signal(SIGINT);
  const auto [code, seconds] = run.wait(time_bound(5.0));
  EXPECT_EQ(code, 130) << run.output();
  EXPECT_LT(seconds, time_bound(2.0));
  EXPECT_FALSE(std::filesystem::exists(dir / "out.mp4"));
}

// Nobody interrupts: the open gives up after the network timeout with an error naming the
// URI (exit 1), and writes no output.
TEST(Signals, SilentServerTimesOutWithAClearError) {
  SilentServer server;
  TempDir dir("signals-timeout");
  write_pipeline(dir);
  const std::string uri = "rtsp://127.0.0.1:" + std::to_string(server.port()) + "/stream";
  // The open's deadline is twice the network timeout (5 s): 10 s of real time, unscaled,
  // plus a scaled margin for the rest of the run.
  constexpr double kOpenDeadline = 10.0;
  const auto start = Clock::now();
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-q", "-i", uri}, dir.path(),
                                                 static_cast<int>(kOpenDeadline + time_bound(20.0)));
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find(uri), std::string::npos) << result.output;
  EXPECT_LT(seconds, kOpenDeadline + time_bound(5.0));
  EXPECT_FALSE(std::filesystem::exists(dir / "out.mp4"));
}

// Two signals in a row while frames flow: the second one ends the process at once, with the
// same exit code, instead of the default action (death by signal).
TEST(Signals, SecondSignalExitsAtOnce) {
  TempDir dir("signals-twice");
  std::ofstream(dir / "p.yaml") << "input: testsrc://640x360@25?noise=20&frames=0\n"
                                   "stages:\n"
                                   "  - {id: denoise, type: nlmeans, search: 7}\n"
                                   "  - {id: out, type: encode, output: out.mp4}\n";
  BackgroundRun run(dir.path(), {"run", "p.yaml", "-q", "--device", "cpu"});
  for (int i = 0; i < 100 && !std::filesystem::exists(dir / "out.mp4"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  run.signal(SIGINT);
  // Two signals sent back to back may reach the process as one (a standard signal that is
  // still pending is not queued twice; ThreadSanitizer defers delivery, which makes that
  // likely): give the first one time to arrive, then measure from the second.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  run.signal(SIGINT);
  const auto [code, seconds] = run.wait(time_bound(5.0));
  EXPECT_EQ(code, 130);
  EXPECT_LT(seconds, time_bound(1.0));
}

}  // namespace
}  // namespace fp::test
