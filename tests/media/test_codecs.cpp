// The FFmpeg source reads other codecs and pixel formats than our own sink writes: files
// are made here with FFmpeg's encoders directly, then decoded and compared with the frames
// that went in (converted to I420 when the stream is not yuv420p).
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>

#include "media_test_util.hpp"
#include "test_media_files.hpp"

extern "C" {
#include <libavutil/mathematics.h>
}

namespace fp {
namespace {

struct CodecCase {
  std::string encoder;   // FFmpeg encoder name
  std::string muxer;     // FFmpeg muxer name
  std::string file;      // output file name
  AVPixelFormat pix_fmt;
  std::string options;   // encoder private options "k=v:k=v"
  std::string decoder;   // what framepipe reports
};

// Readable test names in ctest instead of a byte dump of the parameter.
void PrintTo(const CodecCase& c, std::ostream* os) { *os << c.encoder << " " << av_get_pix_fmt_name(c.pix_fmt); }

class OtherCodecs : public testing::TestWithParam<CodecCase> {};

TEST_P(OtherCodecs, DecodeToI420WithTimestamps) {
  const CodecCase& c = GetParam();
  const test::VideoWriteSpec spec{
      .encoder = c.encoder, .muxer = c.muxer, .pix_fmt = c.pix_fmt, .encoder_options = c.options};
  // The test makes its input with FFmpeg's own encoders; minimal FFmpeg builds (such as
  // the GPU machine's) lack some of them, which says nothing about framepipe.
  if (const std::string why = test::cannot_write(spec); !why.empty()) GTEST_SKIP() << why;
  test::ScratchDir dir;
  const std::vector<Frame> sent = test::read_all("testsrc://176x144@25?frames=12");
  const std::string path = dir.file(c.file);
  test::write_video(spec, path, sent);

  // Stop at the first damage: a clean file of any pixel format decodes without any.
  auto source = open_source(path, {}, OnDecodeError::Stop);
  EXPECT_EQ(source->decoder_name(), c.decoder);
  EXPECT_EQ(source->info().width, 176);
  EXPECT_EQ(source->info().height, 144);
  const std::vector<Frame> received = test::read_all(*source);
  ASSERT_EQ(received.size(), sent.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const Frame& out = received[i];
    ASSERT_NE(out.pts, kNoPts);
    EXPECT_EQ(av_rescale_q(out.pts, AVRational{out.time_base.num, out.time_base.den}, AVRational{1, 25}),
              sent[i].pts);
    EXPECT_GE(test::psnr(sent[i].planes[0], out.planes[0]), 30.0) << "frame " << i;
    EXPECT_GE(test::psnr(sent[i].planes[1], out.planes[1]), 28.0) << "frame " << i;
  }
}

std::string codec_case_name(const testing::TestParamInfo<CodecCase>& info) {
  std::string name = info.param.encoder + "_" + av_get_pix_fmt_name(info.param.pix_fmt);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    Decoders, OtherCodecs,
    testing::Values(CodecCase{"mpeg4", "avi", "clip.avi", AV_PIX_FMT_YUV420P, "", "mpeg4 (software)"},
                    // High 10 and High 4:4:4 H.264: 10 bits and full chroma come back as 8-bit I420.
                    CodecCase{"libx264", "mp4", "clip.mp4", AV_PIX_FMT_YUV420P10LE, "preset=ultrafast",
                              "h264 (software)"},
                    CodecCase{"libx264", "matroska", "clip.mkv", AV_PIX_FMT_YUV444P, "preset=ultrafast",
                              "h264 (software)"},
                    CodecCase{"libx265", "matroska", "clip.mkv", AV_PIX_FMT_YUV420P10LE,
                              "preset=ultrafast:x265-params=log-level=error", "hevc (software)"},
                    CodecCase{"libvpx-vp9", "matroska", "clip.mkv", AV_PIX_FMT_YUV444P,
                              "deadline=realtime:cpu-used=8:lossless=1", "vp9 (software)"}),
    codec_case_name);

}  // namespace
}  // namespace fp
