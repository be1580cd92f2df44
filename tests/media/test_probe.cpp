// probe(): what a file holds and how framepipe would read it.
#include <gtest/gtest.h>

#include "media/probe.hpp"
#include "media_test_util.hpp"
#include "test_media_files.hpp"

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
  // On a GPU: NVDEC, where this FFmpeg has its H.264 hwaccel (Debian's and the GPU
  // machine's both have).
  EXPECT_TRUE(video.gpu_decoder == "h264 (nvdec)" ||
              video.gpu_decoder == "h264 (software; NVDEC: FFmpeg here has no NVDEC decoder for h264)")
      << video.gpu_decoder;
}

// 4:4:4 is not what framepipe reads from NVDEC: probe says a GPU would decode it in software.
TEST(Probe, SaysWhyAGpuWouldNotUseNvdec) {
  const test::VideoWriteSpec spec{.muxer = "matroska", .pix_fmt = AV_PIX_FMT_YUV444P, .encoder_options = "preset=ultrafast"};
  if (const auto reason = test::cannot_write(spec); !reason.empty()) GTEST_SKIP() << reason;
  test::ScratchDir dir;
  const std::string path = dir.file("full_chroma.mkv");
  test::write_video(spec, path, test::testsrc_frames(64, 48, 3));
  const auto video = probe(path).streams.at(0);
  EXPECT_EQ(video.decoder, "h264 (software)");
  EXPECT_EQ(video.gpu_decoder.rfind("h264 (software; NVDEC: ", 0), 0u) << video.gpu_decoder;
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
