// Frames on demand from a run on the GPU: the node's output is downloaded on the slot's
// stream and read only after the slot's wait. Each slot's stream is held by a spin kernel
// before its upload, so every download completes long after it was enqueued: a frame read
// before the slot completed would be a stale or unwritten page-locked buffer. Every frame a
// reader gets must equal the CPU reference for its sequence number. Skipped without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cpu/mean_smooth.hpp"
#include "cuda/spin.hpp"
#include "media/frame_source.hpp"
#include "pipeline/engine/run_monitor.hpp"
#include "tests/cuda/gpu_test.hpp"
#include "tests/pipeline/background_pipeline.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

bool same_plane(const Plane& a, const uint8_t* b, std::ptrdiff_t b_pitch) {
  for (int y = 0; y < a.height; ++y)
    if (!std::equal(a.data + y * a.pitch, a.data + y * a.pitch + a.width, b + y * b_pitch)) return false;
  return true;
}

TEST(GpuRunMonitor, FramesOnDemandAreTheNodesOutputAfterTheSlotCompleted) {
  FP_REQUIRE_GPU();
  const std::string uri = "testsrc://320x240@30?noise=20&frames=45";
  const fs::path dir = fs::path(FRAMEPIPE_BINARY_DIR) / "test-output" / "gpu-run-monitor";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // The source's frames, as the CPU reference sees them.
  std::vector<Frame> source;
  for (auto reader = open_source(uri); auto frame = reader->read();) source.push_back(std::move(*frame));

  RunOptions options;
  options.realtime = true;
  options.drop = DropPolicy::Never;
  options.slots = 2;
  options.hooks.before_upload = [](FrameContext& context) { cuda::spin(20000.0, context.stream); };
  RunMonitor monitor;
  BackgroundPipeline run(options, "input: " + uri + "\nstages:\n"
                         "  - {id: smooth, type: mean_smooth, radius: 2}\n"
                         "  - {id: out, type: encode, output: " + (dir / "out.y4m").string() + "}\n",
                         monitor, Device{DeviceKind::Cuda, 0});
  // The nodes can be asked for once the run has set up its graph (before: invalid_argument).
  const auto set_up_by = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int>(time_bound(5000)));
  while (monitor.frame_nodes().empty() && std::chrono::steady_clock::now() < set_up_by)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_FALSE(monitor.frame_nodes().empty()) << "the run never set up its graph";
  int checked = 0;
  std::vector<std::uint8_t> luma(320 * 240);
  while (!run.done() && checked < 30) {
    for (const char* id : {"input", "smooth", "out"}) {
      const auto frame = monitor.newest_frame(id, std::chrono::milliseconds(static_cast<int>(time_bound(2000))));
      if (!frame) continue;  // the run ended
      ASSERT_EQ(frame->location, MemoryLocation::Host);
      ASSERT_EQ(frame->width, 320);
      ASSERT_EQ(frame->height, 240);
      ASSERT_LT(frame->sequence, static_cast<std::int64_t>(source.size()));
      const Frame& input = source[static_cast<std::size_t>(frame->sequence)];
      const bool smoothed = std::string(id) != "input";
      if (smoothed) cpu::mean_smooth(input.luma().cview(), ImageU8{luma.data(), 320, 240, 320}, 2);
      EXPECT_TRUE(smoothed ? same_plane(frame->planes[0], luma.data(), 320)
                           : same_plane(frame->planes[0], input.planes[0].data, input.planes[0].pitch))
          << id << " frame " << frame->sequence;
      for (int p = 1; p < 3; ++p)
        EXPECT_TRUE(same_plane(frame->planes[p], input.planes[p].data, input.planes[p].pitch))
            << id << " frame " << frame->sequence << " plane " << p;
      ++checked;
    }
  }
  const RunStats stats = run.finish(20.0);
  EXPECT_GE(checked, 9);
  EXPECT_EQ(stats.frames, 45);
  EXPECT_EQ(stats.frames_dropped, 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fp::test
