// temporal_nlmeans' CPU op (cpu::make_temporal_nlmeans_op) over short sequences: each frame's
// output must be cpu::temporal_nlmeans of it with the previous frames the history rule gives,
// built here from the earlier inputs (or, recursive, the earlier outputs) and motion_search,
// and must differ from what any other count of previous frames gives, so that a wrong count
// shows. A gap, a new size and a scene cut each start the history anew.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/frame.hpp"
#include "core/frame_context.hpp"
#include "cpu/frame_ops.hpp"
#include "cpu/motion_search.hpp"
#include "cpu/temporal_nlmeans.hpp"
#include "test_images.hpp"

// A named namespace of its own: tests/cpu is compiled as a unity build, where the other
// files' anonymous namespaces would share this one.
namespace fp::cpu::temporal_nlmeans_op_test {
namespace {

constexpr int kW = 48;
constexpr int kH = 32;
constexpr int kStep = 2;  // the scene moves this many pixels a frame, to the left
constexpr int kPlaneExtra = 5;

// A textured scene: random blobs a few pixels across.
HostImageU8 scene(int w, int h, std::uint32_t seed) {
  HostImageU8 image(w, h);
  std::mt19937 rng(seed);
  auto uniform = [&rng](double lo, double hi) { return lo + (hi - lo) * (rng() / 4294967296.0); };
  struct Blob {
    double x, y, r, a;
  };
  std::vector<Blob> blobs;
  for (int i = 0; i < w * h / 50; ++i) blobs.push_back({uniform(0, w), uniform(0, h), uniform(2.0, 6.0), uniform(-90, 90)});
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double v = 128;
      for (const Blob& b : blobs) v += b.a * std::exp(-((x - b.x) * (x - b.x) + (y - b.y) * (y - b.y)) / (b.r * b.r));
      image(x, y) = static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L));
    }
  return image;
}

// Frame n of the moving scene: its w x h window at (kStep n, 4), plus noise in [-10, 10].
HostImageU8 moving(const HostImageU8& world, int n, int w = kW, int h = kH) {
  HostImageU8 image(w, h, w + 3);
  std::mt19937 rng(static_cast<std::uint32_t>(1000 + n));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      image(x, y) = static_cast<std::uint8_t>(std::clamp(world(x + kStep * n, y + 4) + static_cast<int>(rng() % 21) - 10, 0, 255));
  return image;
}

// A host plane holding a copy of `image`, pitch = width + kPlaneExtra, the padding kPadByte.
Plane plane_of(const HostImageU8& image) {
  const int pitch = image.width() + kPlaneExtra;
  auto buffer = std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(pitch) * image.height(), test::kPadByte);
  Plane plane;
  plane.storage = std::shared_ptr<std::uint8_t>(buffer, buffer->data());
  plane.data = buffer->data();
  plane.width = image.width();
  plane.height = image.height();
  plane.pitch = pitch;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) plane.view()(x, y) = image(x, y);
  return plane;
}

Frame frame_of(const HostImageU8& luma, bool follows_gap = false) {
  Frame frame;
  frame.width = luma.width();
  frame.height = luma.height();
  frame.planes[0] = plane_of(luma);
  const HostImageU8 chroma(chroma_width(luma.width()), chroma_height(luma.height()), 0, 128);
  frame.planes[1] = plane_of(chroma);
  frame.planes[2] = plane_of(chroma);
  frame.follows_gap = follows_gap;
  return frame;
}

HostImageU8 luma_of(const Frame& frame) {
  const ConstImageU8 view = frame.luma().cview();
  int stray = 0;
  for (int y = 0; y < view.height; ++y)
    for (int x = view.width; x < view.width + kPlaneExtra; ++x) stray += view.row(y)[x] != test::kPadByte;
  EXPECT_EQ(stray, 0) << "bytes written into the output's row padding";
  return test::copy_of(view);
}

// What the definition gives for `current` with the `use` frames before it: `inputs` and
// `outputs` hold the earlier frames, the latest last.
HostImageU8 expected(const HostImageU8& current, const std::vector<HostImageU8>& inputs,
                     const std::vector<HostImageU8>& outputs, int use, const ops::TemporalNlmeansParams& p) {
  MotionPyramid current_levels;
  current_levels.build(current.view());
  std::vector<MotionField> fields(static_cast<std::size_t>(use));
  std::vector<MotionPyramid> levels(static_cast<std::size_t>(use));
  std::vector<TemporalReference> refs;
  for (int j = 1; j <= use; ++j) {
    const std::size_t i = inputs.size() - static_cast<std::size_t>(j);
    const HostImageU8& before = inputs[i];
    levels[static_cast<std::size_t>(j - 1)].build(before.view());
    motion_search(current.view(), current_levels, before.view(), levels[static_cast<std::size_t>(j - 1)], p.motion,
                  fields[static_cast<std::size_t>(j - 1)]);
    refs.push_back({p.recursive ? outputs[i].view() : before.view(), &fields[static_cast<std::size_t>(j - 1)]});
  }
  HostImageU8 out(current.width(), current.height());
  temporal_nlmeans(current.view(), refs, p, out.view());
  return out;
}

struct Step {
  HostImageU8 image;
  int use;  // the previous frames the rule gives it
  bool follows_gap = false;
};

// Runs the op over `steps` and checks every output; returns the outputs.
std::vector<HostImageU8> run_and_check(const std::vector<Step>& steps, const ops::TemporalNlmeansParams& p) {
  const std::unique_ptr<ops::FrameOp> op = make_temporal_nlmeans_op(p);
  FrameContext context;
  std::vector<HostImageU8> inputs;   // the frames of the current size so far
  std::vector<HostImageU8> outputs;  // what the definition gives for them
  std::vector<HostImageU8> all;
  for (std::size_t n = 0; n < steps.size(); ++n) {
    const Step& step = steps[n];
    SCOPED_TRACE("frame " + std::to_string(n) + ", " + std::to_string(step.image.width()) + "x" +
                 std::to_string(step.image.height()) + (step.follows_gap ? ", after a gap" : ""));
    if (!inputs.empty() && (inputs.back().width() != step.image.width() || inputs.back().height() != step.image.height())) {
      inputs.clear();
      outputs.clear();
    }
    const Frame in = frame_of(step.image, step.follows_gap);
    Frame out = frame_of(HostImageU8(step.image.width(), step.image.height(), 0, 0));
    op->run(std::span<const Frame>(&in, 1), out, context);
    const HostImageU8 got = luma_of(out);
    const int available = std::min(p.frames, static_cast<int>(inputs.size()));
    EXPECT_LE(step.use, available) << "the test's own expectation";
    HostImageU8 want;
    for (int use = 0; use <= available; ++use) {
      const HostImageU8 with = expected(step.image, inputs, outputs, use, p);
      if (use == step.use) {
        EXPECT_TRUE(test::images_equal(got, with)) << "with " << use << " previous frames";
        want = with;
      } else {
        // Another count gives another result, so the comparison above tells them apart.
        EXPECT_FALSE(test::images_equal(got, with)) << "the output is also what " << use << " previous frames give";
      }
    }
    inputs.push_back(step.image);
    outputs.push_back(want);
    all.push_back(got);
  }
  return all;
}

ops::TemporalNlmeansParams params(int frames, bool recursive = false, bool motion = true, double h = 12.0) {
  ops::TemporalNlmeansParams p;
  p.spatial = {h, 3, 5};
  p.frames = frames;
  p.temporal_search = 5;
  p.motion = motion;
  p.recursive = recursive;
  return p;
}

class TemporalNlmeansOp : public ::testing::Test {
 protected:
  const HostImageU8 world = scene(kW + 3 * 16, kH + 8, 800);
  HostImageU8 frame(int n) const { return moving(world, n); }
};

TEST_F(TemporalNlmeansOp, UsesOneMorePreviousFrameEachFrameUpToFrames) {
  for (int frames = 0; frames <= ops::kMaxTemporalFrames; ++frames) {
    SCOPED_TRACE("frames " + std::to_string(frames));
    std::vector<Step> steps;
    for (int n = 0; n < 7; ++n) steps.push_back({frame(n), std::min(n, frames)});
    run_and_check(steps, params(frames));
  }
}

TEST_F(TemporalNlmeansOp, AFrameAfterAGapIsSpatialAndTheHistoryRestarts) {
  // Its content goes on moving as before: only the flag says that the history does not hold.
  run_and_check({{frame(0), 0}, {frame(1), 1}, {frame(2), 2}, {frame(3), 2}, {frame(4), 0, true}, {frame(5), 1},
                 {frame(6), 2}, {frame(7), 2, false}, {frame(8), 0, true}, {frame(9), 0, true}, {frame(10), 1}},
                params(2));
  run_and_check({{frame(0), 0, true}, {frame(1), 1}, {frame(2), 2}, {frame(3), 3}, {frame(4), 0, true}, {frame(5), 1}},
                params(4, true));
}

TEST_F(TemporalNlmeansOp, AFrameOfAnotherSizeIsSpatialAndTheHistoryRestarts) {
  const HostImageU8 small_world = scene(80, 40, 801);
  auto small = [&](int n) { return moving(small_world, n, 37, 21); };
  run_and_check({{frame(0), 0},
                 {frame(1), 1},
                 {frame(2), 2},
                 {small(0), 0},
                 {small(1), 1},
                 {small(2), 2},
                 {small(3), 2},
                 {frame(3), 0},  // back to the first size: a new stream again
                 {frame(4), 1},
                 {moving(world, 5, kW, kH - 1), 0},  // one row less
                 {moving(world, 6, 1, 1), 0},
                 {moving(world, 7, 1, 1), 1},
                 {frame(8), 0}},
                params(2));
}

TEST_F(TemporalNlmeansOp, ASceneCutIsSpatialAndTheHistoryRestarts) {
  // The scene 24 levels brighter: its SAD against the frame before it jumps (about 24 a pixel
  // against the noise's 7), yet its patches are near enough (h 30) that the previous frames
  // would change its output. The next frame is no cut (its SAD is like the bright frame's), so
  // it is denoised with the bright frame, and so on.
  HostImageU8 bright = frame(5);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) bright(x, y) = static_cast<std::uint8_t>(std::min(255, bright(x, y) + 24));
  run_and_check({{frame(0), 0}, {frame(1), 1}, {frame(2), 2}, {frame(3), 3}, {frame(4), 3}, {bright, 0}, {frame(6), 1},
                 {frame(7), 2}, {frame(8), 3}, {frame(9), 3}},
                params(3, false, true, 30.0));
  // Another scene altogether, with motion off: the zero-vector SAD jumps as well.
  const HostImageU8 other = moving(scene(kW + 3 * 16, kH + 8, 803), 0);
  run_and_check({{frame(0), 0}, {frame(1), 1}, {other, 0}, {frame(2), 1}, {frame(3), 1}}, params(1, false, false, 60.0));
}

TEST_F(TemporalNlmeansOp, RecursiveSearchesThePreviousOutputs) {
  std::vector<Step> steps;
  for (int n = 0; n < 6; ++n) steps.push_back({frame(n), std::min(n, 2)});
  const std::vector<HostImageU8> recursive = run_and_check(steps, params(2, true));
  const std::vector<HostImageU8> plain = run_and_check(steps, params(2, false));
  EXPECT_TRUE(test::images_equal(recursive[0], plain[0])) << "the first frame has no history either way";
  for (std::size_t n = 1; n < steps.size(); ++n)
    EXPECT_FALSE(test::images_equal(recursive[n], plain[n])) << "frame " << n << " is the same with the previous inputs";
}

TEST_F(TemporalNlmeansOp, WithoutMotionEveryVectorIsZero) {
  std::vector<Step> steps;
  for (int n = 0; n < 5; ++n) steps.push_back({frame(n), std::min(n, 2)});
  const std::vector<HostImageU8> still = run_and_check(steps, params(2, false, false));
  const std::vector<HostImageU8> searched = run_and_check(steps, params(2, false, true));
  for (std::size_t n = 1; n < steps.size(); ++n)
    EXPECT_FALSE(test::images_equal(still[n], searched[n])) << "frame " << n << ": motion changes nothing";
}

TEST(TemporalNlmeansOpParams, RejectsBadParameters) {
  ops::TemporalNlmeansParams p;
  p.frames = ops::kMaxTemporalFrames + 1;
  EXPECT_THROW(make_temporal_nlmeans_op(p), std::invalid_argument);
  p.frames = 2;
  p.temporal_search = 6;
  EXPECT_THROW(make_temporal_nlmeans_op(p), std::invalid_argument);
}

}  // namespace
}  // namespace fp::cpu::temporal_nlmeans_op_test
