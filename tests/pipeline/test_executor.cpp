// The executor: pairing of sources, frame limits, stop requests, and what is left on disk
// when something fails.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "media/frame_source.hpp"
#include "pipeline/config/loader.hpp"
#include "pipeline/engine/executor.hpp"
#include "pipeline/engine/pacer.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

class ExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(FRAMEPIPE_BINARY_DIR) / "test-output" /
           ("executor-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Paths in the YAML are relative to the test's folder.
  RunStats run(std::string yaml, RunOptions options = {}) {
    for (std::size_t at = 0; (at = yaml.find("DIR/", at)) != std::string::npos;) yaml.replace(at, 4, dir_.string() + "/");
    definition_ = parse_pipeline(yaml, "test.yaml");
    return run_pipeline(definition_, Device{}, options);
  }

  static long long frames_in(const fs::path& video) {
    auto source = open_source(video.string());
    long long frames = 0;
    while (source->read()) ++frames;
    return frames;
  }

  fs::path dir_;
  PipelineDefinition definition_;
};

TEST_F(ExecutorTest, RunsEveryStageOnEveryFrame) {
  const auto stats = run(R"(input: testsrc://48x32@10?noise=5&frames=5
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: skel, type: thinning}
  - {id: out, type: encode, output: DIR/out.y4m}
)");
  EXPECT_EQ(stats.frames, 5);
  ASSERT_EQ(stats.stages.size(), 4u);
  for (const auto& stage : stats.stages) EXPECT_EQ(stage.frames, 5) << stage.id;
  EXPECT_EQ(stats.stages[0].decoder, "testsrc");
  EXPECT_EQ(stats.stages[3].encoder, "rawvideo (y4m)");
  EXPECT_EQ(stats.latency_ms.count(), 5);
  EXPECT_EQ(frames_in(dir_ / "out.y4m"), 5);
  EXPECT_FALSE(stats.interrupted);
}

// The host side of a CPU run: its threads' CPU time, and nothing crossing PCIe.
TEST_F(ExecutorTest, ACpuRunReportsItsHostTimeAndNoPcieBytes) {
  const auto stats = run(R"(input: testsrc://48x32@10?noise=5&frames=5
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: out, type: encode, output: DIR/out.y4m}
  - {id: again, type: encode, input: smooth, output: DIR/again.mp4}
)");
  EXPECT_EQ(stats.frames, 5);
  EXPECT_GT(stats.host_cpu_ms, 0.0);
  EXPECT_EQ(stats.bytes_uploaded, 0);
  EXPECT_EQ(stats.bytes_downloaded, 0);
  EXPECT_EQ(frames_in(dir_ / "out.y4m"), 5);
}

TEST_F(ExecutorTest, SeveralSourcesEndWithTheShortest) {
  const auto stats = run(R"(stages:
  - {id: a, type: decode, uri: "testsrc://40x30@10?frames=7"}
  - {id: b, type: decode, uri: "testsrc://40x30@10?frames=4&noise=30"}
  - {id: fused, type: pyramid_fusion, inputs: [a, b], levels: 3}
  - {id: out, type: encode, output: DIR/fused.y4m}
  - {id: copy, type: encode, input: a, output: DIR/a.y4m}
)");
  EXPECT_EQ(stats.frames, 4);
  EXPECT_EQ(frames_in(dir_ / "fused.y4m"), 4);
  EXPECT_EQ(frames_in(dir_ / "a.y4m"), 4);
}

TEST_F(ExecutorTest, MaxFramesLimitsEachSource) {
  RunOptions options;
  options.max_frames = 3;
  const auto stats = run("input: testsrc://32x32@10?frames=0\nstages:\n  - {type: encode, output: DIR/out.y4m}\n", options);
  EXPECT_EQ(stats.frames, 3);
  EXPECT_EQ(frames_in(dir_ / "out.y4m"), 3);
}

// A stop that comes while frames flow (set from the graph's thread once 10 frames have
// entered it, as a signal handler would set it at any moment) ends the endless run: the run
// says it was interrupted, and the mp4 is finalized with every frame that went through: its
// index is written, so each of them decodes.
TEST_F(ExecutorTest, StopRequestEndsAnEndlessRunAndFinalizesOutputs) {
  constexpr int kStopAfter = 10;
  constexpr int kNoStopSeen = 500;  // a run that ignores the stop fails here instead of running forever
  std::atomic<bool> stop{false};
  int entered = 0;
  RunOptions options;
  options.stop = &stop;
  options.hooks.before_upload = [&](FrameContext&) {
    if (++entered == kStopAfter) stop = true;
    if (entered > kNoStopSeen) throw std::runtime_error("the stop request did not end the run");
  };
  const auto stats = run("input: testsrc://64x48@10?noise=10&frames=0\nstages:\n  - {type: encode, output: DIR/out.mp4}\n",
                         options);
  EXPECT_TRUE(stats.interrupted);
  EXPECT_GE(stats.frames, kStopAfter);
  EXPECT_EQ(frames_in(dir_ / "out.mp4"), stats.frames);
}

TEST_F(ExecutorTest, InputsOfDifferentSizesFailBeforeAnyOutputIsCreated) {
  try {
    run(R"(stages:
  - {id: a, type: decode, uri: "testsrc://40x30@10?frames=3"}
  - {id: b, type: decode, uri: "testsrc://42x30@10?frames=3"}
  - {id: fused, type: pyramid_fusion, inputs: [a, b]}
  - {id: out, type: encode, output: DIR/fused.y4m}
)");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("fused"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("40x30"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "fused.y4m"));
}

// A side output that fails mid-run (a full disk) is left out and the run goes on: the
// video gets every frame, and the run ends with the side output's error.
TEST_F(ExecutorTest, FailedOutputIsLeftOutAndTheOthersGetEveryFrame) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  fs::create_symlink("/dev/full", dir_ / "hist.jsonl");
  try {
    run(R"(input: testsrc://64x48@10?frames=200
stages:
  - {id: hist, type: luma_histogram, output: DIR/hist.jsonl}
  - {id: out, type: encode, output: DIR/out.y4m}
)");
    FAIL() << "expected a write error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("hist: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("hist.jsonl: cannot write: No space left on device"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(frames_in(dir_ / "out.y4m"), 200);
}

// When every output has failed there is nothing left to write: an endless run stops by
// itself with their errors (a watchdog's stop would end it as an interruption instead).
TEST_F(ExecutorTest, RunStopsWhenEveryOutputHasFailed) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  fs::create_symlink("/dev/full", dir_ / "hist.csv");
  fs::create_symlink("/dev/full", dir_ / "out.y4m");
  std::atomic<bool> stop{false};
  std::thread watchdog([&stop] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(30.0));
    while (!stop && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop = true;
  });
  RunOptions options;
  options.stop = &stop;
  std::string error;
  try {
    run(R"(input: testsrc://64x48@10?frames=0
stages:
  - {id: hist, type: luma_histogram, output: DIR/hist.csv}
  - {id: out, type: encode, output: DIR/out.y4m}
)",
        options);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  const bool stopped_by_watchdog = stop.exchange(true);
  watchdog.join();
  EXPECT_FALSE(stopped_by_watchdog) << "the run went on with no output left";
  EXPECT_NE(error.find("out: "), std::string::npos) << error;
  EXPECT_NE(error.find("hist: "), std::string::npos) << error;
}

// A thread that cannot start (std::thread throws std::system_error when the system has none
// left) fails the run with an error naming the stage, after the threads that did start are
// stopped and every opened output is finalized: no hang, no std::terminate.
TEST_F(ExecutorTest, AThreadThatCannotStartFailsTheRunCleanly) {
  RunOptions options;
  options.hooks.before_thread_start = [](const std::string& stage) {
    if (stage == "second") throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
  };
  try {
    run(R"(input: testsrc://32x32@10?frames=0
stages:
  - {id: first, type: encode, output: DIR/first.mkv}
  - {id: second, type: encode, output: DIR/second.y4m}
)",
        options);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("second"), std::string::npos) << message;
    EXPECT_NE(message.find("cannot start"), std::string::npos) << message;
  }
  EXPECT_TRUE(fs::exists(dir_ / "first.mkv"));
  EXPECT_TRUE(fs::exists(dir_ / "second.y4m"));
}

// --realtime releases frames at the source's frame rate: 10 frames at 50 fps take at least
// the 9 frame intervals between the first and the last.
TEST_F(ExecutorTest, RealtimePacesTheSourceAtItsFrameRate) {
  RunOptions options;
  options.realtime = true;
  const auto stats = run("input: testsrc://32x32@50?frames=10\nstages:\n  - {type: encode, output: DIR/out.y4m}\n", options);
  EXPECT_EQ(stats.frames, 10);
  EXPECT_GE(stats.wall_seconds, 9.0 / 50.0);
}

// A stop request while a paced source waits for its next frame ends the run at once. At
// 1/8 fps the second frame is due 8 s after the first: a stop 300 ms in lands in that wait
// (or in the start-up, which checks it too), and a wait that ignored it would end only when
// the frame is due, 7.7 s later, beyond the bound even at the largest sanitizer scale (4).
// The bound counts from the stop, not from the start.
TEST_F(ExecutorTest, StopRequestEndsARealtimeWait) {
  using Clock = std::chrono::steady_clock;
  std::atomic<bool> stop{false};
  std::atomic<Clock::rep> stopped_at{0};
  RunOptions options;
  options.realtime = true;
  options.stop = &stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stopped_at = Clock::now().time_since_epoch().count();
    stop = true;
  });
  const auto stats = run("input: testsrc://32x32@1/8?frames=0\nstages:\n  - {type: encode, output: DIR/out.y4m}\n", options);
  const auto ended = Clock::now();
  stopper.join();
  EXPECT_TRUE(stats.interrupted);
  const auto stopped = Clock::time_point(Clock::duration(stopped_at.load()));
  EXPECT_LT(std::chrono::duration<double>(ended - stopped).count(), time_bound(1.0));
}

// A paced input faster than the graph on any machine: with `drop: oldest` the source's
// queue drops frames instead of letting them pile up, every frame decoded is either
// processed or counted as dropped, the output keeps its order, and a frame waits at most for
// the frames queued ahead of it: its latency is bounded by a few frames' processing time.
// With `drop: never` nothing is lost.
//
// Why the graph cannot keep up, whatever the CPU: the source is paced at 10^6 fps, so it
// delivers frames as fast as it can make them. A 160x90 test pattern without noise is a few
// row copies, a few microseconds. CPU nlmeans with the largest search (51x51, 2601 offsets)
// does per pixel and offset at least a dozen vector-lane operations (the SSD update, the
// exp2 polynomial's 7 multiply-adds, the weighted sums): 14400 * 2601 * 12 = 4.5e8 lane
// operations a frame. Its tiles are at least 16 columns wide and 16 rows high, so at most
// 10 * 5 = 50 threads share a frame; at 16 lanes (AVX-512), two vector units and 5 GHz that
// is 8e12 lane operations a second, 56 us a frame, several times the source's frame time.
// Measured on 2 cores: ~40 ms a frame.
//
// Under the sanitizers (FRAMEPIPE_SMALL_SIZES) a frame of search 51 took ~1 s (TSan: 116 s for
// the test on CI's 2 cores); search 25 (625 offsets) keeps such a build's graph thousands of
// times slower than the source still, in a quarter of the time.
TEST_F(ExecutorTest, DropOldestKeepsUpWithAnInputFasterThanTheGraph) {
  const char* search = std::getenv("FRAMEPIPE_SMALL_SIZES") != nullptr ? "25" : "51";
  const std::string pipeline = std::string("input: testsrc://160x90@1000000?frames=30\nstages:\n") +
                               "  - {id: denoise, type: nlmeans, search: " + search +
                               "}\n  - {id: out, type: encode, output: DIR/out.y4m}\n";
  RunOptions options;
  options.realtime = true;
  options.drop = DropPolicy::Oldest;
  const auto dropping = run(pipeline, options);
  const StageTiming& input = dropping.stages.front();
  EXPECT_EQ(input.drop_policy, "oldest");
  EXPECT_GT(dropping.frames_dropped, 0);
  EXPECT_EQ(input.frames_dropped, dropping.frames_dropped);
  EXPECT_EQ(dropping.frames + dropping.frames_dropped, 30);
  EXPECT_EQ(frames_in(dir_ / "out.y4m"), dropping.frames);
  auto source = open_source((dir_ / "out.y4m").string());
  std::int64_t last_pts = -1;
  while (auto frame = source->read()) {
    EXPECT_GT(frame->pts, last_pts) << "frames stay in order";
    last_pts = frame->pts;
  }
  // The frames queued ahead of it, the one being processed and its own, plus the first
  // frame's start-up (buffers, worker threads: 150 ms, scaled for slow builds).
  const double per_frame = dropping.stages[1].mean_ms();
  EXPECT_LT(dropping.latency_ms.max(),
            (static_cast<double>(options.queue_depth) + 2) * per_frame + 1000 * time_bound(0.150))
      << "per frame " << per_frame << " ms";

  options.drop = DropPolicy::Never;
  const auto waiting = run(pipeline, options);
  EXPECT_EQ(waiting.stages.front().drop_policy, "never");
  EXPECT_EQ(waiting.frames_dropped, 0);
  EXPECT_EQ(waiting.frames, 30);
  // Without drops the backlog waits: the last frame was due with the first (the source is
  // paced at 10^6 fps) and waits for those ahead of it, more than twice the frames that
  // `drop: oldest` lets a frame wait for (on 2 cores: ~28 frame times waiting, ~5 dropping)
  // — or, where frames are slow enough for the backlog to pass the pacer's limit on
  // lateness (Pacer::kMaxLateSeconds: the pace restarts there; a TSan build takes ~1 s a
  // frame), more than that limit. Both sides come from this run: comparing with the dropping
  // run's latency compared two loads (TSan beside other tests once made the dropping run's
  // frames the slower ones).
  const double waiting_per_frame = waiting.stages[1].mean_ms();
  const double backlog_ms = std::min(2 * (static_cast<double>(options.queue_depth) + 2) * waiting_per_frame,
                                     1000 * Pacer::kMaxLateSeconds);
  EXPECT_GT(waiting.latency_ms.max(), backlog_ms)
      << "without drops the backlog waits; per frame " << waiting_per_frame << " ms";
}

// Reads a FIFO slowly on its own thread, as a receiver that cannot keep up: 4 KiB every
// millisecond (a 320x240 y4m frame, 115 KiB, takes ~30 ms).
class SlowReader {
 public:
  explicit SlowReader(const fs::path& fifo) {
    if (mkfifo(fifo.c_str(), 0644) != 0) throw std::runtime_error("mkfifo failed");
    thread_ = std::thread([this, fifo] {
      // Non-blocking open and poll: a run that never opens its output cannot hang the test.
      const int fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
      if (fd < 0) return;
      char buffer[4096];
      bool writer_seen = false;
      for (int idle = 0; !stop_ && idle < 10000;) {
        const ssize_t n = read(fd, buffer, sizeof(buffer));
        if (n > 0) {
          writer_seen = true;
          idle = 0;
          bytes_ += n;
        } else if (n == 0 && writer_seen) {
          break;  // the writer closed: the end of the output
        } else {
          ++idle;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      close(fd);
    });
  }
  ~SlowReader() {
    stop_ = true;
    join();
  }
  void join() {
    if (thread_.joinable()) thread_.join();
  }
  long long bytes() const { return bytes_; }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<long long> bytes_{0};
  std::thread thread_;
};

// An output with `drop: oldest` that cannot keep up (a receiver reading slowly) drops its
// own oldest frames; the graph and the other output go on at the input's pace and get
// every frame. With `drop: never` (the default) the slow output holds everything back.
TEST_F(ExecutorTest, ASlowOutputThatDropsDoesNotHoldBackTheOthers) {
  constexpr int kFrames = 60;
  constexpr long long kFrameBytes = 6 + 320 * 240 * 3 / 2;  // "FRAME\n" and the planes
  const std::string pipeline = "input: testsrc://320x240@100?frames=60\nstages:\n"
                               "  - {id: slow, type: encode, output: DIR/slow.y4m, drop: DROP}\n"
                               "  - {id: fast, type: encode, input: input, output: DIR/fast.y4m}\n";
  RunOptions options;
  options.realtime = true;  // 100 fps: a frame every 10 ms, three times what the reader takes
  auto with_drop = [&](const std::string& drop) {
    std::string yaml = pipeline;
    yaml.replace(yaml.find("DROP"), 4, drop);
    return yaml;
  };

  SlowReader dropping_reader(dir_ / "slow.y4m");
  const auto started = std::chrono::steady_clock::now();
  const auto dropping = run(with_drop("oldest"), options);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  dropping_reader.join();
  const StageTiming& slow = dropping.stages[1];
  EXPECT_EQ(slow.drop_policy, "oldest");
  EXPECT_GT(slow.frames_dropped, 0);
  EXPECT_EQ(slow.frames + slow.frames_dropped, kFrames);
  EXPECT_EQ(dropping.frames_dropped, slow.frames_dropped);
  EXPECT_EQ(dropping.stages[2].frames, kFrames);
  EXPECT_EQ(dropping.stages[2].frames_dropped, 0);
  EXPECT_EQ(frames_in(dir_ / "fast.y4m"), kFrames);
  // Every frame it kept reached the reader, after the stream header (shorter than a frame).
  EXPECT_GT(dropping_reader.bytes(), slow.frames * kFrameBytes);
  EXPECT_LT(dropping_reader.bytes(), (slow.frames + 1) * kFrameBytes);
  // The input's pace (0.6 s, real time: unscaled) plus draining the slow output's queue (4
  // frames, ~30 ms each) and start-up, not 60 frames at the reader's pace (~1.8 s).
  EXPECT_LT(took, 0.6 + time_bound(0.6));

  fs::remove(dir_ / "slow.y4m");
  SlowReader waiting_reader(dir_ / "slow.y4m");
  const auto waiting = run(with_drop("never"), options);
  waiting_reader.join();
  EXPECT_EQ(waiting.stages[1].drop_policy, "never");
  EXPECT_EQ(waiting.frames_dropped, 0);
  EXPECT_EQ(waiting.stages[1].frames, kFrames);
  EXPECT_GT(waiting_reader.bytes(), kFrames * kFrameBytes);
  EXPECT_LT(waiting_reader.bytes(), (kFrames + 1) * kFrameBytes);
  EXPECT_GT(waiting.latency_ms.max(), dropping.latency_ms.max()) << "without drops the fast output waits too";
}

// `drop: auto` (the default) never drops a file's or testsrc's frames.
TEST_F(ExecutorTest, AutoDropPolicyNeverDropsFramesOfANonLiveInput) {
  const auto stats = run("input: testsrc://64x48@30?frames=12\nstages:\n  - {type: encode, output: DIR/out.y4m}\n");
  EXPECT_EQ(stats.stages.front().drop_policy, "never");
  EXPECT_EQ(stats.frames_dropped, 0);
}

}  // namespace
}  // namespace fp::test
