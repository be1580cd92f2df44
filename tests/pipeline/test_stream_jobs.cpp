// The stream cap: the limiter admits up to its cap and a stream's end lets the next in; the
// default --jobs follows the memory there is and the size of a stream; live inputs that
// would fill every place are refused under an explicit --jobs and make room under the default.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "pipeline/definition/config_error.hpp"
#include "pipeline/capacity/jobs.hpp"
#include "pipeline/capacity/limiter.hpp"
#include "stages/registry.hpp"
#include "tests/time_bound.hpp"

namespace fp {
namespace {

using namespace std::chrono_literals;
using test::time_bound;

TEST(StreamLimiter, AdmitsUpToItsCapAndCountsThePeak) {
  StreamLimiter limiter(2);
  EXPECT_TRUE(limiter.try_admit());
  EXPECT_TRUE(limiter.try_admit());
  EXPECT_FALSE(limiter.try_admit());
  EXPECT_FALSE(limiter.admit_within(10ms));
  limiter.release();
  EXPECT_TRUE(limiter.try_admit());
  EXPECT_EQ(limiter.running(), 2u);
  limiter.admit_anyway();  // a live stream: in whatever the cap
  EXPECT_EQ(limiter.running(), 3u);
  EXPECT_EQ(limiter.peak(), 3u);
}

TEST(StreamLimiter, AStreamsEndWakesTheOneWaiting) {
  StreamLimiter limiter(1);
  ASSERT_TRUE(limiter.try_admit());
  std::thread ending([&] {
    std::this_thread::sleep_for(50ms);
    limiter.release();
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(limiter.admit_within(10s));
  // Woken by the release (50 ms in), not the 10 s timeout: the bound stays below it at any
  // sanitizer scale (at most 4).
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), time_bound(1.0));
  ending.join();
  EXPECT_EQ(limiter.peak(), 1u);
}

TEST(StreamJobs, TheDefaultFollowsMemoryAndFrameSize) {
  StreamFootprint small;
  small.width = 320;
  small.height = 240;
  StreamFootprint large = small;
  large.width = 1920;
  large.height = 1080;
  const std::size_t gib = std::size_t{1} << 30;
  const int small_jobs = jobs_that_fit(HostMemory{16 * gib}, {}, small);
  EXPECT_GT(small_jobs, jobs_that_fit(HostMemory{16 * gib}, {}, large));
  EXPECT_NEAR(jobs_that_fit(HostMemory{32 * gib}, {}, large), 2 * jobs_that_fit(HostMemory{16 * gib}, {}, large), 1);
  EXPECT_EQ(jobs_that_fit(HostMemory{0}, {}, large), 1);  // always one: a run never waits for nothing
  // 1080p on 16 cores, a default pipeline's decode and encode: 200 to 500 MB a stream (285 MB measured).
  large.cores = 16;
  large.nodes = 2;
  EXPECT_GT(stream_host_bytes(large), std::size_t{200} << 20);
  EXPECT_LT(stream_host_bytes(large), std::size_t{500} << 20);
  // A data limit (ulimit -d) counts the threads' whole stacks as well, and 60% of it is used
  // (an allocation past it fails: jobs.cpp says what the rest covers).
  const HostMemory limited{.available = 16 * gib, .data_left = 2 * gib, .stack_bytes = std::size_t{8} << 20};
  EXPECT_LT(jobs_that_fit(limited, {}, large), jobs_that_fit(HostMemory{16 * gib}, {}, large));
  EXPECT_EQ(jobs_that_fit(limited, {}, large),
            static_cast<int>(2 * gib * 6 / 10 / (stream_host_bytes(large) + stream_stack_bytes(large, std::size_t{8} << 20))));
  // On a GPU the device's free memory caps it too, the streams spread over every GPU.
  large.gpu = true;
  const std::size_t each = stream_device_bytes(large);
  EXPECT_EQ(jobs_that_fit(HostMemory{1024 * gib}, {each * 10}, large), 8);          // 80% of 10 streams' worth
  EXPECT_EQ(jobs_that_fit(HostMemory{1024 * gib}, {each * 10, each * 10}, large), 16);
  // What a stage with history keeps counts where it is kept: on the device on a GPU.
  // One more node on one slot is one more frame: the size of a frame in the estimate.
  StreamFootprint one_slot = large;
  one_slot.slots = 1;
  StreamFootprint one_more = one_slot;
  ++one_more.nodes;
  const std::size_t device_frame = stream_device_bytes(one_more) - stream_device_bytes(one_slot);
  StreamFootprint keeping = large;
  keeping.kept_frames = 8;
  EXPECT_EQ(stream_device_bytes(keeping), each + 8 * device_frame);
  EXPECT_EQ(stream_host_bytes(keeping), stream_host_bytes(large));
  keeping.gpu = false;
  large.gpu = false;
  EXPECT_GE(stream_host_bytes(keeping), stream_host_bytes(large) + std::size_t{8} * 1920 * 1080 * 3 / 2);
}

// temporal_nlmeans says what it keeps: nothing spatially, more frames with more history.
TEST(StreamJobs, ATemporalStageCountsWhatItKeeps) {
  const StageSpec* spec = find_stage("temporal_nlmeans");
  ASSERT_NE(spec, nullptr);
  ASSERT_TRUE(spec->kept_frames);
  auto kept = [&](std::int64_t frames, const char* recursive) {
    StageParams params;
    params.set("frames", frames);
    params.set("recursive", std::string(recursive));
    return spec->kept_frames(params);
  };
  EXPECT_EQ(kept(0, "false"), 0.0);
  EXPECT_GT(kept(4, "false"), kept(2, "false"));
  EXPECT_GT(kept(2, "true"), kept(2, "false") + 1);
  // frames 2 at 1080p: 3 frames' luma and halvings and two float planes, ~25 MB.
  EXPECT_NEAR(kept(2, "false") * 1920 * 1080 * 1.5 / 1e6, 3 * 1920 * 1080 * 4.0 / 3 / 1e6 + 1920 * 1080 * 8 / 1e6, 0.5);
  EXPECT_FALSE(find_stage("nlmeans")->kept_frames);
}

TEST(StreamJobs, LiveInputsGetTheirPlacesOrAreRefused) {
  const std::vector<bool> one_live_two_files{true, false, false};
  EXPECT_EQ(resolve_stream_jobs(2, "--jobs", 0, one_live_two_files), 2);
  EXPECT_THROW(resolve_stream_jobs(1, "--jobs", 0, one_live_two_files), UsageError);
  EXPECT_THROW(resolve_stream_jobs(1, "--jobs", 0, {true, true}), UsageError);
  EXPECT_EQ(resolve_stream_jobs(2, "--jobs", 0, {true, true}), 2);
  // The default starts every live input and leaves one place for the files.
  EXPECT_EQ(resolve_stream_jobs(0, "--jobs", 1, {true, true, false, false}), 3);
  EXPECT_EQ(resolve_stream_jobs(0, "--jobs", 2, {true, true}), 2);
  // Never more places than streams.
  EXPECT_EQ(resolve_stream_jobs(0, "--jobs", 1000, {false, false, false}), 3);
  EXPECT_EQ(resolve_stream_jobs(16, "--jobs", 0, {false, false}), 2);
}

}  // namespace
}  // namespace fp
