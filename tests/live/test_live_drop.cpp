// A live input faster than the graph: CPU nlmeans with a 35x35 search (~5 fps at 640x360 on
// two cores) on a 30 fps RTSP stream from a real server. With the live default (`drop: oldest`) frames are
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
  long rss_early_kib = 0;  // 3 s after frames began to flow
  long rss_late_kib = 0;   // at the end
  double streamed_seconds = 0;   // from the first output frame to the stop
  double output_span_seconds = 0;  // pts of the last output frame minus the first's
};

// Measured here (2 cores): drop oldest — 55 frames out, 269 dropped, latency p99 355 ms,
// RSS +0.1%, the output spans 10.7 s of 10 s; drop never — 62 frames, none dropped, the
// output spans 2.0 s of 10 s (8 s behind the camera).
//
// The search window that keeps the graph a few frame times behind the 30 fps camera: 35x35
// in a normal build; sanitizer builds run nlmeans 20x (ASan) to 80x (TSan) slower, where a
// 35x35 search takes 5-25 s a frame — longer than the whole test, so that no output could
// be current. The cost grows with the window's area: 9x9 (ASan, ~0.4 s) and 5x5 (TSan, ~0.5 s).
int slow_search() {
  const double scale = time_bound(1.0);  // FRAMEPIPE_TEST_TIME_SCALE: 2 ASan, 4 TSan
  return scale >= 4 ? 5 : scale >= 2 ? 9 : 35;
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
  BackgroundRun run(dir.path(), {"run", "p.yaml", "-q", "--stats-json", "stats.json"});
  SlowLiveRun result;
  const auto until = Clock::now() + 20s;
  while (!std::filesystem::exists(dir / "out.mkv") && Clock::now() < until) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(std::filesystem::exists(dir / "out.mkv")) << run.output();
  const auto flowing = Clock::now();
  std::this_thread::sleep_for(3s);
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
  const auto run = run_slow_stage(server, dir, "auto", 10.0);
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
  // A frame waits at most for the queue ahead of it (4 frames), the one in progress and its
  // own processing, plus the encode.
  EXPECT_LT(run.stats["latency_ms"]["p99"].get<double>(), 6 * per_frame_ms + 300) << run.stats.dump(2);
  // Memory flat: the queue, not the backlog, holds the frames. (Not under a sanitizer: ASan
  // keeps freed memory in quarantine and TSan grows its shadow, so RSS says nothing there.)
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  EXPECT_LT(static_cast<double>(run.rss_late_kib), 1.10 * static_cast<double>(run.rss_early_kib));
#endif
  // Current: the output covers (nearly) the whole time it streamed, minus what was dropped.
  EXPECT_GT(run.output_span_seconds, run.streamed_seconds - 2.0);
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
  // less camera time than went by.
  EXPECT_LT(run.output_span_seconds, run.streamed_seconds - 2.0);
}

}  // namespace
}  // namespace fp::test
