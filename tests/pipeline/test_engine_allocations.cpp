// The engine allocates nothing per frame once it is warm (DESIGN.md: buffers come from pools
// set up with the graph). A run on the CPU — testsrc, three stages, a y4m output — counts
// every C++ heap allocation of the process (a replaced global operator new) in nine windows
// of 100 source frames, from the 100th to the 1000th: one window at least must have none.
// Not all: a pool still grows when more frames are in flight at once than ever before (a
// sink held up by a loaded machine lets its queue fill for the first time), which is bounded
// by the queues' capacities, a few dozen allocations in a whole run (as a sink's latency
// histogram widens, by a margin, for a latency beyond all seen before); but a machine loaded
// for long spreads them over several windows (on the H200 under `ctest -j8` beside the GPU
// tests: 6, 5 and 10 in the first three), while an allocation per frame (or per ten frames)
// shows in every window. FFmpeg and x264 allocate
// with their own malloc and are out of its scope; so is set-up, and the end of the run.
//
// Its own binary: tests/counting_new replaces operator new for the whole process.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "pipeline/config/loader.hpp"
#include "pipeline/engine/executor.hpp"
#include "tests/counting_new.hpp"

namespace fp {
namespace {

namespace fs = std::filesystem;

TEST(EngineAllocations, NoneInAHundredFramesOnceWarm) {
  const fs::path dir = fs::path(FRAMEPIPE_BINARY_DIR) / "test-output" / "engine-allocations";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const PipelineDefinition definition = parse_pipeline(R"(input: testsrc://160x120@30?noise=10&frames=1000
stages:
  - {id: smooth, type: mean_smooth, radius: 2}
  - {id: denoise, type: nlmeans, h: 10, patch: 3, search: 5}
  - {id: skel, type: thinning, threshold: otsu}
  - {id: out, type: encode, output: )" + (dir / "out.y4m").string() + "}\n",
                                                       "allocations.yaml");
  constexpr int kWindow = 100;
  constexpr std::size_t kWindows = 9;
  std::vector<long> at;  // the count at frames 100, 200 ... 1000
  at.reserve(kWindows + 1);
  int frames = 0;
  RunOptions options;
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
  EXPECT_EQ(stats.frames, 1000);
  ASSERT_EQ(at.size(), kWindows + 1);
  std::string counts;
  bool one_without = false;
  for (std::size_t w = 0; w < kWindows; ++w) {
    const long in_window = at[w + 1] - at[w];
    one_without = one_without || in_window == 0;
    counts += (w == 0 ? "" : ", ") + std::to_string(in_window);
  }
  EXPECT_TRUE(one_without) << "C++ heap allocations in each 100 frames from the 100th to the 1000th: " << counts
                           << " (the first stacks are on stderr)";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fp
