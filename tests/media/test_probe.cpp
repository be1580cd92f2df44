// probe(): what a file holds and how framepipe would read it.
#include <gtest/gtest.h>

#include "media/probe.hpp"
#include "media_test_util.hpp"

namespace fp {
namespace {

TEST(Probe, DescribesAnMp4MadeHere) {
  test::ScratchDir dir;
  SinkOptions options;
  options.path = dir.file("probe_me.mp4");
  test::transcode("testsrc://320x240@30?frames=30", options);

  const ProbeResult result = probe(options.path);
  EXPECT_EQ(result.uri, options.path);
  EXPECT_NE(result.format.find("mp4"), std::string::npos) << result.format;
  EXPECT_NEAR(result.duration_seconds, 1.0, 0.05);
  ASSERT_EQ(result.streams.size(), 1u);
  const StreamDescription& video = result.streams[0];
  EXPECT_EQ(video.index, 0);
  EXPECT_EQ(video.type, "video");
  EXPECT_EQ(video.codec, "h264");
  EXPECT_EQ(video.details, "320x240 yuv420p 30 fps, 30 frames");
  EXPECT_EQ(video.decoder, "h264 (software)");
}

TEST(Probe, DescribesTheSyntheticSource) {
  const ProbeResult fixed = probe("testsrc://1280x720@30000/1001?noise=5&frames=60");
  EXPECT_EQ(fixed.format, "testsrc");
  EXPECT_NEAR(fixed.duration_seconds, 60 * 1001 / 30000.0, 1e-9);
  ASSERT_EQ(fixed.streams.size(), 1u);
  EXPECT_EQ(fixed.streams[0].type, "video");
  EXPECT_EQ(fixed.streams[0].details, "1280x720 yuv420p 29.97 fps, 60 frames, noise sigma 5");
  EXPECT_EQ(fixed.streams[0].decoder, "testsrc");

  const ProbeResult endless = probe("testsrc://?frames=0");
  EXPECT_LT(endless.duration_seconds, 0);
  EXPECT_EQ(endless.streams[0].details, "640x360 yuv420p 30 fps, endless");
}

}  // namespace
}  // namespace fp
