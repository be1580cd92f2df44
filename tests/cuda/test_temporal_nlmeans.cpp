// temporal_nlmeans on the GPU against its CPU definition (cpu/temporal_nlmeans.hpp,
// cpu/motion_search.hpp):
//  - motion search finds the same vector and SAD for every block (integers: exactly);
//  - the spatial kernel's sums plus the previous frames' give the weighted mean within the
//    float error bound of the double-precision reference (derived as in test_nlmeans.cpp,
//    over every term: search^2 of the current frame and temporal_search^2 of each previous);
//  - the op over a sequence (a scene cut, a gap, K 0..4, recursive) makes the CPU op's frames,
//    each pixel the exact value rounded or its neighbour, and the same whether its frames run
//    in one slot or alternate over several streams (the history's order is an event chain).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/frame_pool.hpp"
#include "core/host_image.hpp"
#include "cpu/frame_ops.hpp"
#include "cpu/motion_search.hpp"
#include "cpu/temporal_nlmeans.hpp"
#include "cuda/device_image.hpp"
#include "cuda/frame_ops.hpp"
#include "cuda/motion_search.hpp"
#include "cuda/nlmeans.hpp"
#include "cuda/plane_memory.hpp"
#include "cuda/stream.hpp"
#include "cuda/temporal_nlmeans.hpp"
#include "tests/cuda/cuda_test_util.hpp"
#include "tests/cuda/gpu_test.hpp"

// Its own namespace: the test files of a target may be built as one unit.
namespace fp::cuda::temporal_test {
namespace {

using fp::test::small_sizes;

// A smooth textured scene seen through a window at (ox, oy), plus Gaussian noise.
HostImageU8 scene(int width, int height, double ox, double oy, std::uint32_t seed, double sigma = 12.0,
                  int pitch_extra = 0, int texture = 0) {
  HostImageU8 image(width, height, width + pitch_extra);
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const double u = x + ox;
      const double v = y + oy;
      double value = texture == 0 ? 110 + 60 * std::sin(u * 0.21) * std::cos(v * 0.17) + 30 * std::sin((u + 2 * v) * 0.05)
                                  : 140 + 70 * std::cos(u * 0.33 + v * 0.11) - 25 * std::sin(v * 0.4);
      value += noise(rng);
      image(x, y) = static_cast<std::uint8_t>(std::clamp(std::lround(value), 0L, 255L));
    }
  return image;
}

// The float error bound of test_nlmeans.cpp for n weighted terms.
double float_error_bound(double n) {
  const double u = std::ldexp(1.0, -24);
  return 255.0 * 1.01 * ((2.01 / std::exp(1.0) * n + 2 * n + 4) * u + std::ldexp(1.0, -20)) + std::ldexp(1.0, -16);
}

bool is_rounded_exact(int got, double exact, double bound) {
  if (got == static_cast<int>(std::floor(exact + 0.5))) return true;
  const double below = std::floor(exact);
  return std::fabs(exact - (below + 0.5)) <= bound && (got == below || got == below + 1);
}

struct DeviceLevels {
  DeviceImage<std::uint8_t> frame;
  DeviceImage<std::uint8_t> halves[ops::kMotionLevels - 1];
  MotionLevels levels() const {
    MotionLevels l{};
    l.level[0] = frame.view();
    for (int i = 1; i < ops::kMotionLevels; ++i) l.level[i] = halves[i - 1].view();
    return l;
  }
};

DeviceLevels device_levels(const HostImageU8& host) {
  DeviceLevels d;
  d.frame = test::to_device(host);
  ImageU8 views[ops::kMotionLevels - 1];
  for (int l = 1; l < ops::kMotionLevels; ++l) {
    d.halves[l - 1] =
        DeviceImage<std::uint8_t>(ops::motion_level_size(host.width(), l), ops::motion_level_size(host.height(), l));
    views[l - 1] = d.halves[l - 1].view();
  }
  build_motion_levels(d.frame.view(), views, nullptr);
  return d;
}

cpu::MotionField cpu_motion(const HostImageU8& current, const HostImageU8& previous, bool motion) {
  cpu::MotionPyramid a;
  cpu::MotionPyramid b;
  a.build(current.view());
  b.build(previous.view());
  cpu::MotionField field;
  cpu::motion_search(current.view(), a, previous.view(), b, motion, field);
  return field;
}

void expect_same_motion(const HostImageU8& current, const HostImageU8& previous, bool motion) {
  const cpu::MotionField want = cpu_motion(current, previous, motion);
  const DeviceLevels cur = device_levels(current);
  const DeviceLevels prev = device_levels(previous);
  const std::size_t blocks = want.vectors.size();
  DeviceArray<ops::MotionVector> vectors(blocks);
  DeviceArray<std::int32_t> sads(blocks);
  DeviceArray<unsigned long long> sum(1);
  FP_CUDA_CHECK(cudaMemset(sum.get(), 0, sizeof(unsigned long long)));
  const MotionLevels target = prev.levels();
  motion_search(cur.levels(), &target, 1, motion, vectors.get(), sads.get(), sum.get(), nullptr);
  std::vector<ops::MotionVector> got_vectors(blocks);
  std::vector<std::int32_t> got_sads(blocks);
  unsigned long long got_sum = 0;
  FP_CUDA_CHECK(cudaMemcpy(got_vectors.data(), vectors.get(), blocks * sizeof(ops::MotionVector), cudaMemcpyDeviceToHost));
  FP_CUDA_CHECK(cudaMemcpy(got_sads.data(), sads.get(), blocks * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  FP_CUDA_CHECK(cudaMemcpy(&got_sum, sum.get(), sizeof(got_sum), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (std::size_t i = 0; i < blocks; ++i)
    if (got_vectors[i].x != want.vectors[i].x || got_vectors[i].y != want.vectors[i].y || got_sads[i] != want.sads[i]) {
      if (++wrong <= 5)
        ADD_FAILURE() << current.width() << "x" << current.height() << " block " << i << ": GPU (" << got_vectors[i].x
                      << ", " << got_vectors[i].y << ") SAD " << got_sads[i] << ", CPU (" << want.vectors[i].x << ", "
                      << want.vectors[i].y << ") SAD " << want.sads[i];
    }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(static_cast<std::int64_t>(got_sum), want.sad);
}

TEST(TemporalNlmeansGpu, MotionSearchFindsTheCpusVectors) {
  FP_REQUIRE_GPU();
  struct Case {
    int w, h;
    double dx, dy;
  };
  std::vector<Case> cases = {{1, 1, 0, 0}, {17, 13, 3, -2}, {45, 37, 7, 5}, {160, 96, -20, 12}, {203, 151, 33, -9}};
  if (!small_sizes()) cases.push_back({1920, 1080, 9, 4});
  for (const auto& c : cases)
    for (const bool motion : {true, false}) {
      SCOPED_TRACE(std::to_string(c.w) + "x" + std::to_string(c.h) + (motion ? " motion" : " no motion"));
      const HostImageU8 previous = scene(c.w, c.h, 0, 0, 1);
      const HostImageU8 current = scene(c.w, c.h, c.dx, c.dy, 2);
      expect_same_motion(current, previous, motion);
    }
}

// The sums and the spatial kernel against cpu::temporal_nlmeans_unrounded, with the CPU's
// motion fields uploaded (so both search the same windows).
void expect_sums_match(int width, int height, const ops::TemporalNlmeansParams& p, int used, int pitch_extra) {
  SCOPED_TRACE(std::to_string(width) + "x" + std::to_string(height) + " patch " + std::to_string(p.spatial.patch) +
               " search " + std::to_string(p.spatial.search) + " temporal " + std::to_string(p.temporal_search) +
               " used " + std::to_string(used) + " h " + std::to_string(p.spatial.h));
  std::vector<HostImageU8> frames;
  for (int j = 0; j <= used; ++j) frames.push_back(scene(width, height, -3.0 * j, 2.0 * j, 10 + j, 12.0, pitch_extra));
  std::vector<cpu::MotionField> fields;
  for (int j = 1; j <= used; ++j) fields.push_back(cpu_motion(frames[0], frames[j], true));
  std::vector<cpu::TemporalReference> refs;
  for (int j = 1; j <= used; ++j) refs.push_back({frames[j].view(), &fields[j - 1]});
  HostImageF32 want(width, height);
  cpu::temporal_nlmeans_unrounded(frames[0].view(), refs, p, want.view());

  std::vector<DeviceImage<std::uint8_t>> device_frames;
  for (const auto& f : frames) device_frames.push_back(test::to_device(f));
  std::vector<DeviceArray<ops::MotionVector>> device_vectors;
  TemporalFrames previous;
  previous.count = used;
  for (int j = 1; j <= used; ++j) {
    const auto& v = fields[j - 1].vectors;
    device_vectors.emplace_back(v.size());
    FP_CUDA_CHECK(cudaMemcpy(device_vectors.back().get(), v.data(), v.size() * sizeof(ops::MotionVector), cudaMemcpyHostToDevice));
    previous.frame[j - 1] = device_frames[j].view();
    previous.vectors[j - 1] = device_vectors.back().get();
  }
  DeviceArray<int> use(1);
  FP_CUDA_CHECK(cudaMemcpy(use.get(), &used, sizeof(int), cudaMemcpyHostToDevice));
  DeviceImage<float> num(width, height);
  DeviceImage<float> den(width, height);
  DeviceImage<float> out(width, height);
  nlmeans_sums(device_frames[0].view(), num.view(), den.view(), p.spatial, nullptr);
  temporal_finish_unrounded(device_frames[0].view(), previous, use.get(), p, num.view(), den.view(), out.view(), nullptr);
  HostImageF32 got(width, height);
  download(ConstImageF32(out.view()), got.view(), nullptr);
  DeviceImage<std::uint8_t> rounded(width, height);
  temporal_finish(device_frames[0].view(), previous, use.get(), p, num.view(), den.view(), rounded.view(), nullptr);
  const HostImageU8 got8 = test::to_host(rounded);

  const double n = static_cast<double>(p.spatial.search) * p.spatial.search +
                   used * static_cast<double>(p.temporal_search) * p.temporal_search;
  const double bound = float_error_bound(n);
  double worst = 0;
  int not_rounded = 0;
  std::string where;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const double error = std::fabs(static_cast<double>(got(x, y)) - want(x, y));
      if (error > worst) {
        worst = error;
        where = "(" + std::to_string(x) + ", " + std::to_string(y) + "): " + std::to_string(got(x, y)) + " vs " +
                std::to_string(want(x, y));
      }
      not_rounded += !is_rounded_exact(got8(x, y), want(x, y), bound + std::ldexp(1.0, -16));
    }
  EXPECT_LE(worst, bound) << "worst at " << where;
  EXPECT_EQ(not_rounded, 0);
}

TEST(TemporalNlmeansGpu, SumsMatchTheDefinition) {
  FP_REQUIRE_GPU();
  ops::TemporalNlmeansParams p;
  p.frames = 4;
  p.spatial.h = 12;
  for (const int used : {0, 1, 2, 4}) expect_sums_match(45, 37, p, used, 3);
  // Under compute-sanitizer (small sizes) the cases above and one of each kind below: the
  // kernels' indexing and synchronization are the same for every parameter.
  if (small_sizes()) {
    p.spatial.patch = 15;
    p.temporal_search = 21;
    expect_sums_match(40, 33, p, 2, 1);
    return;
  }
  for (const int patch : {1, 3, 5, 9, 15}) {
    p.spatial.patch = patch;
    expect_sums_match(70, 53, p, 2, 0);
  }
  p.spatial.patch = 7;
  for (const int t : {1, 3, 21}) {
    p.temporal_search = t;
    expect_sums_match(70, 53, p, 3, 5);
  }
  p.temporal_search = 11;
  for (const int search : {1, 5}) {
    p.spatial.search = search;
    expect_sums_match(33, 17, p, 2, 0);
  }
  p.spatial.search = 21;
  expect_sums_match(1, 1, p, 2, 0);
  expect_sums_match(17, 13, p, 4, 1);
  p.spatial.h = 0.5;  // only near-identical patches count
  expect_sums_match(64, 48, p, 2, 0);
  p.spatial.h = 400;  // nearly the plain mean of every window
  expect_sums_match(64, 48, p, 2, 0);
  if (!small_sizes()) {
    p.spatial.h = 12;
    expect_sums_match(1920, 1080, p, 4, 0);
  }
}

// Runs an op over `frames` (host images) on the device, frame i in slot i % slots; returns
// the outputs. follows_gap marks frame index `gap` (or none when -1).
std::vector<HostImageU8> run_gpu_op(const ops::TemporalNlmeansParams& p, const std::vector<HostImageU8>& frames,
                                    int slots, int gap) {
  const int w = frames[0].width();
  const int h = frames[0].height();
  auto op = make_temporal_nlmeans_op(p, {.width = w, .height = h, .slots = slots, .device = 0});
  FramePool pool(w, h, device_plane_memory(0));
  std::vector<Stream> streams(static_cast<std::size_t>(slots));
  std::vector<HostImageU8> outputs;
  std::vector<Frame> ins;
  std::vector<Frame> outs;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    Frame in;
    in.width = w;
    in.height = h;
    in.location = MemoryLocation::Device;
    in.planes[0] = pool.acquire_luma();
    in.follows_gap = static_cast<int>(i) == gap;
    const cudaStream_t stream = streams[i % slots].get();
    upload(frames[i].view(), in.planes[0].view(), stream);
    Frame out = in;
    out.planes[0] = pool.acquire_luma();
    FrameContext context;
    context.slot = static_cast<int>(i % slots);
    context.stream = stream;
    const Frame inputs[] = {in};
    op->run(inputs, out, context);
    ins.push_back(in);
    outs.push_back(out);
  }
  FP_CUDA_CHECK(cudaDeviceSynchronize());
  for (const auto& out : outs) {
    HostImageU8 host(w, h);
    download(out.luma().cview(), host.view(), nullptr);
    outputs.push_back(std::move(host));
  }
  FP_CUDA_CHECK(cudaDeviceSynchronize());
  return outputs;
}

std::vector<HostImageU8> run_cpu_op(const ops::TemporalNlmeansParams& p, const std::vector<HostImageU8>& frames, int gap) {
  auto op = cpu::make_temporal_nlmeans_op(p);
  std::vector<HostImageU8> outputs;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    HostImageU8 in_copy = frames[i];
    HostImageU8 out_image(frames[i].width(), frames[i].height());
    Frame in;
    in.width = in_copy.width();
    in.height = in_copy.height();
    in.planes[0] = {nullptr, const_cast<std::uint8_t*>(in_copy.view().data), in.width, in.height, in_copy.view().pitch};
    in.follows_gap = static_cast<int>(i) == gap;
    Frame out = in;
    out.planes[0] = {nullptr, out_image.view().data, in.width, in.height, out_image.view().pitch};
    FrameContext context;
    const Frame inputs[] = {in};
    op->run(inputs, out, context);
    outputs.push_back(std::move(out_image));
  }
  return outputs;
}

// A pan with a cut at `cut` and noise.
std::vector<HostImageU8> sequence(int w, int h, int count, int cut) {
  std::vector<HostImageU8> frames;
  for (int i = 0; i < count; ++i)
    frames.push_back(scene(w, h, 2.0 * i, 1.0 * i, 100 + i, 15.0, 0, i >= cut ? 1 : 0));
  return frames;
}

// Outputs equal but for a rounding near a .5 (at most 1, and rarely): the CPU's are the
// exact values rounded. Recursive runs feed their outputs back, so a rounding apart there
// may move later frames by one more level at a few pixels.
void expect_close(const std::vector<HostImageU8>& got, const std::vector<HostImageU8>& want, int max_difference) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    std::string where;
    const int worst = test::max_abs_difference(got[i], want[i], &where);
    EXPECT_LE(worst, max_difference) << "frame " << i << " at " << where;
    long differing = 0;
    for (int y = 0; y < got[i].height(); ++y)
      for (int x = 0; x < got[i].width(); ++x) differing += got[i](x, y) != want[i](x, y);
    EXPECT_LE(differing, got[i].width() * got[i].height() / 100 + 1) << "frame " << i;
  }
}

TEST(TemporalNlmeansGpu, OpMatchesTheCpuOpOverASequenceWithACutAndAGap) {
  FP_REQUIRE_GPU();
  const auto frames = small_sizes() ? sequence(48, 37, 8, 4) : sequence(67, 45, 12, 6);
  const int gap = small_sizes() ? 6 : 9;
  const std::vector<int> ks = small_sizes() ? std::vector<int>{0, 2, 4} : std::vector<int>{0, 1, 2, 3, 4};
  for (const int k : ks)
    for (const bool motion : {true, false}) {
      SCOPED_TRACE("frames " + std::to_string(k) + (motion ? " motion" : " no motion"));
      ops::TemporalNlmeansParams p;
      p.frames = k;
      p.motion = motion;
      p.spatial.h = 15;
      expect_close(run_gpu_op(p, frames, 1, gap), run_cpu_op(p, frames, gap), 1);
    }
}

TEST(TemporalNlmeansGpu, RecursiveOpMatchesTheCpuOp) {
  FP_REQUIRE_GPU();
  const auto frames = small_sizes() ? sequence(48, 37, 6, 100) : sequence(67, 45, 10, 100);
  ops::TemporalNlmeansParams p;
  p.frames = 3;
  p.recursive = true;
  p.spatial.h = 15;
  expect_close(run_gpu_op(p, frames, 1, -1), run_cpu_op(p, frames, -1), 2);
}

TEST(TemporalNlmeansGpu, FramesOverSeveralStreamsGiveTheOneStreamResult) {
  FP_REQUIRE_GPU();
  const int w = small_sizes() ? 96 : 1280;
  const int h = small_sizes() ? 64 : 720;
  const auto frames = sequence(w, h, small_sizes() ? 6 : 16, 100);
  ops::TemporalNlmeansParams p;
  p.frames = 4;
  p.spatial.h = 15;
  const auto one = run_gpu_op(p, frames, 1, -1);
  for (const int slots : {2, 3}) {
    const auto several = run_gpu_op(p, frames, slots, -1);
    for (std::size_t i = 0; i < one.size(); ++i)
      EXPECT_EQ(test::max_abs_difference(several[i], one[i]), 0) << slots << " slots, frame " << i;
  }
}

}  // namespace
}  // namespace fp::cuda::temporal_test
