// cpu::motion_search against the definition in core/ops/motion_search.hpp evaluated naively
// here: its own pyramid, its own clamped SAD loops, its own coarse-to-fine search with the
// tie rule written as a lexicographic key.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "cpu/motion_search.hpp"
#include "test_images.hpp"

// A named namespace of its own: tests/cpu is compiled as a unity build, where the other
// files' anonymous namespaces would share this one.
namespace fp::cpu::motion_search_test {
namespace {

// The definition's constants, written out rather than read from the header, so that a change
// there shows here.
constexpr int kBlock = 16;
constexpr int kLevels = 3;
constexpr int kRange = 32;

static_assert(ops::kMotionBlock == kBlock && ops::kMotionLevels == kLevels && ops::kMotionRange == kRange);

// One level of the naive pyramid, tightly packed.
struct Level {
  int w = 0;
  int h = 0;
  std::vector<int> px;
  int operator()(int x, int y) const { return px[static_cast<std::size_t>(y) * w + x]; }
};

Level level_of(const HostImageU8& image) {
  Level level{image.width(), image.height(), {}};
  for (int y = 0; y < level.h; ++y)
    for (int x = 0; x < level.w; ++x) level.px.push_back(image(x, y));
  return level;
}

// Each level: sizes halved rounding up, each pixel the rounded mean of its 2x2 square with the
// last row and column repeated where the square runs off.
std::vector<Level> naive_pyramid(const HostImageU8& image) {
  std::vector<Level> levels{level_of(image)};
  for (int l = 1; l < kLevels; ++l) {
    const Level& f = levels.back();
    Level c{(f.w + 1) / 2, (f.h + 1) / 2, {}};
    for (int y = 0; y < c.h; ++y)
      for (int x = 0; x < c.w; ++x) {
        int sum = 0;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx) sum += f(std::min(2 * x + dx, f.w - 1), std::min(2 * y + dy, f.h - 1));
        c.px.push_back((sum + 2) / 4);
      }
    levels.push_back(c);
  }
  return levels;
}

// The block's pixels inside the level, the previous level read at pixel + v, clamped.
long naive_sad(const Level& cur, const Level& prev, int level, int bx, int by, int vx, int vy) {
  const int side = kBlock >> level;
  long sad = 0;
  for (int y = by * side; y < (by + 1) * side; ++y)
    for (int x = bx * side; x < (bx + 1) * side; ++x) {
      if (x >= cur.w || y >= cur.h) continue;
      const int px = std::clamp(x + vx, 0, prev.w - 1);
      const int py = std::clamp(y + vy, 0, prev.h - 1);
      sad += std::abs(cur(x, y) - prev(px, py));
    }
  return sad;
}

struct Candidate {
  long sad;
  int x;
  int y;
};

// Least SAD, then shortest |x| + |y|, then smaller y, then smaller x.
Candidate pick(const std::vector<Candidate>& candidates) {
  auto key = [](const Candidate& c) { return std::tuple(c.sad, std::abs(c.x) + std::abs(c.y), c.y, c.x); };
  return *std::min_element(candidates.begin(), candidates.end(),
                           [&](const Candidate& a, const Candidate& b) { return key(a) < key(b); });
}

struct NaiveField {
  int bx = 0;
  int by = 0;
  std::vector<Candidate> best;  // row by row
};

NaiveField naive_search(const HostImageU8& current, const HostImageU8& previous, bool motion) {
  const std::vector<Level> cur = naive_pyramid(current);
  const std::vector<Level> prev = naive_pyramid(previous);
  NaiveField field{(current.width() + kBlock - 1) / kBlock, (current.height() + kBlock - 1) / kBlock, {}};
  for (int by = 0; by < field.by; ++by)
    for (int bx = 0; bx < field.bx; ++bx) {
      if (!motion) {
        field.best.push_back({naive_sad(cur[0], prev[0], 0, bx, by, 0, 0), 0, 0});
        continue;
      }
      const int top = kLevels - 1;
      std::vector<Candidate> candidates;
      for (int vy = -(kRange >> top); vy <= kRange >> top; ++vy)
        for (int vx = -(kRange >> top); vx <= kRange >> top; ++vx)
          candidates.push_back({naive_sad(cur[top], prev[top], top, bx, by, vx, vy), vx, vy});
      Candidate best = pick(candidates);
      for (int l = top - 1; l >= 0; --l) {
        const int range = kRange >> l;
        candidates.clear();
        for (int vy = 2 * best.y - 1; vy <= 2 * best.y + 1; ++vy)
          for (int vx = 2 * best.x - 1; vx <= 2 * best.x + 1; ++vx)
            if (std::abs(vx) <= range && std::abs(vy) <= range)
              candidates.push_back({naive_sad(cur[l], prev[l], l, bx, by, vx, vy), vx, vy});
        if (l == 0) candidates.push_back({naive_sad(cur[0], prev[0], 0, bx, by, 0, 0), 0, 0});
        best = pick(candidates);
      }
      field.best.push_back(best);
    }
  return field;
}

MotionField run_search(const HostImageU8& current, const HostImageU8& previous, bool motion) {
  MotionPyramid cur;
  MotionPyramid prev;
  cur.build(current.view());
  prev.build(previous.view());
  MotionField field;
  // Stale contents from an earlier call must not leak into this one.
  field.vectors.assign(3, {7, 7});
  field.sads.assign(3, 99);
  field.sad = 12345;
  motion_search(current.view(), cur, previous.view(), prev, motion, field);
  return field;
}

void expect_matches_naive(const HostImageU8& current, const HostImageU8& previous, bool motion) {
  const NaiveField want = naive_search(current, previous, motion);
  const MotionField got = run_search(current, previous, motion);
  ASSERT_EQ(got.blocks_x, want.bx);
  ASSERT_EQ(got.blocks_y, want.by);
  ASSERT_EQ(got.vectors.size(), want.best.size());
  ASSERT_EQ(got.sads.size(), want.best.size());
  long total = 0;
  int wrong = 0;
  for (int by = 0; by < want.by; ++by)
    for (int bx = 0; bx < want.bx; ++bx) {
      const std::size_t i = static_cast<std::size_t>(by) * want.bx + bx;
      const Candidate& w = want.best[i];
      total += w.sad;
      const ops::MotionVector v = got.at(bx, by);
      if (v.x != w.x || v.y != w.y || got.sads[i] != w.sad) {
        if (wrong++ < 5)
          ADD_FAILURE() << "block (" << bx << "," << by << "): got (" << v.x << "," << v.y << ") sad " << got.sads[i]
                        << ", want (" << w.x << "," << w.y << ") sad " << w.sad;
      }
    }
  EXPECT_EQ(wrong, 0) << "blocks differing from the definition";
  EXPECT_EQ(got.sad, total) << "the field's SAD is the sum of its blocks'";
}

// A textured scene: many small random blobs (features a few pixels across, so that a shift
// shows on every level) plus mild noise. `extra`: pitch - width.
HostImageU8 texture(int w, int h, std::uint32_t seed, int extra = 0) {
  HostImageU8 image = test::pitched_image(w, h, extra);
  std::mt19937 rng(seed);
  auto uniform = [&rng](double lo, double hi) { return lo + (hi - lo) * (rng() / 4294967296.0); };
  struct Blob {
    double x, y, r, a;
  };
  std::vector<Blob> blobs;
  const int count = std::max(4, w * h / 60);
  for (int i = 0; i < count; ++i) blobs.push_back({uniform(0, w), uniform(0, h), uniform(2.0, 6.0), uniform(-90, 90)});
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double v = 128;
      for (const Blob& b : blobs) {
        const double d2 = ((x - b.x) * (x - b.x) + (y - b.y) * (y - b.y)) / (b.r * b.r);
        if (d2 < 25) v += b.a * std::exp(-d2);
      }
      v += uniform(-6, 6);
      image(x, y) = static_cast<std::uint8_t>(std::clamp(std::lround(v), 0L, 255L));
    }
  return image;
}

// The w x h window of `scene` at (x0, y0), copied into an image with pitch w + extra.
HostImageU8 crop(const HostImageU8& scene, int x0, int y0, int w, int h, int extra = 5) {
  HostImageU8 image = test::pitched_image(w, h, extra);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) image(x, y) = scene(x0 + x, y0 + y);
  return image;
}

// Adds noise in [-amount, amount] to every pixel.
HostImageU8 noisy(HostImageU8 image, int amount, std::uint32_t seed) {
  std::mt19937 rng(seed);
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      image(x, y) = static_cast<std::uint8_t>(
          std::clamp(image(x, y) + static_cast<int>(rng() % static_cast<unsigned>(2 * amount + 1)) - amount, 0, 255));
  return image;
}

// Pixels from only a few levels, in 3x3 cells: many blocks and vectors have equal SADs, so
// the tie rule decides often.
HostImageU8 few_levels(int w, int h, std::uint32_t seed) {
  HostImageU8 image = test::pitched_image(w, h, 3);
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> cells(static_cast<std::size_t>((w + 2) / 3) * ((h + 2) / 3));
  for (auto& c : cells) c = static_cast<std::uint8_t>(rng() % 2 * 8);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) image(x, y) = cells[static_cast<std::size_t>(y / 3) * ((w + 2) / 3) + x / 3];
  return image;
}

const std::vector<test::Size> kMotionSizes = {{1, 1}, {2, 3}, {17, 13}, {33, 47}, {5, 70}, {160, 96}};

TEST(MotionSearch, PyramidIsTheNaiveHalving) {
  std::uint32_t seed = 300;
  for (const auto size : kMotionSizes) {
    SCOPED_TRACE(test::describe(size));
    const HostImageU8 image = test::random_image(size.w, size.h, seed++);
    const std::vector<Level> want = naive_pyramid(image);
    MotionPyramid pyramid;
    // Built first for another size: a rebuild must resize.
    pyramid.build(test::random_image(size.w + 9, size.h + 4, seed++).view());
    pyramid.build(image.view());
    for (int l = 0; l < kLevels; ++l) {
      SCOPED_TRACE("level " + std::to_string(l));
      const ConstImageU8 got = pyramid.level(image.view(), l);
      ASSERT_EQ(got.width, want[static_cast<std::size_t>(l)].w);
      ASSERT_EQ(got.height, want[static_cast<std::size_t>(l)].h);
      EXPECT_EQ(ops::motion_level_size(size.w, l), got.width);
      EXPECT_EQ(ops::motion_level_size(size.h, l), got.height);
      for (int y = 0; y < got.height; ++y)
        for (int x = 0; x < got.width; ++x) ASSERT_EQ(got(x, y), want[static_cast<std::size_t>(l)](x, y)) << x << "," << y;
    }
  }
}

TEST(MotionSearch, MatchesNaiveDefinition) {
  std::uint32_t seed = 400;
  for (const auto size : kMotionSizes) {
    SCOPED_TRACE(test::describe(size));
    const int w = size.w;
    const int h = size.h;
    const HostImageU8 scene = texture(w + 20, h + 20, seed++);
    struct Pair {
      std::string name;
      HostImageU8 current;
      HostImageU8 previous;
    };
    const std::vector<Pair> pairs = {
        {"shifted texture", noisy(crop(scene, 10, 10, w, h), 4, seed), noisy(crop(scene, 7, 13, w, h, 2), 4, seed + 1)},
        {"unrelated noise", test::random_image(w, h, seed + 2), test::random_image(w, h, seed + 3, 1)},
        {"few levels", few_levels(w, h, seed + 4), few_levels(w, h, seed + 5)},
        {"constant", HostImageU8(w, h, w + 3, 77), HostImageU8(w, h, w + 1, 90)},
    };
    seed += 6;
    for (const Pair& pair : pairs) {
      SCOPED_TRACE(pair.name);
      expect_matches_naive(pair.current, pair.previous, true);
      expect_matches_naive(pair.current, pair.previous, false);
    }
  }
}

// Interior blocks (whole ones, whose pixels moved by v stay inside the frame) have a vector of
// SAD 0; the search finds it for at least `required` of them (all of them for moderate
// shifts: a shift near the range's end or a coarse block of plain texture may lead the coarse
// levels astray, as coarse to fine may). Blocks cut by the frame's edge are left out: on the
// coarser levels their last column or row is the frame's edge repeated, which a shift does
// not carry along, so their search may go wrong there (the naive comparison covers them).
void expect_finds_shift(int w, int h, int vx, int vy, int min_interior, std::uint32_t seed, double required = 1.0) {
  SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " shifted by (" + std::to_string(vx) + "," +
               std::to_string(vy) + ")");
  const HostImageU8 scene = texture(w + 80, h + 80, seed);
  const HostImageU8 previous = crop(scene, 40, 40, w, h, 3);
  // current(p) = previous(p + v)
  const HostImageU8 current = crop(scene, 40 + vx, 40 + vy, w, h, 6);
  const MotionField field = run_search(current, previous, true);
  int interior = 0;
  int found = 0;
  for (int by = 0; by < field.blocks_y; ++by)
    for (int bx = 0; bx < field.blocks_x; ++bx) {
      const int x_last = (bx + 1) * kBlock - 1;
      const int y_last = (by + 1) * kBlock - 1;
      if (x_last >= w || y_last >= h) continue;
      if (bx * kBlock + vx < 0 || x_last + vx >= w || by * kBlock + vy < 0 || y_last + vy >= h) continue;
      ++interior;
      const ops::MotionVector v = field.at(bx, by);
      const std::int32_t sad = field.sads[static_cast<std::size_t>(by) * field.blocks_x + bx];
      if (v.x == vx && v.y == vy) {
        ++found;
        EXPECT_EQ(sad, 0);
      } else {
        // The true vector has SAD 0, and the texture's noise makes it the only such one.
        EXPECT_GT(sad, 0);
        if (required == 1.0) ADD_FAILURE() << "block (" << bx << "," << by << "): (" << v.x << "," << v.y << ")";
      }
    }
  EXPECT_GE(interior, min_interior);
  EXPECT_GE(found, required * interior) << "of " << interior << " interior blocks";
  expect_matches_naive(current, previous, true);
}

TEST(MotionSearch, FindsAGlobalShift) {
  expect_finds_shift(160, 96, 5, -3, 9 * 5, 500);
  expect_finds_shift(160, 96, 20, 12, 8 * 5, 501);
  expect_finds_shift(33, 47, -2, 1, 2, 504);
  // Near the range's end (31 = 7.75 on the coarsest level, whose range is 8).
  expect_finds_shift(160, 96, -31, 2, 8 * 5, 502, 0.9);
  expect_finds_shift(95, 81, -7, 30, 4 * 3, 503, 0.9);
}

// Vertical stripes one pixel wide, and the same stripes inverted: every vector with odd x
// matches exactly, and the coarser levels are flat (all ties, so (0, 0) there). On the frame
// the tie between (-1, 0) and (1, 0) goes to the smaller x. A checkerboard against its
// inverse: every vector of odd length matches; (0, -1) wins among the four of length 1 (the
// smaller y). Where the frame's edge is clamped, the partner across it no longer matches.
TEST(MotionSearch, TiesGoToTheShorterThenSmallerYThenSmallerX) {
  const int n = 64;
  HostImageU8 stripes(n, n, n + 5);
  HostImageU8 stripes_inverted(n, n, n + 2);
  HostImageU8 checker(n, n, n + 5);
  HostImageU8 checker_inverted(n, n, n + 2);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      stripes(x, y) = x % 2 ? 255 : 0;
      stripes_inverted(x, y) = x % 2 ? 0 : 255;
      checker(x, y) = (x + y) % 2 ? 255 : 0;
      checker_inverted(x, y) = (x + y) % 2 ? 0 : 255;
    }
  const MotionField s = run_search(stripes, stripes_inverted, true);
  for (int by = 0; by < 4; ++by)
    for (int bx = 0; bx < 4; ++bx) {
      const ops::MotionVector v = s.at(bx, by);
      const int want_x = bx == 0 ? 1 : -1;  // column -1 clamps to column 0, which differs
      EXPECT_TRUE(v.x == want_x && v.y == 0) << "stripes, block (" << bx << "," << by << "): (" << v.x << "," << v.y << ")";
      EXPECT_EQ(s.sads[static_cast<std::size_t>(by) * 4 + bx], 0);
    }
  const MotionField c = run_search(checker, checker_inverted, true);
  for (int by = 0; by < 4; ++by)
    for (int bx = 0; bx < 4; ++bx) {
      const ops::MotionVector v = c.at(bx, by);
      // The top row of blocks cannot look up (row -1 clamps to row 0), nor then left on the left.
      const int want_x = by > 0 ? 0 : (bx == 0 ? 1 : -1);
      const int want_y = by > 0 ? -1 : 0;
      EXPECT_TRUE(v.x == want_x && v.y == want_y) << "checker, block (" << bx << "," << by << "): (" << v.x << "," << v.y << ")";
      EXPECT_EQ(c.sads[static_cast<std::size_t>(by) * 4 + bx], 0);
    }
  expect_matches_naive(stripes, stripes_inverted, true);
  expect_matches_naive(checker, checker_inverted, true);
  // Everything ties (a frame one pixel wide reads the same column at any x; a constant one
  // matches everywhere): (0, 0), the shortest.
  const MotionField flat = run_search(HostImageU8(40, 40, 40, 9), HostImageU8(40, 40, 41, 9), true);
  for (const ops::MotionVector v : flat.vectors) EXPECT_TRUE(v.x == 0 && v.y == 0);
  const MotionField thin = run_search(test::random_image(1, 50, 1), test::random_image(1, 50, 2), true);
  for (const ops::MotionVector v : thin.vectors) EXPECT_EQ(v.x, 0);
}

TEST(MotionSearch, WithoutMotionEveryVectorIsZeroWithItsSad) {
  const HostImageU8 scene = texture(120, 90, 600);
  const HostImageU8 previous = crop(scene, 0, 0, 97, 61);
  const HostImageU8 current = crop(scene, 6, 4, 97, 61, 1);
  const MotionField with = run_search(current, previous, true);
  const MotionField without = run_search(current, previous, false);
  const std::vector<Level> cur = naive_pyramid(current);
  const std::vector<Level> prev = naive_pyramid(previous);
  ASSERT_EQ(without.blocks_x, 7);
  ASSERT_EQ(without.blocks_y, 4);
  long total = 0;
  for (int by = 0; by < 4; ++by)
    for (int bx = 0; bx < 7; ++bx) {
      const ops::MotionVector v = without.at(bx, by);
      EXPECT_TRUE(v.x == 0 && v.y == 0);
      const long sad = naive_sad(cur[0], prev[0], 0, bx, by, 0, 0);
      EXPECT_EQ(without.sads[static_cast<std::size_t>(by) * 7 + bx], sad);
      total += sad;
    }
  EXPECT_EQ(without.sad, total);
  // The scene moved, so searching finds less SAD: the two really differ.
  EXPECT_LT(with.sad, without.sad);
}

TEST(MotionSearch, RejectsFramesOfDifferentSizes) {
  const HostImageU8 a(17, 13);
  const HostImageU8 b(17, 14);
  MotionPyramid pa;
  MotionPyramid pb;
  pa.build(a.view());
  pb.build(b.view());
  MotionField field;
  EXPECT_THROW(motion_search(a.view(), pa, b.view(), pb, true, field), std::invalid_argument);
  EXPECT_THROW(motion_search(a.view(), pa, b.view(), pb, false, field), std::invalid_argument);
}

}  // namespace
}  // namespace fp::cpu::motion_search_test
