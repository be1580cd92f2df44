// The waits before a failed live stream is started again (RestartBackoff): plain arithmetic
// on the durations given, so no clock is involved.
#include <gtest/gtest.h>

#include <vector>

#include "pipeline/streams/restart_backoff.hpp"

namespace fp {
namespace {

using namespace std::chrono_literals;

std::vector<long long> waits(RestartBackoff& backoff, int failures, std::chrono::steady_clock::duration ran = 0s) {
  std::vector<long long> seen;
  for (int i = 0; i < failures; ++i) seen.push_back(backoff.after_failure(ran).count());
  return seen;
}

TEST(RestartBackoff, TheDefaultsWaitFiveSecondsDoublingToFiveMinutes) {
  RestartBackoff backoff;
  EXPECT_EQ(backoff.last_wait().count(), 0);
  EXPECT_EQ(waits(backoff, 9), (std::vector<long long>{5000, 10000, 20000, 40000, 80000, 160000, 300000, 300000, 300000}));
}

TEST(RestartBackoff, AMinuteOfRunningStartsTheWaitsOver) {
  RestartBackoff backoff;
  waits(backoff, 4);
  EXPECT_EQ(backoff.after_failure(59s).count(), 80000);  // not quite a minute: still growing
  EXPECT_EQ(backoff.after_failure(60s).count(), 5000);
  EXPECT_EQ(backoff.after_failure(0s).count(), 10000);
}

TEST(RestartBackoff, AFirstWaitLongerThanTheLongestIsTheLongest) {
  RestartBackoff backoff({.first = 10s, .longest = 3s});
  EXPECT_EQ(waits(backoff, 2), (std::vector<long long>{3000, 3000}));
  RestartBackoff hours({.first = 1h, .longest = 24h * 365});
  EXPECT_EQ(waits(hours, 12).back(), (1h * 2048 > 24h * 365 ? 24h * 365 : 1h * 2048) / 1ms);
}

}  // namespace
}  // namespace fp
