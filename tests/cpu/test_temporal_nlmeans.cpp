// cpu::temporal_nlmeans against the definition in cpu/temporal_nlmeans.hpp evaluated pixel by
// pixel here, in double precision, with its own reflect-101 and SSD loops, on motion fields
// built by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cpu/nlmeans.hpp"
#include "cpu/temporal_nlmeans.hpp"
#include "test_images.hpp"

// A named namespace of its own: tests/cpu is compiled as a unity build, where the other
// files' anonymous namespaces would share this one.
namespace fp::cpu::temporal_nlmeans_test {
namespace {

constexpr int kBlock = 16;

// Reflect-101 by walking: bounce off the ends one step at a time.
int naive_reflect(int i, int n) {
  if (n == 1) return 0;
  while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
  return i;
}

double at(const HostImageU8& image, int x, int y) {
  return image(naive_reflect(x, image.width()), naive_reflect(y, image.height()));
}

// A previous frame and the vectors of the current frame's blocks into it.
struct NaiveReference {
  const HostImageU8* frame;
  const MotionField* motion;
};

// The definition, word for word: for each pixel p, the current frame's window around p and,
// for each previous frame, the window around p + v (v: p's block's vector).
HostImageF32 naive_temporal(const HostImageU8& current, const std::vector<NaiveReference>& previous,
                            const ops::TemporalNlmeansParams& p) {
  const int w = current.width();
  const int h = current.height();
  const int k = p.spatial.patch / 2;
  const double norm = p.spatial.patch * p.spatial.patch * p.spatial.h * p.spatial.h;
  HostImageF32 out(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double num = 0;
      double den = 0;
      auto add_window = [&](const HostImageU8& frame, int vx, int vy, int radius) {
        for (int dy = -radius; dy <= radius; ++dy)
          for (int dx = -radius; dx <= radius; ++dx) {
            const int qx = x + vx + dx;
            const int qy = y + vy + dy;
            double ssd = 0;
            for (int ky = -k; ky <= k; ++ky)
              for (int kx = -k; kx <= k; ++kx) {
                const double d = at(current, x + kx, y + ky) - at(frame, qx + kx, qy + ky);
                ssd += d * d;
              }
            const double weight = ssd == 0 ? 1.0 : std::exp(-ssd / norm);
            num += weight * at(frame, qx, qy);
            den += weight;
          }
      };
      add_window(current, 0, 0, p.spatial.search / 2);
      for (const NaiveReference& ref : previous) {
        const int blocks_x = (w + kBlock - 1) / kBlock;
        const ops::MotionVector v = ref.motion->vectors[static_cast<std::size_t>(y / kBlock) * blocks_x + x / kBlock];
        add_window(*ref.frame, v.x, v.y, p.temporal_search / 2);
      }
      out(x, y) = static_cast<float>(num / den);
    }
  return out;
}

// A motion field for a w x h frame, every vector uniform in [-range, range]^2.
MotionField random_field(int w, int h, int range, std::uint32_t seed) {
  MotionField field;
  field.blocks_x = (w + kBlock - 1) / kBlock;
  field.blocks_y = (h + kBlock - 1) / kBlock;
  std::mt19937 rng(seed);
  for (int i = 0; i < field.blocks_x * field.blocks_y; ++i) {
    const auto x = static_cast<std::int16_t>(static_cast<int>(rng() % (2 * range + 1)) - range);
    const auto y = static_cast<std::int16_t>(static_cast<int>(rng() % (2 * range + 1)) - range);
    field.vectors.push_back({x, y});
    field.sads.push_back(0);
  }
  return field;
}

// A smooth scene plus noise; frames of one scene have similar patches, so the weights of the
// previous frames matter.
HostImageU8 noisy_scene(int w, int h, std::uint32_t scene_seed, std::uint32_t noise_seed, int extra) {
  HostImageU8 image = test::blob_image(w, h, scene_seed, extra);
  std::mt19937 rng(noise_seed);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      image(x, y) = static_cast<std::uint8_t>(std::clamp(image(x, y) + static_cast<int>(rng() % 25) - 12, 0, 255));
  return image;
}

// The current frame, up to four previous ones and their fields, for one size.
struct Sequence {
  HostImageU8 current;
  std::vector<HostImageU8> frames;
  std::vector<MotionField> fields;

  Sequence(int w, int h, std::uint32_t seed) : current(noisy_scene(w, h, seed, seed + 100, 3)) {
    for (int j = 0; j < ops::kMaxTemporalFrames; ++j) {
      frames.push_back(noisy_scene(w, h, seed, seed + 101 + static_cast<std::uint32_t>(j), 1 + j));
      fields.push_back(random_field(w, h, 32, seed + 200 + static_cast<std::uint32_t>(j)));
    }
  }
  std::vector<TemporalReference> references(int count) const {
    std::vector<TemporalReference> refs;
    for (int j = 0; j < count; ++j) refs.push_back({frames[static_cast<std::size_t>(j)].view(), &fields[static_cast<std::size_t>(j)]});
    return refs;
  }
  std::vector<NaiveReference> naive_references(int count) const {
    std::vector<NaiveReference> refs;
    for (int j = 0; j < count; ++j) refs.push_back({&frames[static_cast<std::size_t>(j)], &fields[static_cast<std::size_t>(j)]});
    return refs;
  }
};

std::string describe(const ops::TemporalNlmeansParams& p, int used) {
  return "h " + std::to_string(p.spatial.h) + " patch " + std::to_string(p.spatial.patch) + " search " +
         std::to_string(p.spatial.search) + " temporal_search " + std::to_string(p.temporal_search) + " frames " +
         std::to_string(p.frames) + " used " + std::to_string(used);
}

ops::TemporalNlmeansParams params(double h, int patch, int search, int temporal_search, int frames) {
  ops::TemporalNlmeansParams p;
  p.spatial = {h, patch, search};
  p.temporal_search = temporal_search;
  p.frames = frames;
  return p;
}

constexpr int kExtra = 3;  // the destination's pitch - width

HostImageF32 unrounded(const Sequence& s, int used, const ops::TemporalNlmeansParams& p) {
  HostImageF32 out(s.current.width(), s.current.height(), s.current.width() + kExtra, -1.0f);
  const std::vector<TemporalReference> refs = s.references(used);
  temporal_nlmeans_unrounded(s.current.view(), refs, p, out.view());
  int touched = 0;
  for (int y = 0; y < out.height(); ++y)
    for (int x = out.width(); x < out.width() + kExtra; ++x) touched += out.view().row(y)[x] != -1.0f;
  EXPECT_EQ(touched, 0) << "floats written into the row padding";
  return out;
}

void expect_matches_naive(const Sequence& s, int used, const ops::TemporalNlmeansParams& p) {
  SCOPED_TRACE(describe(p, used));
  const HostImageF32 got = unrounded(s, used, p);
  const HostImageF32 want = naive_temporal(s.current, s.naive_references(used), p);
  for (int y = 0; y < want.height(); ++y)
    for (int x = 0; x < want.width(); ++x) ASSERT_NEAR(got(x, y), want(x, y), 1e-4) << x << "," << y;
}

TEST(TemporalNlmeans, MatchesNaiveDefinitionSmallSizes) {
  std::uint32_t seed = 700;
  for (const auto size : std::vector<test::Size>{{1, 1}, {17, 13}}) {
    SCOPED_TRACE(test::describe(size));
    const Sequence s(size.w, size.h, seed++);
    int i = 0;
    for (const int patch : {1, 3, 5})
      for (const int search : {1, 5})
        for (const int temporal_search : {1, 3, 5})
          for (int used = 0; used <= ops::kMaxTemporalFrames; ++used) {
            const double h = ++i % 2 ? 9.0 : 30.0;
            // frames, the most that may be used, need not equal the count used.
            const int frames = std::min(ops::kMaxTemporalFrames, used + i % 2);
            expect_matches_naive(s, used, params(h, patch, search, temporal_search, frames));
          }
  }
}

TEST(TemporalNlmeans, MatchesNaiveDefinitionPitchedFrames) {
  // Blocks cut by both edges (37 = 2 * 16 + 5, 29 = 16 + 13), pitch != width everywhere.
  const Sequence s(37, 29, 710);
  int i = 0;
  for (const int patch : {1, 3, 5})
    for (const int search : {1, 5})
      for (const int temporal_search : {1, 3, 5}) {
        const int used = i++ % (ops::kMaxTemporalFrames + 1);
        expect_matches_naive(s, used, params(i % 3 ? 12.0 : 40.0, patch, search, temporal_search, ops::kMaxTemporalFrames));
      }
  expect_matches_naive(s, 4, params(15.0, 5, 5, 5, 4));
  expect_matches_naive(s, 4, params(0.7, 3, 3, 3, 4));  // weights underflow: mostly the pixel itself
}

TEST(TemporalNlmeans, VectorsOfEachBlockAreUsed) {
  // On this data the vectors matter (all of them (0, 0) changes most pixels), so the naive
  // comparisons above do check which vector each block's pixels use.
  const Sequence s(37, 29, 720);
  const ops::TemporalNlmeansParams p = params(20.0, 3, 3, 3, 1);
  Sequence zero = s;
  for (auto& v : zero.fields[0].vectors) v = {};
  const HostImageF32 a = unrounded(s, 1, p);
  const HostImageF32 b = unrounded(zero, 1, p);
  int differ = 0;
  for (int y = 0; y < 29; ++y)
    for (int x = 0; x < 37; ++x) differ += std::fabs(a(x, y) - b(x, y)) > 1e-3;
  EXPECT_GT(differ, 37 * 29 / 2);
}

// The fast (float) evaluation rounds the definition's value, or its neighbour near an x.5.
TEST(TemporalNlmeans, RoundedIsTheUnroundedRoundedHalfUp) {
  std::uint32_t seed = 730;
  for (const auto size : std::vector<test::Size>{{1, 1}, {17, 13}, {37, 29}, {64, 48}}) {
    SCOPED_TRACE(test::describe(size));
    const Sequence s(size.w, size.h, seed++);
    for (const auto& p : {params(10.0, 3, 5, 3, 2), params(30.0, 5, 3, 5, 4), params(4.0, 1, 5, 1, 3)}) {
      const int used = p.frames;
      SCOPED_TRACE(describe(p, used));
      const HostImageF32 want = unrounded(s, used, p);
      HostImageU8 got = test::pitched_image(size.w, size.h, 4);
      const std::vector<TemporalReference> refs = s.references(used);
      temporal_nlmeans(s.current.view(), refs, p, got.view());
      test::expect_padding_untouched(got, 4);
      for (int y = 0; y < size.h; ++y)
        for (int x = 0; x < size.w; ++x) {
          const double u = want(x, y);
          const double rounded = std::clamp(std::floor(u + 0.5), 0.0, 255.0);
          // The fast evaluation is float (as cpu::nlmeans): within its error of the definition,
          // it may round to the other side of an x.5. The bound is test_nlmeans.cpp's for n terms.
          const double n = static_cast<double>(p.spatial.search) * p.spatial.search +
                           used * static_cast<double>(p.temporal_search) * p.temporal_search;
          const double ulp = std::ldexp(1.0, -24);
          const double bound = 255.0 * 1.01 * ((2.01 / std::exp(1.0) * n + 2 * n + 4) * ulp + std::ldexp(1.0, -20)) +
                               std::ldexp(1.0, -15);
          const bool near_half = std::fabs(u - std::floor(u) - 0.5) <= bound;
          if (near_half)
            ASSERT_LE(std::fabs(got(x, y) - rounded), 1.0) << x << "," << y << ": " << u;
          else
            ASSERT_EQ(got(x, y), rounded) << x << "," << y << ": " << u;
        }
    }
  }
}

TEST(TemporalNlmeans, WithoutPreviousFramesIsNlmeans) {
  std::uint32_t seed = 740;
  for (const auto size : std::vector<test::Size>{{1, 1}, {2, 2}, {17, 13}, {37, 29}}) {
    SCOPED_TRACE(test::describe(size));
    const Sequence s(size.w, size.h, seed++);
    for (const auto& p : {params(10.0, 7, 21, 11, 0), params(25.0, 3, 5, 3, 2), params(40.0, 5, 1, 1, 4)}) {
      SCOPED_TRACE(describe(p, 0));
      const HostImageF32 got = unrounded(s, 0, p);
      HostImageF32 want(size.w, size.h);
      nlmeans_exact(s.current.view(), want.view(), p.spatial);
      for (int y = 0; y < size.h; ++y)
        for (int x = 0; x < size.w; ++x) ASSERT_NEAR(got(x, y), want(x, y), 1e-4) << x << "," << y;
    }
  }
}

TEST(TemporalNlmeans, RejectsBadParameters) {
  const Sequence s(20, 18, 750);
  HostImageF32 fdst(20, 18);
  HostImageU8 dst(20, 18);
  const std::vector<TemporalReference> one = s.references(1);
  auto expect_rejected = [&](const ops::TemporalNlmeansParams& p, std::span<const TemporalReference> refs,
                             const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_THROW(temporal_nlmeans_unrounded(s.current.view(), refs, p, fdst.view()), std::invalid_argument);
    EXPECT_THROW(temporal_nlmeans(s.current.view(), refs, p, dst.view()), std::invalid_argument);
  };
  const ops::TemporalNlmeansParams good = params(10.0, 3, 5, 3, 2);
  EXPECT_NO_THROW(temporal_nlmeans(s.current.view(), one, good, dst.view()));
  EXPECT_NO_THROW(check_temporal_nlmeans_params(good));
  for (const auto& [p, what] : std::vector<std::pair<ops::TemporalNlmeansParams, std::string>>{
           {params(10.0, 3, 5, 3, 5), "frames 5"},
           {params(10.0, 3, 5, 3, -1), "frames -1"},
           {params(10.0, 3, 5, 4, 2), "temporal_search 4"},
           {params(10.0, 3, 5, 0, 2), "temporal_search 0"},
           {params(10.0, 3, 5, -3, 2), "temporal_search -3"},
           {params(10.0, 4, 5, 3, 2), "patch 4"},
           {params(10.0, 3, 6, 3, 2), "search 6"},
           {params(0.0, 3, 5, 3, 2), "h 0"},
           {params(std::numeric_limits<double>::quiet_NaN(), 3, 5, 3, 2), "h NaN"},
       }) {
    expect_rejected(p, {}, what);
    EXPECT_THROW(check_temporal_nlmeans_params(p), std::invalid_argument) << what;
  }
  expect_rejected(params(10.0, 3, 5, 3, 0), one, "more previous frames than frames");
  {
    SCOPED_TRACE("destination of another size");
    HostImageF32 wide(21, 18);
    HostImageU8 tall(20, 19);
    EXPECT_THROW(temporal_nlmeans_unrounded(s.current.view(), one, good, wide.view()), std::invalid_argument);
    EXPECT_THROW(temporal_nlmeans(s.current.view(), one, good, tall.view()), std::invalid_argument);
  }
  const HostImageU8 other(20, 17);
  expect_rejected(good, std::vector<TemporalReference>{{other.view(), &s.fields[0]}}, "previous frame of another size");
  expect_rejected(good, std::vector<TemporalReference>{{s.frames[0].view(), nullptr}}, "no motion field");
  MotionField wide_field = random_field(33, 18, 4, 1);  // 3 x 2 blocks for a 2 x 2 frame
  expect_rejected(good, std::vector<TemporalReference>{{s.frames[0].view(), &wide_field}}, "field a block too wide");
  MotionField tall_field = random_field(20, 40, 4, 2);  // 2 x 3 blocks
  expect_rejected(good, std::vector<TemporalReference>{{s.frames[0].view(), &tall_field}}, "field a block too tall");
  MotionField short_field = s.fields[0];  // the right counts, too few vectors
  short_field.vectors.pop_back();
  expect_rejected(good, std::vector<TemporalReference>{{s.frames[0].view(), &short_field}}, "field short of vectors");
}

}  // namespace
}  // namespace fp::cpu::temporal_nlmeans_test
