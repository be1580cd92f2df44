// What serve learns a template costs (pipeline/streams/learned_costs.hpp): cores per
// megapixel a second, averaged over its streams' measures, nothing from a stream too small to
// say anything per pixel.
#include <gtest/gtest.h>

#include <cmath>

#include "pipeline/streams/learned_costs.hpp"

namespace fp {
namespace {

TEST(LearnedCosts, AFirstMeasureIsTakenAndLaterOnesAveraged) {
  LearnedCosts costs;
  EXPECT_FALSE(costs.cores_per_mpps("cam", "t1"));
  costs.learn("cam", "t1", 2.0, 62.2);  // 1080p30 at 2 cores
  ASSERT_TRUE(costs.cores_per_mpps("cam", "t1"));
  EXPECT_NEAR(*costs.cores_per_mpps("cam", "t1"), 2.0 / 62.2, 1e-12);
  for (int i = 0; i < 30; ++i) costs.learn("cam", "t1", 1.0, 62.2);
  EXPECT_NEAR(*costs.cores_per_mpps("cam", "t1"), 1.0 / 62.2, 1e-6);  // the average follows
  EXPECT_FALSE(costs.cores_per_mpps("other", "t1"));
  EXPECT_EQ(costs.all().size(), 1u);
}

TEST(LearnedCosts, AStreamTooSmallOrNotMeasuredTeachesNothing) {
  LearnedCosts costs;
  costs.learn("cam", "t1", 0.01, 0.0);        // no frames yet
  costs.learn("cam", "t1", 0.01, 0.01);       // 0.01 Mpx/s: its threads waking, not its pixels
  costs.learn("cam", "t1", -1.0, 10.0);       // no measure
  costs.learn("cam", "t1", std::nan(""), 10.0);
  EXPECT_FALSE(costs.cores_per_mpps("cam", "t1"));
}

// An edited template is another template: what its old text cost is not taken for it, and
// its first measure starts it afresh.
TEST(LearnedCosts, AnEditedTemplateStartsAfresh) {
  LearnedCosts costs;
  costs.learn("cam", "t1", 2.0, 62.2);
  EXPECT_FALSE(costs.cores_per_mpps("cam", "t2"));
  costs.learn("cam", "t2", 6.0, 62.2);
  EXPECT_NEAR(*costs.cores_per_mpps("cam", "t2"), 6.0 / 62.2, 1e-12);
  EXPECT_FALSE(costs.cores_per_mpps("cam", "t1"));
}

// The state file is written again for a template learned the first time or a cost that moved
// by more than a tenth, not for the average's small moves every second.
TEST(LearnedCosts, OnlyANewOrMovedCostIsWorthSaving) {
  LearnedCosts costs;
  EXPECT_FALSE(costs.worth_saving());
  costs.learn("cam", "t1", 1.0, 10.0);
  EXPECT_TRUE(costs.worth_saving());
  costs.saved(costs.all());
  EXPECT_FALSE(costs.worth_saving());
  costs.learn("cam", "t1", 1.2, 10.0);  // 0.1 -> 0.106
  EXPECT_FALSE(costs.worth_saving());
  costs.learn("cam", "t1", 2.0, 10.0);  // -> 0.134
  EXPECT_TRUE(costs.worth_saving());
  costs.restore({{"cam", {.cores_per_mpps = 0.5, .template_digest = "t1"}}});
  EXPECT_FALSE(costs.worth_saving());  // what was read is what is on disk
  EXPECT_NEAR(*costs.cores_per_mpps("cam", "t1"), 0.5, 1e-12);
}

}  // namespace
}  // namespace fp
