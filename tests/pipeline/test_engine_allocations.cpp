// The engine allocates nothing per frame once it is warm (DESIGN.md: buffers come from pools
// set up with the graph). A run on the CPU — a decoded H.264 file, three stages, a y4m
// output — counts every C++ heap allocation of the process (a replaced global operator new)
// in nine windows of 100 source frames, from the 100th to the 1000th: every one must have
// none.
// A pool grows only when more frames are in flight at once than ever before, and a sink's
// latency histogram only for a latency beyond all seen before (latency_histogram.hpp): both
// happen on a loaded machine whenever an output is held up for longer than ever, which a
// warm run cannot promise (on the H200 under `ctest -j8` beside the GPU tests, 6, 5 and 10
// allocations in the first three windows). So the warm-up holds the output up once, at its
// 50th frame, for longer than a busy machine holds a thread (1 s, scaled): every queue before
// it fills (the source decodes 160x120 frames thousands a second), so every pool reaches the
// most frames the queues let be in flight, and the histogram covers a latency no later frame
// reaches. After that, an allocation in any window is one the frames make.
// FFmpeg and x264 allocate with their own malloc and are out of its scope; so is set-up,
// and the end of the run.
//
// Its own binary: tests/counting_new replaces operator new for the whole process.
#include <gtest/gtest.h>
#include <sched.h>

#include <cstdlib>
#include <filesystem>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/config/loader.hpp"
#include "pipeline/engine/executor.hpp"
#include "tests/counting_new.hpp"
#include "tests/time_bound.hpp"

namespace fp {
namespace {

namespace fs = std::filesystem;

TEST(EngineAllocations, NoneInAHundredFramesOnceWarm) {
  const fs::path dir = fs::path(FRAMEPIPE_BINARY_DIR) / "test-output" / "engine-allocations";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // The input: 1000 frames of H.264 in Matroska, decoded by FFmpeg as a user's file is.
  // Without B-frames (preset ultrafast): with them, how many pictures the decoder keeps
  // depends on where in a B-frame group it stands, so its buffers peaked again at any time
  // the queues happened to be full there (6 allocations, one decoder buffer, in the 2nd
  // window under ctest -j4 on 2 cores): FFmpeg's reordering, not a per-frame allocation.
  const fs::path input = dir / "in.mkv";
  // Under a sanitizer (FRAMEPIPE_SMALL_SIZES, the presets') frames of 64x48: the same pools
  // and paths, in a fifth of the time (69 s under ThreadSanitizer at 160x120).
  const std::string size = std::getenv("FRAMEPIPE_SMALL_SIZES") != nullptr ? "64x48" : "160x120";
  const RunStats made = run_pipeline(parse_pipeline("input: testsrc://" + size + "@30?noise=10&frames=1000\n"
                                                    "stages:\n  - {id: out, type: encode, preset: ultrafast, output: " +
                                                        input.string() + "}\n",
                                                    "input.yaml"),
                                     Device{}, RunOptions{});
  ASSERT_EQ(made.frames, 1000);
  const PipelineDefinition definition = parse_pipeline("input: " + input.string() + R"(
stages:
  - {id: smooth, type: mean_smooth, radius: 2}
  - {id: denoise, type: nlmeans, h: 10, patch: 3, search: 5}
  - {id: skel, type: thinning, threshold: otsu}
  - {id: out, type: encode, output: )" + (dir / "out.y4m").string() + "}\n",
                                                       "allocations.yaml");
  constexpr int kWindow = 100;
  constexpr std::size_t kWindows = 9;
  constexpr int kHeldAt = 50;  // the sink's frame at which the warm-up holds the output up
  std::vector<long> at;        // the count at frames 100, 200 ... 1000
  at.reserve(kWindows + 1);
  int frames = 0;
  int written = 0;
  RunOptions options;
  // On one core, so that FFmpeg decodes on one thread (it starts a frame thread per core the
  // process may use): its frame threads give pictures back on their own schedule, so with
  // several the decoder's peak of buffers held wanders by a frame or two over a whole run
  // (measured here on 2 cores: one pool growth, ~16 allocations, in 7 of 10 runs, at any time
  // up to the 500th frame); that is FFmpeg's schedule, not a per-frame allocation of ours.
  cpu_set_t all_cores;
  ASSERT_EQ(sched_getaffinity(0, sizeof(all_cores), &all_cores), 0);
  int first = 0;
  while (first < CPU_SETSIZE - 1 && !CPU_ISSET(first, &all_cores)) ++first;
  cpu_set_t one_core;
  CPU_ZERO(&one_core);
  CPU_SET(first, &one_core);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one_core), &one_core), 0);  // this thread, and the run's threads it starts
  options.hooks.before_write = [&](const std::string&) {
    if (++written == kHeldAt) std::this_thread::sleep_for(std::chrono::duration<double>(test::time_bound(1.0)));
  };
  // The graph's thread, before each source frame goes into its slot: the windows' ends.
  options.hooks.before_upload = [&](FrameContext&) {
    if (++frames % kWindow != 0 || at.size() == kWindows + 1) return;
    if (at.empty()) {
      const char* wanted = std::getenv("FRAMEPIPE_ALLOCATION_STACKS");  // how many to print; 8 by default
      test::print_allocation_stacks(wanted != nullptr ? std::atoi(wanted) : 8);
      test::start_counting_allocations();
    }
    at.push_back(test::allocations());
  };
  const RunStats stats = run_pipeline(definition, Device{}, options);
  test::stop_counting_allocations();
  sched_setaffinity(0, sizeof(all_cores), &all_cores);
  EXPECT_EQ(stats.frames, 1000);
  ASSERT_GE(written, kHeldAt) << "the output was never held up: the warm-up did not fill the queues";
  ASSERT_EQ(at.size(), kWindows + 1);
  std::string counts;
  long total = 0;
  for (std::size_t w = 0; w < kWindows; ++w) {
    const long in_window = at[w + 1] - at[w];
    total += in_window;
    counts += (w == 0 ? "" : ", ") + std::to_string(in_window);
  }
  EXPECT_EQ(total, 0) << "C++ heap allocations in each 100 frames from the 100th to the 1000th: " << counts
                      << " (the first stacks are on stderr)";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fp
