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
  EXPECT_FALSE(costs.cores_per_mpps("cam"));
  costs.learn("cam", 2.0, 62.2);  // 1080p30 at 2 cores
  ASSERT_TRUE(costs.cores_per_mpps("cam"));
  EXPECT_NEAR(*costs.cores_per_mpps("cam"), 2.0 / 62.2, 1e-12);
  for (int i = 0; i < 30; ++i) costs.learn("cam", 1.0, 62.2);
  EXPECT_NEAR(*costs.cores_per_mpps("cam"), 1.0 / 62.2, 1e-6);  // the average follows
  EXPECT_FALSE(costs.cores_per_mpps("other"));
  EXPECT_EQ(costs.all().size(), 1u);
}

TEST(LearnedCosts, AStreamTooSmallOrNotMeasuredTeachesNothing) {
  LearnedCosts costs;
  costs.learn("cam", 0.01, 0.0);        // no frames yet
  costs.learn("cam", 0.01, 0.01);       // 0.01 Mpx/s: its threads waking, not its pixels
  costs.learn("cam", -1.0, 10.0);       // no measure
  costs.learn("cam", std::nan(""), 10.0);
  EXPECT_FALSE(costs.cores_per_mpps("cam"));
}

}  // namespace
}  // namespace fp
