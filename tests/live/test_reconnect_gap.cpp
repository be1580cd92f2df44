// A reconnected live input marks the first frame after the gap (Frame::follows_gap), and only
// that frame: what stages with history (temporal_nlmeans) start anew on. A real GStreamer
// RTSP server on loopback, killed (as a camera losing power) and started again, read through
// open_source as the decode stage reads it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>

#include "media/frame_source.hpp"
#include "tests/live/rtsp_server.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

TEST(ReconnectGap, OnlyTheFirstFrameAfterAReconnectFollowsAGap) {
  FP_REQUIRE_RTSP_SERVER();
  RtspServer server;
  SourceOptions options;
  options.network_timeout_ms = 1000;
  options.reconnect = {.attempts = ReconnectPolicy::kForever, .initial_ms = 100, .max_ms = 500};
  // Every read is bounded: a reconnect that never comes would block a read for ever (the
  // policy is "forever"), so at the deadline the source's stop is set and the read returns
  // nothing, which fails the test below instead of hanging it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(30.0));
  std::atomic<bool> out_of_time{false};
  options.stop = &out_of_time;
  std::jthread watchdog([&](std::stop_token done) {
    std::mutex mutex;
    std::condition_variable_any wake;
    std::unique_lock lock(mutex);
    if (!wake.wait_until(lock, done, deadline, [] { return false; }) && !done.stop_requested()) out_of_time = true;
  });
  auto source = open_source(server.uri(), options);

  for (int i = 0; i < 10; ++i) {
    const std::optional<Frame> frame = source->read();
    ASSERT_TRUE(frame) << "the stream ended before the server was killed";
    EXPECT_FALSE(frame->follows_gap) << "frame " << i << " of the first session";
  }
  server.kill();
  server.start();
  // The frames the first session had buffered may still come, unmarked; then the new
  // session's first frame is marked, and none after it.
  std::int64_t marked = 0;
  int after_gap = 0;
  while (after_gap < 10) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no frame after the reconnect was marked as following a gap";
    const std::optional<Frame> frame = source->read();
    ASSERT_TRUE(frame) << (out_of_time ? "no frame came after the reconnect within the bound"
                                       : "the stream ended instead of reconnecting");
    if (frame->follows_gap) ++marked;
    if (marked > 0) ++after_gap;
    if (marked > 0 && after_gap > 1) {
      EXPECT_FALSE(frame->follows_gap) << after_gap << " frames after the gap";
    }
  }
  EXPECT_EQ(marked, 1);
  const ReconnectStats* stats = source->reconnect_stats();
  ASSERT_NE(stats, nullptr);
  EXPECT_EQ(stats->reconnects, 1);
}

}  // namespace
}  // namespace fp::test
