#include <gtest/gtest.h>

#include "media/packet_arrivals.hpp"

namespace fp {
namespace {

using Clock = PacketArrivals::Clock;
using std::chrono::milliseconds;

// A decoder that reorders (B-frames) lets frames out in another order than their packets
// came in: each frame still gets its own packet's arrival.
TEST(PacketArrivals, EachFrameGetsItsOwnPacketsArrivalInAnyOrder) {
  PacketArrivals arrivals;
  const auto t0 = Clock::now() - milliseconds(100);
  arrivals.add(0, t0);
  arrivals.add(3000, t0 + milliseconds(10));
  arrivals.add(1000, t0 + milliseconds(20));
  EXPECT_EQ(arrivals.take(0), t0);
  EXPECT_EQ(arrivals.take(1000), t0 + milliseconds(20));
  EXPECT_EQ(arrivals.take(3000), t0 + milliseconds(10));
}

TEST(PacketArrivals, AnUnknownPacketArrivesNowAndATakenOneIsForgotten) {
  PacketArrivals arrivals;
  const auto long_ago = Clock::now() - std::chrono::seconds(10);
  arrivals.add(7, long_ago);
  EXPECT_EQ(arrivals.take(7), long_ago);
  const auto before = Clock::now();
  EXPECT_GE(arrivals.take(7), before);
  EXPECT_GE(arrivals.take(8), before);
}

TEST(PacketArrivals, KeepsOnlyTheLatestPackets) {
  PacketArrivals arrivals;
  const auto long_ago = Clock::now() - std::chrono::seconds(10);
  for (int i = 0; i < 1000; ++i) arrivals.add(i, long_ago);
  const auto before = Clock::now();
  EXPECT_GE(arrivals.take(0), before) << "the first packets were forgotten";
  EXPECT_EQ(arrivals.take(999), long_ago);
}

}  // namespace
}  // namespace fp
