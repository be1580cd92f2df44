// cuda::pyramid_fusion against its twin cpu::pyramid_fusion (the readable definition).
//
// The kernels repeat the CPU's float operations in order, each rounded once (__fadd_rn,
// __fmul_rn: never fused), and the CPU twin is built without contraction into fused
// multiply-adds (cpu/CMakeLists.txt), so both compute the same floats bit for bit: the 8-bit
// results must be equal, sample for sample. (A tolerance would also hide worse: max_abs and
// max_energy choose between two coefficients, and a flipped choice moves a sample by far
// more than one level, but often only one sample.) A frame fused with itself must come back
// exactly.
//
// FRAMEPIPE_SMALL_SIZES=1 (the compute-sanitizer runs of tools/gpu-check.sh) keeps a lean set
// of small cases: the sanitizers run kernels hundreds of times slower, and what they look
// for (races, out-of-bounds accesses) shows on frames of a few tiles as well.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cpu/pyramid_fusion.hpp"
#include "cuda/device_image.hpp"
#include "cuda/pyramid_fusion.hpp"
#include "cuda/stream.hpp"
#include "tests/cuda/cuda_test_util.hpp"
#include "tests/cuda/gpu_test.hpp"

namespace {

using fp::HostImageU8;
namespace ops = fp::ops;
using Sizes = std::vector<std::pair<int, int>>;

using fp::test::small_sizes;

// The full list, or the sanitizer runs' lean one.
template <class T>
std::vector<T> pick(std::vector<T> full, std::vector<T> small) {
  return small_sizes() ? std::move(small) : std::move(full);
}

constexpr ops::FusionRule kRules[] = {ops::FusionRule::Average, ops::FusionRule::MaxAbs, ops::FusionRule::MaxEnergy};

const char* rule_name(ops::FusionRule rule) {
  switch (rule) {
    case ops::FusionRule::Average:
      return "average";
    case ops::FusionRule::MaxAbs:
      return "max_abs";
    case ops::FusionRule::MaxEnergy:
      return "max_energy";
  }
  return "?";
}

fp::ops::FusionParams to_cpu(const fp::ops::FusionParams& p) {
  fp::ops::FusionParams c;
  c.levels = p.levels;
  c.rule = p.rule == ops::FusionRule::Average  ? fp::ops::FusionRule::Average
           : p.rule == ops::FusionRule::MaxAbs ? fp::ops::FusionRule::MaxAbs
                                          : fp::ops::FusionRule::MaxEnergy;
  c.gain = p.gain;
  return c;
}

std::string describe(int w, int h, const fp::ops::FusionParams& p) {
  std::ostringstream s;
  s << w << "x" << h << " levels " << p.levels << " rule " << rule_name(p.rule) << " gain [";
  for (std::size_t i = 0; i < p.gain.size(); ++i) s << (i ? ", " : "") << p.gain[i];
  s << "]";
  return s.str();
}

fp::ops::FusionParams params(int levels, ops::FusionRule rule, std::vector<float> gain = {}) {
  fp::ops::FusionParams p;
  p.levels = levels;
  p.rule = rule;
  p.gain = std::move(gain);
  return p;
}

HostImageU8 cpu_fusion(const HostImageU8& a, const HostImageU8& b, const fp::ops::FusionParams& p) {
  HostImageU8 out(a.width(), a.height());
  fp::cpu::pyramid_fusion(a.view(), b.view(), out.view(), to_cpu(p));
  return out;
}

// One fusion on the GPU with a workspace of exactly the advertised size, on its own stream.
HostImageU8 gpu_fusion(const HostImageU8& a, const HostImageU8& b, const fp::ops::FusionParams& p) {
  const auto da = fp::test::to_device(a);
  const auto db = fp::test::to_device(b);
  fp::cuda::DeviceImage<std::uint8_t> dst(a.width(), a.height());
  fp::cuda::DeviceArray<unsigned char> workspace(fp::cuda::pyramid_fusion_workspace_bytes(a.width(), a.height(), p.levels));
  fp::cuda::Stream stream;
  fp::cuda::pyramid_fusion(da.view(), db.view(), dst.view(), p, workspace.get(), workspace.size(), stream.get());
  stream.synchronize();
  return fp::test::to_host(dst);
}

// A photo-like plane: smooth gradients, a disc and some texture, so the pyramid has both
// large flat areas and detail (uniform noise alone saturates every level).
HostImageU8 scene(int w, int h, std::uint32_t seed, int pitch_extra = 0) {
  HostImageU8 image(w, h, w + pitch_extra);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> noise(-12, 12);
  const double cx = w * (0.3 + 0.4 * (seed % 7) / 7.0);
  const double cy = h * 0.5;
  const double radius = 0.25 * (w < h ? w : h) + 1;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double v = 40.0 + 150.0 * x / (w > 1 ? w - 1 : 1) + 30.0 * y / (h > 1 ? h - 1 : 1);
      if ((x - cx) * (x - cx) + (y - cy) * (y - cy) < radius * radius) v = 255 - v;
      if ((x / 4 + y / 4) % 2 == 0) v += 20;
      v += noise(rng);
      image(x, y) = static_cast<std::uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  return image;
}

HostImageU8 constant(int w, int h, std::uint8_t value) { return HostImageU8(w, h, 0, value); }

// The GPU's result equals the CPU's, sample for sample (see the top of this file).
void expect_equal_to_cpu(const HostImageU8& gpu, const HostImageU8& cpu) {
  std::string where;
  EXPECT_EQ(fp::test::max_abs_difference(gpu, cpu, &where), 0) << "gpu vs cpu, largest difference at " << where;
  long differing = 0;
  for (int y = 0; y < gpu.height(); ++y)
    for (int x = 0; x < gpu.width(); ++x) differing += gpu(x, y) != cpu(x, y);
  EXPECT_EQ(differing, 0) << differing << " of " << gpu.width() * gpu.height() << " samples differ from the CPU's";
}

void expect_matches_cpu(const HostImageU8& a, const HostImageU8& b, const fp::ops::FusionParams& p) {
  SCOPED_TRACE(describe(a.width(), a.height(), p));
  const HostImageU8 expected = cpu_fusion(a, b, p);
  expect_equal_to_cpu(gpu_fusion(a, b, p), expected);
}

TEST(PyramidFusionGpu, MatchesCpuOnEverySizeRuleAndLevelCount) {
  FP_REQUIRE_GPU();
  std::uint32_t seed = 1;
  for (const auto& size : fp::test::kernel_test_sizes()) {
    const HostImageU8 a = fp::test::random_image(size.width, size.height, seed++, size.pitch_extra);
    const HostImageU8 b = fp::test::random_image(size.width, size.height, seed++, size.pitch_extra);
    for (ops::FusionRule rule : kRules)
      for (int levels : pick<int>({1, 2, 3, 4, 5, 6, 7}, {2, 4})) expect_matches_cpu(a, b, params(levels, rule));
  }
}

TEST(PyramidFusionGpu, MatchesCpuOnPhotoLikeImages) {
  FP_REQUIRE_GPU();
  for (const auto& size : fp::test::kernel_test_sizes()) {
    if (small_sizes() && size.width * size.height < 5000) continue;
    const HostImageU8 a = scene(size.width, size.height, 3, size.pitch_extra);
    const HostImageU8 b = scene(size.width, size.height, 8, size.pitch_extra);
    for (ops::FusionRule rule : kRules)
      for (int levels : pick<int>({2, 5}, {5})) expect_matches_cpu(a, b, params(levels, rule));
  }
}

TEST(PyramidFusionGpu, MoreLevelsThanTheImageSupports) {
  FP_REQUIRE_GPU();
  // 17x13 is 1x1 from level 5 on; the levels past that are 1x1 copies.
  const Sizes sizes = pick<std::pair<int, int>>({{17, 13}, {1, 1}, {2, 1}, {1, 5}, {3, 2}, {33, 1}, {40, 70}},
                                                 {{17, 13}, {3, 2}});
  std::uint32_t seed = 100;
  for (const auto& [w, h] : sizes) {
    const HostImageU8 a = fp::test::random_image(w, h, seed++);
    const HostImageU8 b = fp::test::random_image(w, h, seed++);
    for (ops::FusionRule rule : kRules)
      for (int levels : pick<int>({8, 9, 10, 11, fp::cuda::kMaxFusionLevels}, {fp::cuda::kMaxFusionLevels}))
        expect_matches_cpu(a, b, params(levels, rule));
  }
}

TEST(PyramidFusionGpu, AppliesGainsPerDetailLevel) {
  FP_REQUIRE_GPU();
  const std::vector<std::vector<float>> gains = {{1.5f, 1.2f}, {0.0f, 2.0f}, {2.0f, 2.0f, 2.0f, 2.0f, 2.0f, 2.0f, 2.0f}};
  const Sizes sizes = pick<std::pair<int, int>>({{17, 13}, {64, 48}, {333, 101}, {1920, 1080}}, {{64, 48}});
  for (const auto& [w, h] : sizes) {
    const HostImageU8 a = scene(w, h, 5);
    const HostImageU8 b = scene(w, h, 6);
    const HostImageU8 na = fp::test::random_image(w, h, 7);
    for (ops::FusionRule rule : kRules)
      for (const auto& gain : gains)
        for (int levels : pick<int>({2, 4, 6}, {4})) {
          expect_matches_cpu(a, b, params(levels, rule, gain));
          expect_matches_cpu(na, b, params(levels, rule, gain));
        }
  }
}

// With 4 or more levels the GPU makes the top three in one kernel, a block per tile of the
// third level from the top, recomputing the smaller levels over windows that overlap its
// neighbours' and clamp at every edge: sizes whose levels there span several tiles with a
// partial last one, and a different gain on every level (so a gain applied to the wrong
// level of the three shows).
TEST(PyramidFusionGpu, TopThreeLevelsInOneKernelAcrossTiles) {
  FP_REQUIRE_GPU();
  const std::vector<float> gain = {1.3f, 0.8f, 1.7f, 0.6f, 1.1f, 1.4f};
  const Sizes sizes = pick<std::pair<int, int>>({{1000, 700}, {515, 263}, {150, 90}}, {{150, 90}});
  for (const auto& [w, h] : sizes) {
    const HostImageU8 a = scene(w, h, 11);
    const HostImageU8 b = fp::test::random_image(w, h, 12);
    for (ops::FusionRule rule : kRules)
      for (int levels : pick<int>({4, 5, 6, 7}, {4, 5})) expect_matches_cpu(a, b, params(levels, rule, gain));
  }
}

TEST(PyramidFusionGpu, FrameFusedWithItselfIsTheFrame) {
  FP_REQUIRE_GPU();
  const Sizes sizes = pick<std::pair<int, int>>({{1, 1}, {17, 13}, {64, 48}, {257, 31}, {1920, 1080}}, {{17, 13}, {64, 48}});
  std::uint32_t seed = 200;
  for (const auto& [w, h] : sizes) {
    std::vector<HostImageU8> frames = {fp::test::random_image(w, h, seed++, 3)};
    if (!small_sizes()) frames.push_back(scene(w, h, seed++));
    for (const HostImageU8& frame : frames)
      for (ops::FusionRule rule : kRules)
        for (int levels : pick<int>({1, 2, 3, 5, 7, 12}, {1, 3, 12})) {
          const auto p = params(levels, rule, {1.0f, 1.0f});
          SCOPED_TRACE(describe(w, h, p));
          std::string where;
          EXPECT_EQ(fp::test::max_abs_difference(gpu_fusion(frame, frame, p), frame, &where), 0) << where;
        }
  }
}

TEST(PyramidFusionGpu, ConstantInputsGiveTheirRoundedMean) {
  FP_REQUIRE_GPU();
  // Every detail level of a constant plane is exactly 0 and the base is (10 + 21) / 2 = 15.5,
  // which rounds half up.
  for (const auto& [w, h] : pick<std::pair<int, int>>({{1, 1}, {17, 13}, {640, 360}}, {{17, 13}}))
    for (ops::FusionRule rule : kRules)
      for (int levels : pick<int>({1, 3, 5, 12}, {1, 5})) {
        const auto p = params(levels, rule, {2.0f});
        SCOPED_TRACE(describe(w, h, p));
        const HostImageU8 out = gpu_fusion(constant(w, h, 10), constant(w, h, 21), p);
        EXPECT_EQ(fp::test::max_abs_difference(out, constant(w, h, 16)), 0);
        EXPECT_EQ(fp::test::max_abs_difference(out, cpu_fusion(constant(w, h, 10), constant(w, h, 21), p)), 0);
      }
}

// b = 255 - a makes b's detail coefficients the exact negatives of a's on the two finest
// levels (every sum there is exact in float), so |La| == |Lb| and the 3x3 energies tie
// everywhere: both max rules must keep a's coefficient, as the CPU does. Taking b's instead
// would move pixels by up to 255.
TEST(PyramidFusionGpu, TiesGoToTheFirstInput) {
  FP_REQUIRE_GPU();
  for (const auto& [w, h] : pick<std::pair<int, int>>({{17, 13}, {64, 48}, {1920, 1080}}, {{64, 48}})) {
    const HostImageU8 a = fp::test::random_image(w, h, 31);
    HostImageU8 b(w, h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) b(x, y) = static_cast<std::uint8_t>(255 - a(x, y));
    for (ops::FusionRule rule : {ops::FusionRule::MaxAbs, ops::FusionRule::MaxEnergy})
      for (int levels : {2, 3}) expect_matches_cpu(a, b, params(levels, rule));
  }
}

TEST(PyramidFusionGpu, ReusesTheWorkspaceAcrossCalls) {
  FP_REQUIRE_GPU();
  const int w = small_sizes() ? 200 : 1920;
  const int h = small_sizes() ? 120 : 1080;
  const HostImageU8 a = scene(w, h, 11);
  const HostImageU8 b = fp::test::random_image(w, h, 12);
  const HostImageU8 c = scene(w, h, 13);
  const HostImageU8 d = scene(w, h, 14);
  const auto da = fp::test::to_device(a);
  const auto db = fp::test::to_device(b);
  const auto dc = fp::test::to_device(c);
  const auto dd = fp::test::to_device(d);
  fp::cuda::DeviceImage<std::uint8_t> dst(w, h);
  // Sized once for the most levels used below: fewer levels need no more.
  fp::cuda::DeviceArray<unsigned char> workspace(fp::cuda::pyramid_fusion_workspace_bytes(w, h, 7));
  fp::cuda::Stream stream;

  struct Call {
    const fp::cuda::DeviceImage<std::uint8_t>* x;
    const fp::cuda::DeviceImage<std::uint8_t>* y;
    const HostImageU8* hx;
    const HostImageU8* hy;
    fp::ops::FusionParams p;
  };
  const std::vector<Call> calls = {
      {&da, &db, &a, &b, params(5, ops::FusionRule::MaxEnergy, {1.5f, 1.2f})},
      {&dc, &dd, &c, &d, params(7, ops::FusionRule::MaxAbs)},
      {&da, &db, &a, &b, params(5, ops::FusionRule::MaxEnergy, {1.5f, 1.2f})},
      {&dd, &dc, &d, &c, params(3, ops::FusionRule::Average, {0.0f, 2.0f})},
      {&da, &db, &a, &b, params(5, ops::FusionRule::MaxEnergy, {1.5f, 1.2f})},
  };
  std::vector<HostImageU8> results;
  for (const Call& call : calls) {
    SCOPED_TRACE(describe(w, h, call.p));
    fp::cuda::pyramid_fusion(call.x->view(), call.y->view(), dst.view(), call.p, workspace.get(), workspace.size(),
                             stream.get());
    stream.synchronize();
    results.push_back(fp::test::to_host(dst));
    expect_equal_to_cpu(results.back(), cpu_fusion(*call.hx, *call.hy, call.p));
  }
  EXPECT_EQ(fp::test::max_abs_difference(results[0], results[2]), 0);
  EXPECT_EQ(fp::test::max_abs_difference(results[0], results[4]), 0);

  // Back to back without synchronizing in between: stream order alone separates the calls.
  for (int i = 0; i < 3; ++i)
    for (const Call& call : calls)
      fp::cuda::pyramid_fusion(call.x->view(), call.y->view(), dst.view(), call.p, workspace.get(), workspace.size(),
                               stream.get());
  stream.synchronize();
  EXPECT_EQ(fp::test::max_abs_difference(fp::test::to_host(dst), results[4]), 0);
}

// Device views with odd byte pitches and unaligned starts, as a crop of a bigger plane
// would give, and a workspace pointer that is not 256-byte aligned.
TEST(PyramidFusionGpu, AcceptsAnyDevicePitchAndOffset) {
  FP_REQUIRE_GPU();
  for (const auto& [w, h] : pick<std::pair<int, int>>({{17, 13}, {301, 77}, {1920, 1080}}, {{17, 13}, {301, 77}})) {
    const HostImageU8 a = scene(w, h, 21);
    const HostImageU8 b = fp::test::random_image(w, h, 22);
    const std::ptrdiff_t pitch = w + 7;
    const std::size_t plane = static_cast<std::size_t>(pitch) * static_cast<std::size_t>(h) + 3;
    fp::cuda::DeviceArray<std::uint8_t> memory(3 * plane);
    const fp::ImageU8 va{memory.get() + 1, w, h, pitch};
    const fp::ImageU8 vb{memory.get() + plane + 2, w, h, pitch};
    const fp::ImageU8 vd{memory.get() + 2 * plane + 3, w, h, pitch};
    fp::cuda::Stream stream;
    fp::cuda::upload(a.view(), va, stream.get());
    fp::cuda::upload(b.view(), vb, stream.get());
    for (ops::FusionRule rule : kRules) {
      const auto p = params(5, rule, {1.25f});
      SCOPED_TRACE(describe(w, h, p));
      const std::size_t bytes = fp::cuda::pyramid_fusion_workspace_bytes(w, h, p.levels);
      fp::cuda::DeviceArray<unsigned char> workspace(bytes + 5);
      fp::cuda::pyramid_fusion(va, vb, vd, p, workspace.get() + 5, bytes, stream.get());
      HostImageU8 out(w, h, w + 9);
      fp::cuda::download(fp::ConstImageU8(vd), out.view(), stream.get());
      stream.synchronize();
      expect_equal_to_cpu(out, cpu_fusion(a, b, p));
    }
  }
}

TEST(PyramidFusionGpu, RejectsBadArguments) {
  FP_REQUIRE_GPU();
  fp::cuda::DeviceImage<std::uint8_t> a(40, 30);
  fp::cuda::DeviceImage<std::uint8_t> b(40, 30);
  fp::cuda::DeviceImage<std::uint8_t> small(39, 30);
  fp::cuda::DeviceImage<std::uint8_t> dst(40, 30);
  const std::size_t bytes = fp::cuda::pyramid_fusion_workspace_bytes(40, 30, 5);
  fp::cuda::DeviceArray<unsigned char> workspace(bytes);
  fp::cuda::Stream stream;
  const auto run = [&](fp::ConstImageU8 x, fp::ConstImageU8 y, fp::ImageU8 out, int levels, std::size_t size) {
    fp::cuda::pyramid_fusion(x, y, out, params(levels, ops::FusionRule::MaxEnergy), workspace.get(), size, stream.get());
  };
  EXPECT_THROW(run(a.view(), small.view(), dst.view(), 5, bytes), std::invalid_argument);
  EXPECT_THROW(run(a.view(), b.view(), small.view(), 5, bytes), std::invalid_argument);
  EXPECT_THROW(run(a.view(), b.view(), dst.view(), 0, bytes), std::invalid_argument);
  EXPECT_THROW(run(a.view(), b.view(), dst.view(), fp::cuda::kMaxFusionLevels + 1, bytes), std::invalid_argument);
  EXPECT_THROW(run(a.view(), b.view(), dst.view(), 5, bytes - 1), std::invalid_argument);
  EXPECT_THROW(run(a.view(), b.view(), dst.view(), 6, bytes), std::invalid_argument);
  EXPECT_THROW(run(a.view(), b.view(), a.view(), 5, bytes), std::invalid_argument);  // dst is an input
  EXPECT_NO_THROW(run(a.view(), b.view(), dst.view(), 5, bytes));
  EXPECT_NO_THROW(run(a.view(), b.view(), dst.view(), 1, 0));  // one level needs no workspace
  stream.synchronize();
}

// Pure host arithmetic: runs without a GPU too.
TEST(PyramidFusionGpu, WorkspaceSizeGrowsWithLevels) {
  EXPECT_EQ(fp::cuda::pyramid_fusion_workspace_bytes(1920, 1080, 1), 0u);
  EXPECT_EQ(fp::cuda::pyramid_fusion_workspace_bytes(0, 1080, 5), 0u);
  std::size_t previous = 0;
  for (int levels = 2; levels <= fp::cuda::kMaxFusionLevels; ++levels) {
    const std::size_t bytes = fp::cuda::pyramid_fusion_workspace_bytes(1920, 1080, levels);
    EXPECT_GT(bytes, previous) << levels;
    previous = bytes;
  }
  // Both Gaussian pyramids and the collapse below the base: about one float plane of the
  // frame in all, plus row and plane alignment.
  EXPECT_LT(previous, std::size_t{1920} * 1080 * sizeof(float) * 11 / 10);
  EXPECT_GT(fp::cuda::pyramid_fusion_workspace_bytes(1, 1, 12), 0u);
  EXPECT_THROW(fp::cuda::pyramid_fusion_workspace_bytes(16, 16, 0), std::invalid_argument);
  EXPECT_THROW(fp::cuda::pyramid_fusion_workspace_bytes(16, 16, fp::cuda::kMaxFusionLevels + 1), std::invalid_argument);
  EXPECT_THROW(fp::cuda::pyramid_fusion_workspace_bytes(-1, 16, 5), std::invalid_argument);
}

}  // namespace
