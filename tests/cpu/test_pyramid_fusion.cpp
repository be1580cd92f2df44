#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/pyramid_fusion.hpp"
#include "test_images.hpp"

namespace fp::cpu {
namespace {

using test::kSizes;

// A float plane read with clamped (replicated) coordinates.
struct Plane {
  int w = 0;
  int h = 0;
  std::vector<float> v;
  Plane(int width, int height) : w(width), h(height), v(static_cast<std::size_t>(width * height)) {}
  float& at(int x, int y) { return v[static_cast<std::size_t>(y * w + x)]; }
  float get(int x, int y) const {
    return v[static_cast<std::size_t>(std::clamp(y, 0, h - 1) * w + std::clamp(x, 0, w - 1))];
  }
};

// The documented definition, pixel by pixel.
Plane naive_reduce(const Plane& g) {
  const float k[5] = {1 / 16.0f, 4 / 16.0f, 6 / 16.0f, 4 / 16.0f, 1 / 16.0f};
  Plane out((g.w + 1) / 2, (g.h + 1) / 2);
  for (int y = 0; y < out.h; ++y)
    for (int x = 0; x < out.w; ++x) {
      float sum = 0;
      for (int j = 0; j < 5; ++j) {
        float row = 0;
        for (int i = 0; i < 5; ++i) row += k[i] * g.get(2 * x + i - 2, 2 * y + j - 2);
        sum += k[j] * row;
      }
      out.at(x, y) = sum;
    }
  return out;
}

// expand along one axis: fine index i from the coarse samples f(c), clamped by f.
template <class F>
float expand_1d(int i, F f) {
  if (i % 2 == 0) return 0.125f * f(i / 2 - 1) + 0.75f * f(i / 2) + 0.125f * f(i / 2 + 1);
  return 0.5f * f((i - 1) / 2) + 0.5f * f((i + 1) / 2);
}

Plane naive_expand(const Plane& coarse, int w, int h) {
  Plane out(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      out.at(x, y) = expand_1d(y, [&](int cy) {  // columns of the row-expanded rows
        return expand_1d(x, [&](int cx) { return coarse.get(cx, cy); });
      });
  return out;
}

Plane to_plane(const HostImageU8& image) {
  Plane p(image.width(), image.height());
  for (int y = 0; y < p.h; ++y)
    for (int x = 0; x < p.w; ++x) p.at(x, y) = image(x, y);
  return p;
}

std::vector<Plane> naive_laplacian(const HostImageU8& image, int levels) {
  std::vector<Plane> g{to_plane(image)};
  for (int i = 1; i < levels; ++i) g.push_back(naive_reduce(g.back()));
  std::vector<Plane> l = g;
  for (int i = 0; i + 1 < levels; ++i) {
    const Plane up = naive_expand(g[static_cast<std::size_t>(i) + 1], g[static_cast<std::size_t>(i)].w,
                                  g[static_cast<std::size_t>(i)].h);
    for (std::size_t j = 0; j < l[static_cast<std::size_t>(i)].v.size(); ++j)
      l[static_cast<std::size_t>(i)].v[j] = g[static_cast<std::size_t>(i)].v[j] - up.v[j];
  }
  return l;
}

float energy(const Plane& l, int x, int y) {
  float sum = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) sum += l.get(x + dx, y + dy) * l.get(x + dx, y + dy);
  return sum;
}

HostImageU8 naive_fusion(const HostImageU8& a, const HostImageU8& b, const ops::FusionParams& p) {
  const std::vector<Plane> la = naive_laplacian(a, p.levels);
  const std::vector<Plane> lb = naive_laplacian(b, p.levels);
  std::vector<Plane> f = la;
  for (int i = 0; i < p.levels; ++i) {
    const auto li = static_cast<std::size_t>(i);
    const bool base = i == p.levels - 1;
    const float gain = !base && li < p.gain.size() ? p.gain[li] : 1.0f;
    for (int y = 0; y < f[li].h; ++y)
      for (int x = 0; x < f[li].w; ++x) {
        const float va = la[li].get(x, y);
        const float vb = lb[li].get(x, y);
        float v = 0;
        if (base || p.rule == ops::FusionRule::Average)
          v = (va + vb) / 2;
        else if (p.rule == ops::FusionRule::MaxAbs)
          v = std::fabs(va) >= std::fabs(vb) ? va : vb;
        else
          v = energy(la[li], x, y) >= energy(lb[li], x, y) ? va : vb;
        f[li].at(x, y) = v * gain;
      }
  }
  Plane r = f.back();
  for (int i = p.levels - 2; i >= 0; --i) {
    const Plane& fi = f[static_cast<std::size_t>(i)];
    const Plane up = naive_expand(r, fi.w, fi.h);
    Plane next(fi.w, fi.h);
    for (std::size_t j = 0; j < next.v.size(); ++j) next.v[j] = fi.v[j] + up.v[j];
    r = next;
  }
  HostImageU8 out(a.width(), a.height());
  for (int y = 0; y < out.height(); ++y)
    for (int x = 0; x < out.width(); ++x)
      out(x, y) = static_cast<std::uint8_t>(std::floor(std::clamp(r.at(x, y), 0.0f, 255.0f) + 0.5));
  return out;
}

HostImageU8 fuse(const HostImageU8& a, const HostImageU8& b, const ops::FusionParams& p, int extra = 6) {
  HostImageU8 out = test::pitched_image(a.width(), a.height(), extra);
  pyramid_fusion(a.view(), b.view(), out.view(), p);
  test::expect_padding_untouched(out, extra);
  return out;
}

const char* name(ops::FusionRule rule) {
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

constexpr ops::FusionRule kRules[] = {ops::FusionRule::Average, ops::FusionRule::MaxAbs, ops::FusionRule::MaxEnergy};

int max_difference(const HostImageU8& x, const HostImageU8& y) {
  int worst = 0;
  for (int j = 0; j < x.height(); ++j)
    for (int i = 0; i < x.width(); ++i) worst = std::max(worst, std::abs(x(i, j) - y(i, j)));
  return worst;
}

TEST(PyramidFusion, MatchesNaiveOnAllSizesRulesAndLevels) {
  std::uint32_t seed = 200;
  for (const auto size : kSizes) {
    SCOPED_TRACE(test::describe(size));
    const HostImageU8 a = test::blob_image(size.w, size.h, seed++);
    const HostImageU8 b = test::random_image(size.w, size.h, seed++);
    for (const ops::FusionRule rule : kRules)
      for (const int levels : {1, 2, 3, 5})
        for (const std::vector<float>& gain : {std::vector<float>{}, std::vector<float>{2.0f, 0.5f, 1.5f}}) {
          const ops::FusionParams p{levels, rule, gain};
          SCOPED_TRACE(std::string(name(rule)) + " levels " + std::to_string(levels) + " gains " +
                       std::to_string(gain.size()));
          const HostImageU8 got = test::copy_of(fuse(a, b, p).view());
          EXPECT_LE(max_difference(got, naive_fusion(a, b, p)), 1);
        }
  }
}

TEST(PyramidFusion, MoreLevelsThanTheImageHas) {
  const HostImageU8 a = test::random_image(5, 3, 210);
  const HostImageU8 b = test::random_image(5, 3, 211);
  for (const ops::FusionRule rule : kRules) {
    const ops::FusionParams p{8, rule, {}};
    EXPECT_LE(max_difference(test::copy_of(fuse(a, b, p).view()), naive_fusion(a, b, p)), 1) << name(rule);
  }
}

TEST(PyramidFusion, FusingAFrameWithItselfGivesTheFrame) {
  std::uint32_t seed = 220;
  for (const auto size : kSizes) {
    const HostImageU8 a = test::random_image(size.w, size.h, seed++);
    for (const ops::FusionRule rule : kRules)
      for (const int levels : {1, 2, 5, 9}) {
        SCOPED_TRACE(test::describe(size) + " " + name(rule) + " levels " + std::to_string(levels));
        EXPECT_TRUE(test::images_equal(test::copy_of(fuse(a, a, {levels, rule, {}}).view()), test::copy_of(a.view())));
        // Explicit unit gains are the same as none.
        EXPECT_TRUE(test::images_equal(test::copy_of(fuse(a, a, {levels, rule, {1, 1, 1, 1, 1, 1, 1, 1}}).view()),
                                       test::copy_of(a.view())));
      }
  }
}

TEST(PyramidFusion, ConstantInputsGiveTheirRoundedMean) {
  for (const auto size : kSizes)
    for (const ops::FusionRule rule : kRules) {
      SCOPED_TRACE(test::describe(size) + " " + name(rule));
      const HostImageU8 a(size.w, size.h, 0, 10);
      const HostImageU8 b(size.w, size.h, 0, 21);
      const HostImageU8 same = fuse(a, a, {5, rule, {3.0f, 0.0f}});
      const HostImageU8 mixed = fuse(a, b, {5, rule, {3.0f, 0.0f}});
      int wrong = 0;
      for (int y = 0; y < size.h; ++y)
        for (int x = 0; x < size.w; ++x) wrong += (same(x, y) != 10) + (mixed(x, y) != 16);  // 15.5 rounds up
      EXPECT_EQ(wrong, 0);
    }
}

TEST(PyramidFusion, OneLevelAveragesWithHalfUp) {
  const HostImageU8 a = test::random_image(17, 13, 230);
  const HostImageU8 b = test::random_image(17, 13, 231);
  const HostImageU8 got = fuse(a, b, {1, ops::FusionRule::MaxEnergy, {}});
  for (int y = 0; y < 13; ++y)
    for (int x = 0; x < 17; ++x) ASSERT_EQ(got(x, y), (a(x, y) + b(x, y) + 1) / 2) << x << "," << y;
}

TEST(PyramidFusion, TiesGoToTheFirstInput) {
  // With two levels every value is a short dyadic fraction, so float is exact: b = 255 - a
  // has Lb = -La exactly, which ties both |L| and the 3x3 energy everywhere. a must win, so
  // the result is La + expand(the averaged base, 127.5 everywhere) = La + 127.5.
  const HostImageU8 a = test::random_image(17, 13, 240);
  HostImageU8 b(17, 13);
  for (int y = 0; y < 13; ++y)
    for (int x = 0; x < 17; ++x) b(x, y) = static_cast<std::uint8_t>(255 - a(x, y));
  const std::vector<Plane> la = naive_laplacian(a, 2);
  for (const ops::FusionRule rule : {ops::FusionRule::MaxAbs, ops::FusionRule::MaxEnergy}) {
    SCOPED_TRACE(name(rule));
    const HostImageU8 got = fuse(a, b, {2, rule, {}});
    for (int y = 0; y < 13; ++y)
      for (int x = 0; x < 17; ++x) {
        const float want = std::floor(std::clamp(la[0].get(x, y) + 127.5f, 0.0f, 255.0f) + 0.5f);
        ASSERT_EQ(got(x, y), want) << x << "," << y;
      }
  }
}

TEST(PyramidFusion, MaxAbsKeepsTheDetailOfEachSide) {
  // a has a fine checkerboard on the left half, b on the right half; elsewhere both are a
  // flat 128. max_abs keeps each side's detail, average halves it.
  const int w = 64, h = 32;
  HostImageU8 a(w, h, 0, 128), b(w, h, 0, 128);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::uint8_t v = ((x + y) % 2) != 0 ? 188 : 68;
      if (x < w / 2 - 4) a(x, y) = v;
      if (x >= w / 2 + 4) b(x, y) = v;
    }
  const HostImageU8 maxabs = fuse(a, b, {4, ops::FusionRule::MaxAbs, {}});
  const HostImageU8 average = fuse(a, b, {4, ops::FusionRule::Average, {}});
  auto contrast = [&](const HostImageU8& img, int x0, int x1) {
    double sum = 0;
    for (int y = 4; y < h - 4; ++y)
      for (int x = x0; x < x1; ++x) sum += std::abs(img(x, y) - img(x + 1, y));
    return sum / ((h - 8) * (x1 - x0));
  };
  EXPECT_GT(contrast(maxabs, 4, 20), 100);
  EXPECT_GT(contrast(maxabs, 40, 58), 100);
  EXPECT_LT(contrast(average, 4, 20), 70);
}

TEST(PyramidFusion, CallsOfOtherSizesInBetweenChangeNothing) {
  // Buffers are reused from call to call; nothing of an earlier call may leak into a later.
  const HostImageU8 a = test::random_image(64, 48, 250);
  const HostImageU8 b = test::blob_image(64, 48, 251);
  const ops::FusionParams p{4, ops::FusionRule::MaxEnergy, {1.5f}};
  const HostImageU8 first = test::copy_of(fuse(a, b, p).view());
  fuse(test::random_image(200, 100, 252), test::random_image(200, 100, 253), {6, ops::FusionRule::MaxAbs, {}});
  fuse(test::random_image(5, 3, 254), test::random_image(5, 3, 255), p);
  EXPECT_TRUE(test::images_equal(test::copy_of(fuse(a, b, p).view()), first));
}

TEST(PyramidFusion, RejectsBadArguments) {
  const HostImageU8 a(8, 8), b(8, 8), c(9, 8);
  HostImageU8 out(8, 8);
  EXPECT_THROW(pyramid_fusion(a.view(), b.view(), out.view(), {0, ops::FusionRule::Average, {}}), std::invalid_argument);
  EXPECT_THROW(pyramid_fusion(a.view(), c.view(), out.view(), {}), std::invalid_argument);
}

}  // namespace
}  // namespace fp::cpu
