// A crafted frame rate in an input's header (a y4m's `F2147483647:1`, `F1:0`) reaches the
// sink, which turns seconds into frames with it (HLS segments, key frames): the count is
// defined and sensible whatever the rate. HLS cuts a segment at each key frame and asks
// one every hls.segment_seconds, so with a huge rate a short input has one key frame;
// an interval that wrapped past int's range would have made every frame one.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "media_test_util.hpp"
#include "tests/ffmpeg_muxers.hpp"

namespace fp {
namespace {

constexpr int kFrames = 12;

// A 64x48 y4m whose header declares `rate` ("NUM:DEN") with kFrames grey frames.
void write_y4m(const std::string& path, const std::string& rate) {
  std::ofstream out(path, std::ios::binary);
  out << "YUV4MPEG2 W64 H48 F" << rate << " Ip A1:1 C420jpeg\n";
  for (int i = 0; i < kFrames; ++i) out << "FRAME\n" << std::string(64 * 48 * 3 / 2, static_cast<char>(16 + 8 * i));
}

class CraftedFrameRate : public ::testing::TestWithParam<std::string> {};

TEST_P(CraftedFrameRate, HlsOutputHasOneKeyFrameAndEveryFrame) {
  if (const auto why = test::missing_muxer("hls"); !why.empty()) GTEST_SKIP() << why;
  test::ScratchDir dir;
  const std::string input = dir.file("crafted.y4m");
  write_y4m(input, GetParam());
  SinkOptions options;
  options.path = dir.file("out.m3u8");
  options.hls_segment_seconds = 60;  // the longest segment the table allows
  options.hls_playlist_size = 0;     // every segment kept, to be read back
  test::transcode(input, options);
  const auto packets = test::video_packets(options.path);
  ASSERT_EQ(packets.size(), static_cast<std::size_t>(kFrames));
  EXPECT_TRUE(packets[0].key);
  for (std::size_t i = 1; i < packets.size(); ++i) EXPECT_FALSE(packets[i].key) << "packet " << i;
}

// Past int once in frames per segment (and per second); a zero denominator, which FFmpeg's
// y4m reader replaces with 25 fps.
INSTANTIATE_TEST_SUITE_P(Rates, CraftedFrameRate, ::testing::Values("2147483647:1", "1000000000:1", "1:0"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = param_info.param;
                           for (char& c : name)
                             if (c == ':') c = '_';
                           return "F" + name;
                         });

}  // namespace
}  // namespace fp
