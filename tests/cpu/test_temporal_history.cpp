// ops::take_history, the rule that says how many previous frames temporal_nlmeans uses
// (core/ops/temporal_history.hpp): none after a reset, then one more each frame up to
// `frames`, none again on a scene cut (a SAD jump), after which the history starts anew.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/ops/temporal_history.hpp"

// A named namespace of its own: tests/cpu is compiled as a unity build, where the other
// files' anonymous namespaces would share this one.
namespace fp::ops::temporal_history_test {
namespace {

constexpr std::int64_t kPixels = 100;

// The previous frames each frame of a sequence uses, given each frame's SAD against the one
// before it (the first frame's is ignored).
std::vector<int> uses(TemporalHistory& history, const std::vector<std::int64_t>& sads, int frames) {
  std::vector<int> out;
  for (const std::int64_t sad : sads) out.push_back(take_history(history, sad, kPixels, frames));
  return out;
}

std::vector<int> uses(const std::vector<std::int64_t>& sads, int frames) {
  TemporalHistory history;
  return uses(history, sads, frames);
}

TEST(TemporalHistory, FirstFrameUsesNoneThenOneMoreEachFrameUpToFrames) {
  const std::vector<std::int64_t> steady(8, 1000);
  EXPECT_EQ(uses(steady, 0), (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(uses(steady, 1), (std::vector<int>{0, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(uses(steady, 2), (std::vector<int>{0, 1, 2, 2, 2, 2, 2, 2}));
  EXPECT_EQ(uses(steady, 3), (std::vector<int>{0, 1, 2, 3, 3, 3, 3, 3}));
  EXPECT_EQ(uses(steady, 4), (std::vector<int>{0, 1, 2, 3, 4, 4, 4, 4}));
}

TEST(TemporalHistory, KeepsNoMoreThanFrames) {
  for (int frames = 0; frames <= kMaxTemporalFrames; ++frames) {
    TemporalHistory history;
    for (int i = 0; i < 10; ++i) {
      take_history(history, 500, kPixels, frames);
      EXPECT_LE(history.kept, frames);
      EXPECT_GE(history.kept, 0);
    }
    EXPECT_EQ(history.kept, frames);
  }
}

TEST(TemporalHistory, ZeroFramesAlwaysUsesNone) {
  // SADs that would be cuts, and ones that would not.
  EXPECT_EQ(uses({0, 10, 100000, 5, 1000000, 0}, 0), (std::vector<int>{0, 0, 0, 0, 0, 0}));
}

TEST(TemporalHistory, SceneCutIsASadJumpOfHalfAgainPlusFourLevelsAPixel) {
  // 2 sad > 3 last + 8 pixels: with last 1000 and 100 pixels, sad > 1900.
  EXPECT_FALSE(is_scene_cut(1900, 1000, kPixels));
  EXPECT_TRUE(is_scene_cut(1901, 1000, kPixels));
  EXPECT_FALSE(is_scene_cut(400, 0, kPixels));
  EXPECT_TRUE(is_scene_cut(401, 0, kPixels));
  // No previous SAD: never a cut.
  EXPECT_FALSE(is_scene_cut(1000000000, -1, kPixels));
  // Large frames and SADs do not overflow: 3840x2160 at 255 a pixel.
  const std::int64_t pixels = 3840LL * 2160;
  EXPECT_FALSE(is_scene_cut(255 * pixels, 255 * pixels, pixels));
  EXPECT_TRUE(is_scene_cut(255 * pixels, 167 * pixels, pixels));   // 510 > 501 + 8
  EXPECT_FALSE(is_scene_cut(255 * pixels, 168 * pixels, pixels));  // 510 > 504 + 8 is not
}

TEST(TemporalHistory, ACutUsesNoneAndTheHistoryRestarts) {
  // frames 3: a cut on the fifth frame; the frame after it uses one (the cut frame), and so on.
  EXPECT_EQ(uses({0, 1000, 1000, 1000, 1901, 1901, 1000, 1000, 1000}, 3),
            (std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3, 3}));
  // Just below the threshold: no cut.
  EXPECT_EQ(uses({0, 1000, 1000, 1000, 1900, 1000}, 3), (std::vector<int>{0, 1, 2, 3, 3, 3}));
  // frames 1 and a cut right after the first frame that has history.
  EXPECT_EQ(uses({0, 1000, 5000, 5000, 5000}, 1), (std::vector<int>{0, 1, 0, 1, 1}));
  // Two cuts in a row: the SAD jumps twice. The second compares with the first cut's SAD.
  EXPECT_EQ(uses({0, 100, 100, 1000, 3000, 3000, 100}, 2), (std::vector<int>{0, 1, 2, 0, 0, 1, 2}));
}

TEST(TemporalHistory, TheCutFramesSadIsWhatTheNextComparesWith) {
  TemporalHistory history;
  EXPECT_EQ(uses(history, {0, 1000, 1000, 5000}, 2), (std::vector<int>{0, 1, 2, 0}));
  EXPECT_EQ(history.kept, 1);
  EXPECT_EQ(history.last_sad, 5000);
  // 2 * 7900 = 15800 > 15000 + 800 is false; 7901 would be one.
  EXPECT_EQ(uses(history, {7900}, 2), std::vector<int>{1});
  // Then 2 sad > 3 * 7900 + 800: sad > 12250; and then against 12250: sad > 18775.
  EXPECT_EQ(uses(history, {12250, 18776}, 2), (std::vector<int>{2, 0}));
}

TEST(TemporalHistory, NoCutOnTheFirstFrameAfterAReset) {
  // The first frame's SAD (against nothing) is never a reference, however large it is.
  EXPECT_EQ(uses({1000000, 1000000, 1000000}, 2), (std::vector<int>{0, 1, 2}));
  // The first frame with history has no earlier SAD to jump from.
  EXPECT_EQ(uses({0, 1000000, 1000, 1000}, 2), (std::vector<int>{0, 1, 2, 2}));
  // A reset (what the op does on a gap) forgets the SAD before it: the jump after it is no cut.
  TemporalHistory history;
  EXPECT_EQ(uses(history, {0, 100, 100}, 2), (std::vector<int>{0, 1, 2}));
  TemporalHistory kept_going = history;
  EXPECT_EQ(uses(kept_going, {1000000}, 2), std::vector<int>{0}) << "without the reset it is a cut";
  history = {};
  EXPECT_EQ(uses(history, {1000000, 1000000, 100}, 2), (std::vector<int>{0, 1, 2}));
}

}  // namespace
}  // namespace fp::ops::temporal_history_test
