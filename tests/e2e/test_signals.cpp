// SIGINT/SIGTERM (and, for a run, SIGHUP) end framepipe promptly whatever it is doing — opening an input whose server
// accepts the connection and never answers, running, or draining — with exit code 130, and a
// second signal ends it at once. A silent server that nobody interrupts ends the open with a
// clear error after the network timeout, never a hang.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/background_run.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/e2e/silent_server.hpp"

namespace fp::test {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kEndlessPipeline = R"(input: testsrc://96x64@25?frames=0
stages:
  - {id: hist, type: luma_histogram, output: hist.jsonl}
  - {id: out, type: encode, output: out.mp4}
)";

void write_endless_pipeline(const TempDir& dir) { std::ofstream(dir / "p.yaml") << kEndlessPipeline; }

// A signal 1 s after framepipe (`args`, a run or a probe) connected to a server that never
// answers (it is waiting in the open then): gone within 2 s, exit 130.
void expect_prompt_stop_while_opening(const SilentServer& server, const std::vector<std::string>& args, int sig) {
  TempDir dir("signals-open");
  write_endless_pipeline(dir);
  BackgroundRun run(dir.path(), args);
  ASSERT_TRUE(server.connected_within(10)) << "framepipe never connected: " << run.outcome();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  ASSERT_TRUE(run.alive()) << "framepipe ended before the signal; the test proves nothing";
  run.signal(sig);
  const auto [code, seconds] = run.wait(time_bound(5.0));
  EXPECT_EQ(code, 130) << run.outcome();
  EXPECT_LT(seconds, time_bound(2.0)) << run.outcome();
}

TEST(Signals, SigtermWhileOpeningASilentRtspServer) {
  SilentServer server;
  const std::string uri = "rtsp://127.0.0.1:" + std::to_string(server.port()) + "/stream";
  expect_prompt_stop_while_opening(server, {"run", "p.yaml", "-q", "-i", uri}, SIGTERM);
}

TEST(Signals, SigintWhileOpeningASilentHttpServer) {
  SilentServer server;
  const std::string uri = "http://127.0.0.1:" + std::to_string(server.port()) + "/video.ts";
  expect_prompt_stop_while_opening(server, {"run", "p.yaml", "-q", "-i", uri}, SIGINT);
}

// `framepipe probe` opens the URI as a run does, and a signal ends that open the same way.
TEST(Signals, SigintWhileProbingASilentHttpServer) {
  SilentServer server;
  const std::string uri = "http://127.0.0.1:" + std::to_string(server.port()) + "/video.ts";
  expect_prompt_stop_while_opening(server, {"probe", uri}, SIGINT);
}

// The handler is there from the start: a signal while the pipeline file is still being read
// (a FIFO that nothing writes yet, as `framepipe run <(make-pipeline)` can be) is the same
// orderly interruption, and nothing is created.
TEST(Signals, SigintWhileReadingThePipeline) {
  TempDir dir("signals-load");
  ASSERT_EQ(mkfifo((dir / "p.yaml").c_str(), 0600), 0);
  BackgroundRun run(dir.path(), {"run", "p.yaml", "-q"});
  // The handler is installed right before the pipeline is read; the open of the FIFO then
  // waits for a writer, which never comes.
  ASSERT_TRUE(run.catches_within(SIGINT, 10)) << "framepipe ended, or never handled SIGINT: " << run.outcome();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_TRUE(run.alive()) << "framepipe ended before the signal; the test proves nothing";
  run.signal(SIGINT);
  const auto [code, seconds] = run.wait(time_bound(5.0));
  EXPECT_EQ(code, 130) << run.outcome();
  EXPECT_LT(seconds, time_bound(2.0));
  EXPECT_FALSE(std::filesystem::exists(dir / "out.mp4"));
}

// Nobody interrupts: the open gives up after the network timeout with an error naming the
// URI (exit 1), and writes no output.
TEST(Signals, SilentServerTimesOutWithAClearError) {
  SilentServer server;
  TempDir dir("signals-timeout");
  write_endless_pipeline(dir);
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

// A signal while frames flow is the same orderly stop as Ctrl-C: exit 130, and every output
// finalized: the mp4 has its index (every frame decodes), and the histogram file holds whole
// rows of JSON, one per frame written.
void expect_orderly_stop_mid_run(int sig, const std::string& name) {
  TempDir dir("signals-" + name + "-run");
  write_endless_pipeline(dir);
  BackgroundRun run(dir.path(), {"run", "p.yaml", "-q", "--device", "cpu"});
  // Frames flow once the histogram has rows (it is written as frames leave the graph).
  const auto give_up = Clock::now() + std::chrono::duration<double>(time_bound(10.0));
  while (run.alive() && Clock::now() < give_up &&
         !(std::filesystem::exists(dir / "hist.jsonl") && count_lines(dir / "hist.jsonl") >= 10))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(run.alive()) << "framepipe ended before the signal; the test proves nothing:\n" << run.output();
  ASSERT_GE(count_lines(dir / "hist.jsonl"), 10) << "no frames flowed:\n" << run.output();
  run.signal(sig);
  const auto [code, seconds] = run.wait(time_bound(5.0));
  EXPECT_EQ(code, 130) << run.outcome();
  EXPECT_LT(seconds, time_bound(2.0));
  const long long frames = count_frames(dir / "out.mp4");
  EXPECT_GE(frames, 10);
  std::ifstream rows(dir / "hist.jsonl");
  long long whole = 0;
  for (std::string line; std::getline(rows, line); ++whole)
    EXPECT_TRUE(nlohmann::json::accept(line)) << "row " << whole + 1 << " is not whole JSON: " << line;
  EXPECT_EQ(whole, frames) << "one histogram row per frame in the video";
}

// SIGTERM: what a service manager or `kill` sends.
TEST(Signals, SigtermMidRunFinalizesEveryOutput) { expect_orderly_stop_mid_run(SIGTERM, "sigterm"); }

// SIGHUP: the terminal the run was started from closed (an ssh session lost). Its default
// action ended the run at once, exit 129, the mp4 without its index (unplayable); a run has
// nothing to reload, so it stops as for Ctrl-C and finalizes its outputs.
TEST(Signals, SighupMidRunFinalizesEveryOutput) { expect_orderly_stop_mid_run(SIGHUP, "sighup"); }

// Two signals in a row while the first one's drain cannot finish: the second one ends the
// process at once, with the same exit code, instead of the default action (death by signal).
// The output is a FIFO that the test holds open for reading but never reads: once the pipe
// (64 KiB) is full, the sink's write blocks, and a file write is not ended by a stop (Ctrl-C
// drains and finalizes every output), so the orderly stop that the first signal asks for
// never completes. Only the second signal can end the run within the bound.
TEST(Signals, SecondSignalExitsAtOnce) {
  TempDir dir("signals-twice");
  ASSERT_EQ(mkfifo((dir / "stalled.y4m").c_str(), 0600), 0) << std::strerror(errno);
  // Non-blocking, so that the open does not wait for a writer; the descriptor stays open (and
  // unread) until the test ends, so framepipe's open succeeds and its writes stall.
  const int reader = open((dir / "stalled.y4m").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0) << std::strerror(errno);
  const std::unique_ptr<const int, void (*)(const int*)> close_reader(&reader, [](const int* fd) { close(*fd); });
  std::ofstream(dir / "p.yaml") << "input: testsrc://320x240@25?frames=0\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: stalled.y4m}\n";
  BackgroundRun run(dir.path(), {"run", "p.yaml", "-q", "--device", "cpu"});
  // Frames flow into the pipe until it is full. Half its capacity is enough to know that the
  // writer is there: the rest of its frame (a 320x240 frame is 115 KiB, more than the whole
  // pipe) cannot fit, so it is blocked or about to be, and the drain cannot finish.
  const int capacity = fcntl(reader, F_GETPIPE_SZ);
  ASSERT_GT(capacity, 0) << std::strerror(errno);
  int buffered = 0;
  eventually(
      [&] {
        if (ioctl(reader, FIONREAD, &buffered) != 0) buffered = -1;
        return buffered < 0 || buffered >= capacity / 2 || !run.alive();
      },
      10, std::chrono::milliseconds(50));
  ASSERT_GE(buffered, 0) << "FIONREAD on the output pipe: " << std::strerror(errno);
  ASSERT_GE(buffered, capacity / 2) << "no frames reached the output pipe: " << run.outcome();
  run.signal(SIGINT);
  // The first signal cannot end the run: its drain waits on the blocked write. (The pause
  // also lets the first signal be handled before the second is sent: a standard signal still
  // pending is not queued twice, and ThreadSanitizer defers delivery.)
  std::this_thread::sleep_for(std::chrono::duration<double>(time_bound(0.3)));
  ASSERT_TRUE(run.alive()) << "the first signal ended the run by itself; the test proves nothing:\n" << run.output();
  run.signal(SIGINT);
  const auto [code, seconds] = run.wait(time_bound(5.0));
  EXPECT_EQ(code, 130) << run.outcome();
  EXPECT_LT(seconds, time_bound(1.0));
}

}  // namespace
}  // namespace fp::test
