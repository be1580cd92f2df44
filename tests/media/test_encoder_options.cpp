// Encoder and muxer options: FFmpeg's open calls leave the options they do not know in the
// dictionary and go on without them. framepipe sets every option itself (users choose
// typed parameters: crf, preset, latency, hls.*), so a leftover is a setting that silently
// does nothing: it is an error naming the output, the encoder or muxer and the option, and
// every option framepipe sets must be taken by every encoder and muxer it sets it for.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "media/ffmpeg_common.hpp"
#include "media/media_error.hpp"
#include "media_test_util.hpp"
#include "tests/ffmpeg_muxers.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

namespace fp {
namespace {

std::string leftover_error(const std::string& what, const ff::DictionaryPtr& options) {
  try {
    ff::require_all_taken("OUTPUT", what, options);
  } catch (const MediaError& e) {
    return e.what();
  }
  return "";
}

TEST(EncoderOptions, AnOptionTheEncoderDidNotTakeIsAnErrorNamingIt) {
  const AVCodec* codec = avcodec_find_encoder_by_name("libx264");
  if (codec == nullptr) GTEST_SKIP() << "this FFmpeg has no libx264";
  ff::CodecContextPtr encoder(avcodec_alloc_context3(codec));
  encoder->width = 64;
  encoder->height = 48;
  encoder->pix_fmt = AV_PIX_FMT_YUV420P;
  encoder->time_base = AVRational{1, 25};
  ff::DictionaryPtr options;
  ASSERT_GE(ff::dict_set(options, "crf", "18"), 0);
  ASSERT_GE(ff::dict_set(options, "no-such-option", "1"), 0);
  // FFmpeg opens the encoder all the same: only the dictionary tells.
  ASSERT_EQ(ff::with_dictionary(options, [&](AVDictionary** d) { return avcodec_open2(encoder.get(), codec, d); }), 0);
  EXPECT_EQ(leftover_error("libx264", options), "OUTPUT: libx264 did not take the option no-such-option=1");
}

TEST(EncoderOptions, AnOptionTheMuxerDidNotTakeIsAnErrorNamingIt) {
  test::ScratchDir dir;
  const std::string path = dir.file("out.ts");
  AVFormatContext* raw = nullptr;
  ASSERT_GE(avformat_alloc_output_context2(&raw, nullptr, "mpegts", path.c_str()), 0);
  ff::OutputFormatPtr format(raw);
  AVStream* stream = avformat_new_stream(format.get(), nullptr);
  stream->codecpar->codec_type = AVMEDIA_TYPE_VIDEO;
  stream->codecpar->codec_id = AV_CODEC_ID_H264;
  stream->codecpar->width = 64;
  stream->codecpar->height = 48;
  stream->time_base = AVRational{1, 25};
  ASSERT_GE(avio_open(&format->pb, path.c_str(), AVIO_FLAG_WRITE), 0);
  ff::DictionaryPtr options;
  ASSERT_GE(ff::dict_set(options, "hls_time", "2"), 0);  // an HLS option, given to MPEG-TS
  ASSERT_GE(ff::with_dictionary(options, [&](AVDictionary** d) { return avformat_write_header(format.get(), d); }), 0);
  EXPECT_EQ(leftover_error("the mpegts muxer", options), "OUTPUT: the mpegts muxer did not take the option hls_time=2");
  av_write_trailer(format.get());
  avio_closep(&format->pb);
}

TEST(EncoderOptions, NoLeftoverIsNoError) {
  ff::DictionaryPtr empty;
  EXPECT_EQ(leftover_error("libx264", empty), "");
}

// Every output a CPU build writes, in both latency settings and at an odd size (4:4:4):
// each option framepipe sets for it is taken (the sink fails otherwise).
struct OutputCase {
  std::string name;
  bool low_latency;
  const char* size;
};

class EveryOutputTakesItsOptions : public ::testing::TestWithParam<OutputCase> {};

TEST_P(EveryOutputTakesItsOptions, OpensWritesAndCloses) {
  if (GetParam().name.ends_with(".m3u8"))
    if (const auto why = test::missing_muxer("hls"); !why.empty()) GTEST_SKIP() << why;
  test::ScratchDir dir;
  SinkOptions options;
  options.path = dir.file(GetParam().name);
  options.low_latency = GetParam().low_latency;
  const auto frames = test::transcode(std::string("testsrc://") + GetParam().size + "@25?frames=30", options);
  EXPECT_EQ(frames.size(), 30u);
}

INSTANTIATE_TEST_SUITE_P(
    Outputs, EveryOutputTakesItsOptions,
    ::testing::Values(OutputCase{"out.mp4", false, "64x48"}, OutputCase{"out.mp4", true, "64x48"},
                      OutputCase{"out.mkv", false, "65x49"}, OutputCase{"out.mkv", true, "65x49"},
                      OutputCase{"out.ts", false, "64x48"}, OutputCase{"out.ts", true, "64x48"},
                      OutputCase{"out.m3u8", false, "64x48"}, OutputCase{"out.m3u8", true, "64x48"},
                      OutputCase{"out.y4m", false, "64x48"}),
    [](const ::testing::TestParamInfo<OutputCase>& param_info) {
      std::string name = param_info.param.name.substr(4) + (param_info.param.low_latency ? "_low" : "_normal");
      if (param_info.param.size[1] == '5') name += "_odd";
      return name;
    });

}  // namespace
}  // namespace fp
