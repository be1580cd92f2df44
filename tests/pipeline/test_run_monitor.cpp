// A running pipeline seen through its RunMonitor, from another thread, as framepipe serve
// sees it: the published stats grow while the run runs and end equal to what it returns, the
// heartbeat moves while a paced input is idle, a node's frame on demand is that node's output
// (and asking for it changes nothing in the stream), and the ends: a finished run, an unknown
// id. Real runs on testsrc:// with real-time pacing, on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpu/mean_smooth.hpp"
#include "media/frame_source.hpp"
#include "pipeline/config/loader.hpp"
#include "pipeline/engine/executor.hpp"
#include "pipeline/engine/run_monitor.hpp"
#include "tests/e2e/silent_server.hpp"
#include "tests/pipeline/background_pipeline.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class RunMonitorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(FRAMEPIPE_BINARY_DIR) / "test-output" /
           ("run-monitor-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // input -> smooth (mean_smooth, radius 2) -> out (y4m in the test's folder).
  std::string smoothing_pipeline(const std::string& input) const {
    return "input: " + input +
           "\nstages:\n"
           "  - {id: smooth, type: mean_smooth, radius: 2}\n"
           "  - {id: out, type: encode, output: " +
           (dir_ / "out.y4m").string() + "}\n";
  }

  fs::path dir_;
};

RunOptions paced() {
  RunOptions options;
  options.realtime = true;
  options.drop = DropPolicy::Never;
  return options;
}

// What the monitor shows a stage as, by id.
const StageTiming& stage(const RunStats& stats, const std::string& id) {
  for (const auto& s : stats.stages)
    if (s.id == id) return s;
  throw std::runtime_error("no stage " + id + " in the snapshot");
}

// Waits (bounded) until `holds` is true of the monitor's snapshot.
template <class Predicate>
bool wait_for_snapshot(const RunMonitor& monitor, Predicate holds, double bound) {
  const auto until = Clock::now() + seconds(time_bound(bound));
  while (!holds(monitor.snapshot())) {
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

constexpr const char* kInput = "testsrc://64x48@25?frames=40&noise=20";  // 1.6 s paced
constexpr int kFrames = 40;

TEST_F(RunMonitorTest, SnapshotGrowsWhileTheRunRunsAndEndsEqualToItsStats) {
  RunMonitor monitor;
  EXPECT_TRUE(monitor.snapshot().stages.empty());
  EXPECT_EQ(monitor.snapshot().frames, 0);
  BackgroundPipeline run(paced(), smoothing_pipeline(kInput), monitor);

  // Seen mid-run: some frames through every stage, a latency, and not yet all of them.
  std::vector<std::int64_t> seen;
  bool mid_run = false;
  const auto until = Clock::now() + seconds(time_bound(10.0));
  while (!run.done() && Clock::now() < until) {
    const RunStats now = monitor.snapshot();
    if (!now.stages.empty()) {
      seen.push_back(now.frames);
      if (now.frames > 0 && now.frames < kFrames && !run.done()) {
        mid_run = true;
        EXPECT_GT(stage(now, "input").frames, 0);
        EXPECT_GT(stage(now, "smooth").frames, 0);
        EXPECT_GT(stage(now, "smooth").total_ms, 0.0);
        EXPECT_GT(stage(now, "out").frames, 0);
        EXPECT_GT(now.latency_ms.count(), 0);
        EXPECT_GT(now.wall_seconds, 0.0);
        EXPECT_EQ(stage(now, "input").decoder, "testsrc");
        EXPECT_EQ(stage(now, "out").encoder, "rawvideo (y4m)");
      }
    }
    std::this_thread::sleep_for(50ms);
  }
  const RunStats stats = run.finish(10.0);
  EXPECT_TRUE(mid_run) << "no snapshot showed the run between its first and last frame";
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end())) << "the frame count went backwards";
  EXPECT_GE(std::count_if(seen.begin(), seen.end(), [](std::int64_t f) { return f > 0 && f < kFrames; }), 5)
      << "too few snapshots saw the run grow";
  EXPECT_EQ(stats.frames, kFrames);
  // After the run: exactly what it returned, every field.
  EXPECT_EQ(stats_to_json(monitor.snapshot()), stats_to_json(stats));
}

TEST_F(RunMonitorTest, HeartbeatMovesWhileAPacedInputIsIdle) {
  RunMonitor monitor;
  EXPECT_EQ(monitor.last_heartbeat(), RunMonitor::Clock::time_point{});
  // One frame a second: most of the run the graph's thread waits for input.
  BackgroundPipeline run(paced(), smoothing_pipeline("testsrc://32x24@1?frames=3"), monitor);
  struct Sample {
    std::int64_t frames;
    RunMonitor::Clock::time_point heartbeat;
    RunMonitor::Clock::time_point at;
  };
  std::vector<Sample> samples;
  const auto until = Clock::now() + seconds(time_bound(10.0));
  while (!run.done() && Clock::now() < until) {
    samples.push_back({monitor.snapshot().frames, monitor.last_heartbeat(), Clock::now()});
    std::this_thread::sleep_for(100ms);
  }
  run.finish(10.0);
  // Between two samples without a new frame the heartbeat still moved...
  int idle_beats = 0;
  for (std::size_t i = 1; i < samples.size(); ++i)
    if (samples[i].frames == samples[i - 1].frames && samples[i].frames > 0 &&
        samples[i].heartbeat > samples[i - 1].heartbeat)
      ++idle_beats;
  EXPECT_GE(idle_beats, 5) << "the heartbeat stood still while the input was idle";
  // ...and once frames flow it is never older than a second.
  for (const auto& s : samples) {
    if (s.frames > 0 && s.frames < 3) {
      EXPECT_LT(s.at - s.heartbeat, seconds(time_bound(1.0)));
    }
  }
}

// An input that takes its time to open (a server that accepts and never answers): the
// nodes are known at once, but no heartbeat comes until the inputs are open, so a watcher
// tells a stream still opening from a stalled one; a reader gets nothing, and the failed
// open ends the run.
TEST_F(RunMonitorTest, NoHeartbeatWhileTheInputOpens) {
  SilentServer server;
  RunMonitor monitor;
  BackgroundPipeline run({}, smoothing_pipeline("{uri: 'rtsp://127.0.0.1:" + std::to_string(server.port()) +
                                                "/stream', timeout_ms: 1000, reconnect: {attempts: 0}}"),
                         monitor);
  const auto until = Clock::now() + seconds(time_bound(5.0));
  while (monitor.frame_nodes().empty() && Clock::now() < until) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(monitor.frame_nodes(), (std::vector<std::string>{"input", "smooth", "out"}));
  int samples = 0;
  const auto limit = Clock::now() + seconds(time_bound(20.0));  // the open ends in about 2 s
  for (;;) {
    ASSERT_LT(Clock::now(), limit) << "the run did not end after its open failed";
    // Read first, then asked whether the run was still on: the end (its failed open) sets
    // the final stats, a heartbeat included.
    const auto beat = monitor.last_heartbeat();
    const auto stages = monitor.snapshot().stages.size();
    if (!monitor.running()) break;
    EXPECT_EQ(beat, RunMonitor::Clock::time_point{});
    EXPECT_EQ(stages, 3u);
    EXPECT_FALSE(monitor.newest_frame("smooth", 100ms).has_value());
    ++samples;
  }
  EXPECT_GE(samples, 5);  // the open lasts about 2 s (twice timeout_ms)
  EXPECT_THROW(run.finish(10.0), std::exception);
  EXPECT_FALSE(monitor.newest_frame("smooth", 100ms).has_value());
}

// Frame number `sequence` of a testsrc URI (the same bytes every time it is read).
Frame source_frame(const std::string& uri, std::int64_t sequence) {
  auto source = open_source(uri);
  for (std::int64_t i = 0;; ++i) {
    auto frame = source->read();
    if (!frame) throw std::runtime_error("testsrc ended before frame " + std::to_string(sequence));
    if (i == sequence) return *frame;
  }
}

bool same_plane(const Plane& a, const Plane& b) {
  if (a.width != b.width || a.height != b.height) return false;
  for (int y = 0; y < a.height; ++y)
    if (!std::equal(a.data + y * a.pitch, a.data + y * a.pitch + a.width, b.data + y * b.pitch)) return false;
  return true;
}

// The frame `frame` should be, a mean_smooth (radius 2) of testsrc's frame: the CPU
// reference applied to the source's frame of the same sequence number; chroma unchanged.
void expect_smoothed_source(const Frame& frame, const std::string& uri) {
  const Frame input = source_frame(uri, frame.sequence);
  Frame expected = input;
  std::vector<std::uint8_t> luma(static_cast<std::size_t>(input.width * input.height));
  cpu::mean_smooth(input.luma().cview(), ImageU8{luma.data(), input.width, input.height, input.width}, 2);
  expected.planes[0].data = luma.data();
  expected.planes[0].pitch = input.width;
  EXPECT_TRUE(same_plane(frame.planes[0], expected.planes[0])) << "luma of frame " << frame.sequence;
  EXPECT_TRUE(same_plane(frame.planes[1], input.planes[1])) << "U of frame " << frame.sequence;
  EXPECT_TRUE(same_plane(frame.planes[2], input.planes[2])) << "V of frame " << frame.sequence;
  // Not the source's luma itself: the smoothing shows.
  EXPECT_FALSE(same_plane(frame.planes[0], input.planes[0]));
}

TEST_F(RunMonitorTest, NewestFrameIsThatNodesOutput) {
  RunMonitor monitor;
  BackgroundPipeline run(paced(), smoothing_pipeline(kInput), monitor);
  ASSERT_TRUE(wait_for_snapshot(monitor, [](const RunStats& s) { return s.frames > 0; }, 10.0));
  EXPECT_EQ(monitor.frame_nodes(), (std::vector<std::string>{"input", "smooth", "out"}));

  const auto source = monitor.newest_frame("input", std::chrono::milliseconds(static_cast<int>(time_bound(2000))));
  ASSERT_TRUE(source.has_value());
  EXPECT_EQ(source->width, 64);
  EXPECT_EQ(source->height, 48);
  const Frame expected = source_frame(kInput, source->sequence);
  for (int p = 0; p < 3; ++p) EXPECT_TRUE(same_plane(source->planes[p], expected.planes[p])) << "plane " << p;

  const auto smoothed = monitor.newest_frame("smooth", std::chrono::milliseconds(static_cast<int>(time_bound(2000))));
  ASSERT_TRUE(smoothed.has_value());
  EXPECT_EQ(smoothed->width, 64);
  EXPECT_EQ(smoothed->height, 48);
  EXPECT_GT(smoothed->sequence, source->sequence);  // the next frame, not an old one
  expect_smoothed_source(*smoothed, kInput);

  // A sink's frame is the one it writes: its input's.
  const auto written = monitor.newest_frame("out", std::chrono::milliseconds(static_cast<int>(time_bound(2000))));
  ASSERT_TRUE(written.has_value());
  expect_smoothed_source(*written, kInput);

  // Asking changed nothing in the stream: every frame, nothing dropped.
  const RunStats stats = run.finish(10.0);
  EXPECT_EQ(stats.frames, kFrames);
  EXPECT_EQ(stats.frames_dropped, 0);
  EXPECT_EQ(stage(stats, "out").frames, kFrames);
}

// Readers that wait a little and go (so that frames are downloaded and delivered to nobody),
// and readers that keep the frames they got: the stream loses no frame and keeps its pace.
TEST_F(RunMonitorTest, ReadersNeverHoldUpTheStream) {
  RunMonitor monitor;
  BackgroundPipeline run(paced(), smoothing_pipeline(kInput), monitor);
  ASSERT_TRUE(wait_for_snapshot(monitor, [](const RunStats& s) { return s.frames > 0; }, 10.0));
  std::atomic<bool> over{false};
  std::atomic<int> received{0};
  std::vector<std::thread> readers;
  for (const char* id : {"input", "smooth", "out", "smooth"})
    readers.emplace_back([&, id] {
      std::vector<Frame> kept;  // never given back while the run runs
      while (!over) {
        if (auto frame = monitor.newest_frame(id, 1ms)) {
          kept.push_back(std::move(*frame));
          ++received;
        }
      }
    });
  const RunStats stats = run.finish(10.0);
  over = true;
  for (auto& reader : readers) reader.join();
  EXPECT_GT(received.load(), 0);
  EXPECT_EQ(stats.frames, kFrames);
  EXPECT_EQ(stats.frames_dropped, 0);
  EXPECT_EQ(stage(stats, "out").frames, kFrames);
  // Paced at 25 fps, 40 frames last 1.6 s: a stream held up by its readers would take longer.
  EXPECT_LT(stats.wall_seconds, 1.6 + time_bound(1.0));
  EXPECT_LT(stats.latency_ms.percentile(50), time_bound(100.0));
}

TEST_F(RunMonitorTest, AFinishedRunGivesNoFrame) {
  RunMonitor monitor;
  {
    BackgroundPipeline run(paced(), smoothing_pipeline("testsrc://32x24@25?frames=5"), monitor);
    run.finish(10.0);
  }
  const auto t0 = Clock::now();
  EXPECT_FALSE(monitor.newest_frame("smooth", 2s).has_value());
  EXPECT_LT(Clock::now() - t0, 1s) << "a finished run has no next frame to wait for";
}

TEST_F(RunMonitorTest, AReaderWaitingWhenTheRunEndsIsLetGo) {
  RunMonitor monitor;
  // One frame a second: a reader that just missed one waits most of a second for the next.
  BackgroundPipeline run(paced(), smoothing_pipeline("testsrc://32x24@1?frames=100"), monitor);
  ASSERT_TRUE(wait_for_snapshot(monitor, [](const RunStats& s) { return s.frames > 0; }, 10.0));
  ASSERT_TRUE(monitor.newest_frame("smooth", std::chrono::milliseconds(static_cast<int>(time_bound(3000)))));
  std::optional<Frame> late;
  Clock::duration waited{};
  std::thread reader([&] {
    const auto t0 = Clock::now();
    late = monitor.newest_frame("smooth", 30s);
    waited = Clock::now() - t0;
  });
  std::this_thread::sleep_for(100ms);
  run.stop();
  const RunStats stats = run.finish(10.0);
  reader.join();
  EXPECT_TRUE(stats.interrupted);
  EXPECT_FALSE(late.has_value());
  EXPECT_LT(waited, seconds(time_bound(3.0)));
}

TEST_F(RunMonitorTest, UnknownIdThrows) {
  RunMonitor monitor;
  EXPECT_THROW(monitor.newest_frame("smooth", 0ms), std::invalid_argument);  // no run yet
  BackgroundPipeline run(paced(), smoothing_pipeline("testsrc://32x24@25?frames=10"), monitor);
  ASSERT_TRUE(wait_for_snapshot(monitor, [](const RunStats& s) { return s.frames > 0; }, 10.0));
  try {
    monitor.newest_frame("smoothe", 0ms);
    ADD_FAILURE() << "no error for an unknown id";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'smoothe'"), std::string::npos) << e.what();
  }
  run.finish(10.0);
}

}  // namespace
}  // namespace fp::test
