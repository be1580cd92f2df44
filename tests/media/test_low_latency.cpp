// encode `latency: low`: no frame is held back (no B-frames: packets come out in display
// order), and after the first no frame is several times the size of the others (periodic
// intra refresh instead of key frames; x264 still flags each refresh's end as a recovery
// point). The normal setting uses B-frames, so the test can tell the two apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <vector>

#include "media_test_util.hpp"

namespace fp {
namespace {

using test::PacketInfo;
using test::video_packets;

std::vector<PacketInfo> encode(const test::ScratchDir& dir, const std::string& name, bool low_latency) {
  SinkOptions options;
  options.path = (dir.path() / name).string();
  options.low_latency = low_latency;
  test::transcode("testsrc://160x120@25?noise=10&frames=75", options);
  return video_packets(options.path);
}

bool in_display_order(const std::vector<PacketInfo>& packets) {
  for (std::size_t i = 1; i < packets.size(); ++i)
    if (packets[i].pts <= packets[i - 1].pts) return false;
  return true;
}

TEST(LowLatencyEncode, NoFrameIsHeldBackAndNoKeyFrameBurstsAfterTheFirst) {
  test::ScratchDir dir;
  const auto low = encode(dir, "low.ts", true);
  ASSERT_EQ(low.size(), 75u);
  EXPECT_TRUE(in_display_order(low)) << "no B-frames";
  EXPECT_TRUE(low[0].key);
  std::vector<int> sizes;
  for (std::size_t i = 1; i < low.size(); ++i) sizes.push_back(low[i].size);
  std::sort(sizes.begin(), sizes.end());
  const double median = sizes[sizes.size() / 2];
  std::cout << "low latency packets after the first: median " << median << " bytes, largest " << sizes.back() << "\n";
  EXPECT_LT(sizes.back(), 2.5 * median) << "no key-frame burst";
  EXPECT_GE(std::count_if(low.begin(), low.end(), [](const PacketInfo& p) { return p.key; }), 3)
      << "a recovery point every second (25 frames)";

  const auto normal = encode(dir, "normal.ts", false);
  ASSERT_EQ(normal.size(), 75u);
  EXPECT_FALSE(in_display_order(normal)) << "the normal setting reorders (B-frames)";
}

}  // namespace
}  // namespace fp
