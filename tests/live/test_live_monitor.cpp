// A live input's reconnects as a watcher of the run sees them (framepipe serve's stream
// state): reconnecting() while the RTSP server is gone, not once frames are back. A real
// GStreamer RTSP server on loopback, killed (as a camera losing power) and started again.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "pipeline/engine/run_monitor.hpp"
#include "tests/live/rtsp_server.hpp"
#include "tests/pipeline/background_pipeline.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Waits (bounded: `bound` seconds, scaled) until `holds()`.
template <class Predicate>
bool wait_until(Predicate holds, double bound) {
  const auto until = Clock::now() + seconds(time_bound(bound));
  while (!holds()) {
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

const StageTiming& input_stage(const RunStats& stats) {
  for (const auto& s : stats.stages)
    if (s.id == "input") return s;
  throw std::runtime_error("no input stage");
}

TEST(LiveMonitor, ReconnectingWhileTheServerIsGoneAndNotOnceFramesAreBack) {
  FP_REQUIRE_RTSP_SERVER();
  RtspServer server;
  const fs::path dir = fs::path(FRAMEPIPE_BINARY_DIR) / "test-output" / "live-monitor";
  fs::remove_all(dir);
  fs::create_directories(dir);
  RunMonitor monitor;
  BackgroundPipeline run({}, "input: {uri: '" + server.uri() +
                                 "', timeout_ms: 1000, reconnect: {initial_ms: 200, max_ms: 1000}}\n"
                                 "stages:\n  - {id: out, type: encode, output: " + (dir / "out.mkv").string() + "}\n",
                         monitor);
  ASSERT_TRUE(wait_until([&] { return monitor.snapshot().frames >= 10; }, 15.0)) << "no frames from the server";
  EXPECT_FALSE(monitor.reconnecting());

  server.kill();
  // Lost at once (the connection is reset) or after the read timeout (1 s).
  ASSERT_TRUE(wait_until([&] { return monitor.reconnecting(); }, 1.0 + time_bound(5.0)))
      << "reconnecting() stayed false with the server gone";
  // Still away a second later (every attempt fails), while the graph's heartbeat goes on.
  std::this_thread::sleep_for(1s);
  EXPECT_TRUE(monitor.reconnecting());
  EXPECT_LT(Clock::now() - monitor.last_heartbeat(), seconds(time_bound(1.0)));
  const std::int64_t frames_before = monitor.snapshot().frames;

  server.start();
  // Back within one backoff step (1 s at most) and the reconnection.
  ASSERT_TRUE(wait_until([&] { return !monitor.reconnecting(); }, 1.0 + time_bound(10.0)))
      << "reconnecting() stayed true with the server back";
  ASSERT_TRUE(wait_until([&] { return monitor.snapshot().frames > frames_before + 5; }, 10.0))
      << "no frames after the reconnect";
  EXPECT_FALSE(monitor.reconnecting());
  // The gap as the source's thread published it.
  const auto reconnect = input_stage(monitor.snapshot()).reconnect;
  ASSERT_TRUE(reconnect.has_value());
  EXPECT_EQ(reconnect->reconnects, 1);

  run.stop();
  const RunStats stats = run.finish(10.0);
  EXPECT_FALSE(monitor.reconnecting());
  ASSERT_TRUE(input_stage(stats).reconnect.has_value());
  EXPECT_EQ(input_stage(stats).reconnect->reconnects, 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fp::test
