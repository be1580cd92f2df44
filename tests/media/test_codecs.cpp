// The FFmpeg source reads other codecs and pixel formats than our own sink writes: files
// are made here with FFmpeg's encoders directly, then decoded and compared with the frames
// that went in (converted to I420 when the stream is not yuv420p).
#include <gtest/gtest.h>

#include <cctype>
#include <ostream>
#include <stdexcept>

#include "media/ffmpeg_raii.hpp"
#include "media/media_error.hpp"
#include "media_test_util.hpp"

extern "C" {
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
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

void check(int ret, const char* what) {
  if (ret < 0) throw std::runtime_error(std::string(what) + " failed: " + av_error_text(ret));
}

// Encodes I420 frames with any FFmpeg encoder: the frames are converted to the encoder's
// pixel format with swscale, pts are the frame indices in a 1/fps time base.
void encode_with_ffmpeg(const CodecCase& c, const std::string& path, const std::vector<Frame>& frames, int fps) {
  const int w = frames[0].width;
  const int h = frames[0].height;
  AVFormatContext* raw = nullptr;
  check(avformat_alloc_output_context2(&raw, nullptr, c.muxer.c_str(), path.c_str()), "alloc muxer");
  ff::OutputFormatPtr format(raw);
  const AVCodec* codec = avcodec_find_encoder_by_name(c.encoder.c_str());
  if (codec == nullptr) throw std::runtime_error("no encoder " + c.encoder);
  ff::CodecContextPtr enc(avcodec_alloc_context3(codec));
  if (!enc) throw std::runtime_error("cannot allocate " + c.encoder);
  enc->width = w;
  enc->height = h;
  enc->pix_fmt = c.pix_fmt;
  enc->time_base = AVRational{1, fps};
  enc->framerate = AVRational{fps, 1};
  enc->bit_rate = 4000000;
  if ((format->oformat->flags & AVFMT_GLOBALHEADER) != 0) enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if (!c.options.empty()) check(av_opt_set_from_string(enc->priv_data, c.options.c_str(), nullptr, "=", ":"), "options");
  check(avcodec_open2(enc.get(), codec, nullptr), "open encoder");
  AVStream* stream = avformat_new_stream(format.get(), nullptr);
  if (stream == nullptr) throw std::runtime_error("cannot add a stream");
  check(avcodec_parameters_from_context(stream->codecpar, enc.get()), "parameters");
  stream->time_base = enc->time_base;
  check(avio_open(&format->pb, path.c_str(), AVIO_FLAG_WRITE), "create file");
  check(avformat_write_header(format.get(), nullptr), "header");

  ff::SwsPtr sws(sws_getContext(w, h, AV_PIX_FMT_YUV420P, w, h, c.pix_fmt, SWS_BICUBIC, nullptr, nullptr, nullptr));
  ff::FramePtr picture;
  ff::PacketPtr packet(av_packet_alloc());
  if (!sws || !packet) throw std::runtime_error("cannot set up the conversion");
  auto drain = [&] {
    for (;;) {
      const int ret = avcodec_receive_packet(enc.get(), packet.get());
      if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return;
      check(ret, "encode");
      av_packet_rescale_ts(packet.get(), enc->time_base, stream->time_base);
      packet->stream_index = stream->index;
      check(av_interleaved_write_frame(format.get(), packet.get()), "write");
    }
  };
  for (const Frame& frame : frames) {
    picture.reset(av_frame_alloc());
    if (!picture) throw std::runtime_error("cannot allocate a frame");
    picture->format = c.pix_fmt;
    picture->width = w;
    picture->height = h;
    check(av_frame_get_buffer(picture.get(), 0), "frame buffer");
    const std::uint8_t* src[3] = {frame.planes[0].data, frame.planes[1].data, frame.planes[2].data};
    const int stride[3] = {static_cast<int>(frame.planes[0].pitch), static_cast<int>(frame.planes[1].pitch),
                           static_cast<int>(frame.planes[2].pitch)};
    check(sws_scale(sws.get(), src, stride, 0, h, picture->data, picture->linesize), "convert");
    picture->pts = frame.pts;
    check(avcodec_send_frame(enc.get(), picture.get()), "send frame");
    drain();
  }
  check(avcodec_send_frame(enc.get(), nullptr), "flush");
  drain();
  check(av_write_trailer(format.get()), "trailer");
}

class OtherCodecs : public testing::TestWithParam<CodecCase> {};

TEST_P(OtherCodecs, DecodeToI420WithTimestamps) {
  const CodecCase& c = GetParam();
  // The test makes its input with FFmpeg's own encoders; minimal FFmpeg builds (such as
  // the GPU machine's) lack some of them, which says nothing about framepipe.
  if (av_guess_format(c.muxer.c_str(), nullptr, nullptr) == nullptr)
    GTEST_SKIP() << "this FFmpeg has no " << c.muxer << " muxer to make the test file";
  if (avcodec_find_encoder_by_name(c.encoder.c_str()) == nullptr)
    GTEST_SKIP() << "this FFmpeg has no " << c.encoder << " encoder to make the test file";
  test::ScratchDir dir;
  const std::vector<Frame> sent = test::read_all("testsrc://176x144@25?frames=12");
  const std::string path = dir.file(c.file);
  encode_with_ffmpeg(c, path, sent, 25);

  auto source = open_source(path);
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
                    CodecCase{"libx265", "matroska", "clip.mkv", AV_PIX_FMT_YUV420P10LE,
                              "preset=ultrafast:x265-params=log-level=error", "hevc (software)"},
                    CodecCase{"libvpx-vp9", "matroska", "clip.mkv", AV_PIX_FMT_YUV444P,
                              "deadline=realtime:cpu-used=8:lossless=1", "vp9 (software)"}),
    codec_case_name);

}  // namespace
}  // namespace fp
