// A live input faster than the graph: CPU nlmeans on one worker thread with the largest
// search (51x51), on a 30 fps 640x360 RTSP stream from a real server: slower than the stream
// on any machine (see slow_search). With the live default (`drop: oldest`) frames are
// dropped at the source's queue and counted, memory stays flat and the latency stays
// bounded; with `drop: never` nothing is dropped by framepipe and the lag behind the camera
// grows instead (the TCP connection pushes back on the server).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "media/frame_source.hpp"
#include "tests/e2e/background_run.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/live/rtsp_server.hpp"

namespace fp::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Resident memory of a process, in KiB (0 when it is gone).
long rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

struct SlowLiveRun {
  nlohmann::json stats;
  long rss_early_kib = 0;  // 5 s after frames began to flow
  long rss_late_kib = 0;   // at the end
  double streamed_seconds = 0;   // from the first output frame to the stop
  double output_span_seconds = 0;  // pts of the last output frame minus the first's
};

// Measured here (one worker thread, 51x51): ~0.9 s a frame.
//
// Why the graph cannot keep up on any machine: framepipe runs with FRAMEPIPE_THREADS=1, so
// nlmeans has one thread. Per pixel and search offset it does at least 24 vector-lane
// operations (the column and SSD updates, the exponent, the exp2 polynomial's 7
// multiply-adds, the weighted sums: cpu/nlmeans.cpp); a 51x51 search at 640x360 is
// 230400 * 2601 * 24 = 1.4e10 of them a frame. One core does at most two 16-lane vector
// instructions a cycle (AVX-512), 1.6e11 lane operations a second at 5 GHz: at least 90 ms
// a frame, nearly three times the camera's 33 ms.
//
// Sanitizer builds run nlmeans 20x (ASan) to 80x (TSan) slower, where a 51x51 search takes
// tens of seconds a frame, longer than the whole test, so that no output could be current;
// they are slower than any normal build, so a smaller window still cannot keep up: 9x9
// (ASan) and 5x5 (TSan), about a second a frame.
int slow_search() {
  const double scale = time_bound(1.0);  // FRAMEPIPE_TEST_TIME_SCALE: 2 ASan, 4 TSan
  return scale >= 4 ? 5 : scale >= 2 ? 9 : 51;
}

// Runs CPU nlmeans on the server's stream for `seconds` after frames begin to flow, then
// stops it with SIGINT.
SlowLiveRun run_slow_stage(const RtspServer& server, const TempDir& dir, const std::string& drop, double seconds) {
  std::ofstream(dir / "p.yaml") << "device: cpu\n"
                                << "drop: " << drop << "\n"
                                << "input: {uri: '" << server.uri() << "', reconnect: {attempts: 0}}\n"
                                << "stages:\n"
                                << "  - {id: denoise, type: nlmeans, search: " << slow_search() << "}\n"
                                << "  - {id: out, type: encode, output: out.mkv, preset: ultrafast}\n";
  // One worker thread: the bound on nlmeans' speed above holds whatever the core count.
  BackgroundRun run(dir.path(), "env", {"FRAMEPIPE_THREADS=1", framepipe_binary(), "run", "p.yaml", "-q", "--stats-json", "stats.json"},
                    "framepipe.log");
  SlowLiveRun result;
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(time_bound(20.0)));
  while (!std::filesystem::exists(dir / "out.mkv") && Clock::now() < until) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(std::filesystem::exists(dir / "out.mkv")) << run.output();
  const auto flowing = Clock::now();
  // Start-up memory (the encoder's frame buffers above all) grows over the first few frames
  // (measured here: flat from the fifth, ~5 s in); the backlog that `drop: never` would hold
  // grows for as long as the run lasts.
  std::this_thread::sleep_for(5s);
  result.rss_early_kib = rss_kib(run.pid());
  std::this_thread::sleep_until(flowing + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)));
  result.rss_late_kib = rss_kib(run.pid());
  result.streamed_seconds = std::chrono::duration<double>(Clock::now() - flowing).count();
  run.signal(SIGINT);
  const auto [code, took] = run.wait(time_bound(10.0));
  EXPECT_EQ(code, 130) << run.output();
  std::ifstream in(dir / "stats.json");
  result.stats = nlohmann::json::parse(in);
  auto source = open_source((dir / "out.mkv").string());
  std::int64_t first = -1, last = -1;
  double unit = 0;
  while (auto frame = source->read()) {
    if (first < 0) first = frame->pts;
    last = frame->pts;
    unit = frame->time_base.value();
  }
  result.output_span_seconds = static_cast<double>(last - first) * unit;
  return result;
}

TEST(LiveDrop, ASlowGraphDropsTheOldestFramesAndStaysCurrent) {
  FP_REQUIRE_RTSP_SERVER();
  RtspServer server({.width = 640, .height = 360, .fps = 30});
  TempDir dir("live-drop-oldest");
  const auto run = run_slow_stage(server, dir, "auto", 12.0);
  const auto& input = run.stats["stages"][0];
  const auto& denoise = run.stats["stages"][1];
  const double per_frame_ms = denoise["mean_ms"].get<double>();
  const auto dropped = run.stats["frames_dropped"].get<long long>();
  std::cout << "drop oldest: " << run.stats["frames"] << " frames, " << dropped << " dropped, nlmeans " << per_frame_ms
            << " ms/frame, latency p50 " << run.stats["latency_ms"]["p50"] << " p99 " << run.stats["latency_ms"]["p99"]
            << " max " << run.stats["latency_ms"]["max"] << " ms, RSS " << run.rss_early_kib << " -> "
            << run.rss_late_kib << " KiB, output spans " << run.output_span_seconds << " s of "
            << run.streamed_seconds << " s\n";
  EXPECT_EQ(input["drop"], "oldest") << "a live input drops by default";
  ASSERT_GT(dropped, 0) << "nlmeans on the CPU cannot keep up with 30 fps at 640x360";
  EXPECT_EQ(input["frames_dropped"], dropped);
  // Every frame decoded was processed or dropped (the last few may be in flight at the stop).
  EXPECT_NEAR(static_cast<double>(input["frames"].get<long long>()),
              static_cast<double>(run.stats["frames"].get<long long>() + dropped), 8.0);
  // The frame the stage takes is the oldest of the queue's 4, which holds the newest frames:
  // 4 camera intervals old (133 ms, at most 1.5 frames' processing, since a frame takes at
  // least 2.7 intervals: see slow_search). It waited at most for the frame in progress, then
  // its own processing, plus the encode (300 ms, scaled): under 2.5 frames' processing and
  // that. Dropping the newest instead would keep the queue's old frames: ~5 frames' processing.
  EXPECT_LT(run.stats["latency_ms"]["p99"].get<double>(), 2.5 * per_frame_ms + 1000 * time_bound(0.3))
      << run.stats.dump(2);
  // Memory flat: the queue, not the backlog, holds the frames. (Not under a sanitizer: ASan
  // keeps freed memory in quarantine and TSan grows its shadow, so RSS says nothing there.)
  if (!cli_under_sanitizer()) {
    EXPECT_LT(static_cast<double>(run.rss_late_kib), 1.10 * static_cast<double>(run.rss_early_kib));
  }
  // Current: the output covers (nearly) the whole time it streamed: the frames in flight at
  // the stop are finished, so it misses at most about a frame's processing at either end,
  // and the queue's 133 ms; 1 s (scaled) for the rest. Without drops it covers a few frame
  // intervals (below); dropping the newest frames instead ends ~4 frames' processing early.
  EXPECT_GT(run.output_span_seconds, run.streamed_seconds - per_frame_ms / 1000 - time_bound(1.0));
}

TEST(LiveDrop, NeverDroppingFallsBehindTheCamera) {
  FP_REQUIRE_RTSP_SERVER();
  RtspServer server({.width = 640, .height = 360, .fps = 30});
  TempDir dir("live-drop-never");
  const auto run = run_slow_stage(server, dir, "never", 10.0);
  const auto dropped = run.stats["frames_dropped"].get<long long>();
  std::cout << "drop never: " << run.stats["frames"] << " frames, " << dropped << " dropped, latency p50 "
            << run.stats["latency_ms"]["p50"] << " p99 " << run.stats["latency_ms"]["p99"] << " ms, RSS "
            << run.rss_early_kib << " -> " << run.rss_late_kib << " KiB, output spans " << run.output_span_seconds
            << " s of " << run.streamed_seconds << " s\n";
  EXPECT_EQ(run.stats["stages"][0]["drop"], "never");
  EXPECT_EQ(dropped, 0);
  // The graph takes frames at its own pace; the rest wait upstream, so the output covers
  // less camera time than went by: one frame interval (33 ms) per frame processed, each of
  // which takes at least 90 ms (see slow_search), so at most 33/90 of the time streamed.
  EXPECT_LT(run.output_span_seconds, run.streamed_seconds / 2);
}

}  // namespace
}  // namespace fp::test
