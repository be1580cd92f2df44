// Once warm, the CPU operations allocate nothing per frame (DESIGN.md: nothing is allocated
// per frame): every op of cpu/frame_ops, as a pipeline runs it, and the free functions with
// their own scratch, each called again on a frame of the size it has seen. A replaced global
// operator new counts the C++ heap allocations of the whole process (the pool's workers
// included) while a case runs.
//
// Its own binary: tests/counting_new replaces operator new for the whole process.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/frame_context.hpp"
#include "core/frame_pool.hpp"
#include "cpu/frame_ops.hpp"
#include "cpu/luma_histogram.hpp"
#include "cpu/mean_smooth.hpp"
#include "cpu/nlmeans.hpp"
#include "cpu/parallel.hpp"
#include "cpu/pyramid_fusion.hpp"
#include "cpu/thinning.hpp"
#include "cpu/tile.hpp"
#include "tests/counting_new.hpp"

namespace fp::cpu {
namespace {

constexpr int kWidth = 320;
constexpr int kHeight = 180;

// Calls `frame` a few times to warm up (the pool starts, scratch is sized), then counts the
// allocations of as many calls again.
long allocations_when_warm(const std::function<void()>& frame) {
  for (int i = 0; i < 3; ++i) frame();
  test::start_counting_allocations();
  for (int i = 0; i < 3; ++i) frame();
  test::stop_counting_allocations();
  return test::allocations();
}

// A noisy frame with shapes, so that thinning and nlmeans have real work.
Frame test_frame(FramePool& pool, std::uint32_t seed) {
  Frame frame = pool.acquire();
  std::mt19937 rng(seed);
  for (Plane& plane : frame.planes) {
    const ImageU8 view = plane.view();
    for (int y = 0; y < view.height; ++y)
      for (int x = 0; x < view.width; ++x)
        view(x, y) = static_cast<std::uint8_t>(((x / 9 + y / 7) % 3 == 0 ? 190 : 50) + static_cast<int>(rng() % 40));
  }
  return frame;
}

// Runs an op on frames made before the count starts.
long op_allocations(ops::FrameOp& op, int inputs) {
  FramePool pool(kWidth, kHeight);
  std::vector<Frame> in;
  for (int i = 0; i < inputs; ++i) in.push_back(test_frame(pool, static_cast<std::uint32_t>(i + 1)));
  Frame out = pool.acquire();
  FrameContext context;
  return allocations_when_warm([&] { op.run(std::span<const Frame>(in), out, context); });
}

TEST(CpuAllocations, OpsAllocateNothingOnceWarm) {
  ops::NlmeansParams nlmeans_params;
  nlmeans_params.patch = 3;
  nlmeans_params.search = 5;
  const ops::OpShape shape{kWidth, kHeight};
  int stats_seen = 0;
  EXPECT_EQ(op_allocations(*make_luma_histogram_op([&](const Frame&, const ops::LumaStats&) { ++stats_seen; }), 1), 0);
  EXPECT_GT(stats_seen, 0);
  EXPECT_EQ(op_allocations(*make_mean_smooth_op(2), 1), 0) << "mean_smooth";
  EXPECT_EQ(op_allocations(*make_mean_smooth_op(2000), 1), 0) << "mean_smooth, 64-bit sums";
  EXPECT_EQ(op_allocations(*make_nlmeans_op(nlmeans_params), 1), 0) << "nlmeans";
  // temporal_nlmeans keeps its previous frames: warm once it holds all it keeps (3 calls
  // before the count, `frames` 2), in each of its modes.
  for (const bool motion : {true, false})
    for (const bool recursive : {false, true}) {
      const ops::TemporalNlmeansParams temporal{
          .spatial = nlmeans_params, .frames = 2, .temporal_search = 5, .motion = motion, .recursive = recursive};
      EXPECT_EQ(op_allocations(*make_temporal_nlmeans_op(temporal), 1), 0)
          << "temporal_nlmeans, motion " << motion << ", recursive " << recursive;
    }
  EXPECT_EQ(op_allocations(*make_thinning_op(std::nullopt, shape), 1), 0) << "thinning, Otsu";
  EXPECT_EQ(op_allocations(*make_thinning_op(100, shape), 1), 0) << "thinning, fixed threshold";
  for (const auto rule : {ops::FusionRule::Average, ops::FusionRule::MaxAbs, ops::FusionRule::MaxEnergy})
    for (const int levels : {1, 2, 5}) {
      const ops::FusionParams params{levels, rule, {1.5f, 0.5f}};
      EXPECT_EQ(op_allocations(*make_pyramid_fusion_op(params), 2), 0)
          << "pyramid_fusion, rule " << static_cast<int>(rule) << ", levels " << levels;
    }
}

TEST(CpuAllocations, TileOpAllocatesNothingOnceWarm) {
  const ops::TileLayout layout = ops::tile_layout(3, 2, kWidth, kHeight);
  FramePool cells(kWidth, kHeight);
  const std::vector<Frame> in = {test_frame(cells, 1), test_frame(cells, 2), test_frame(cells, 3)};
  FramePool whole(layout.width, layout.height);
  Frame out = whole.acquire();
  FrameContext context;
  const std::unique_ptr<ops::FrameOp> op = make_tile_op(layout);
  EXPECT_EQ(allocations_when_warm([&] { op->run(std::span<const Frame>(in), out, context); }), 0);
}

// Callers without a scratch of their own (tests, the CUDA twin's checks) reuse one per thread.
TEST(CpuAllocations, FreeFunctionsAllocateNothingOnceWarm) {
  FramePool pool(kWidth, kHeight);
  const Frame a = test_frame(pool, 1);
  const Frame b = test_frame(pool, 2);
  Frame out = pool.acquire();
  const ConstImageU8 src = a.luma().cview();
  const ImageU8 dst = out.luma().view();
  EXPECT_EQ(allocations_when_warm([&] { luma_stats(src); }), 0) << "luma_stats";
  EXPECT_EQ(allocations_when_warm([&] { mean_smooth(src, dst, 3); }), 0) << "mean_smooth";
  EXPECT_EQ(allocations_when_warm([&] { nlmeans(src, dst, {10.0, 3, 7}); }), 0) << "nlmeans";
  EXPECT_EQ(allocations_when_warm([&] { thinning(src, dst, 120); }), 0) << "thinning";
  EXPECT_EQ(allocations_when_warm([&] { zhang_suen(dst); }), 0) << "zhang_suen";
  EXPECT_EQ(allocations_when_warm([&] { pyramid_fusion(src, b.luma().cview(), dst, {}); }), 0) << "pyramid_fusion";
  const std::array<ConstImageU8, 2> sources = {src, b.luma().cview()};
  const std::array<ops::TileOrigin, 2> origins = {ops::TileOrigin{0, 0}, ops::TileOrigin{kWidth / 2, 0}};
  EXPECT_EQ(allocations_when_warm([&] { tile_plane(sources, origins, dst, std::uint8_t{16}); }), 0) << "tile_plane";
}

// A body that captures more than std::function keeps inline, as the operations' bodies do.
TEST(CpuAllocations, ParallelRowsAllocatesNothing) {
  std::array<std::atomic<long>, 4> sums{};
  int rows = 1000;
  long scale = 3;
  EXPECT_EQ(allocations_when_warm([&] {
              parallel_rows(rows, [&](int begin, int end) { sums[0] += (end - begin) * scale; });
              parallel_rows_on_workers(rows, [&](int worker, int begin, int end) {
                sums[static_cast<std::size_t>(worker % 4)] += (end - begin) * scale;
              });
            }),
            0);
  long total = 0;
  for (const auto& sum : sums) total += sum.load();
  EXPECT_EQ(total, 6L * 2 * rows * scale);
}

}  // namespace
}  // namespace fp::cpu
