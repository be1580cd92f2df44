// encode_jpeg: a frame from the synthetic source to JPEG, decoded back with FFmpeg's own
// decoder: its size, its luma against the frame's, a grey frame's neutral chroma, and the
// errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "media/frame_source.hpp"
#include "media/jpeg_encoder.hpp"
#include "media/media_error.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
}

namespace fp::test {
namespace {

struct Decoded {
  int width = 0;
  int height = 0;
  double mean_y = 0;
  double mean_u = 0;
  double mean_v = 0;
};

double plane_mean(const std::uint8_t* data, int pitch, int width, int height) {
  double sum = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) sum += data[y * pitch + x];
  return sum / (static_cast<double>(width) * height);
}

// The JPEG decoded by FFmpeg's mjpeg decoder, independent of the encoder's code.
Decoded decode_jpeg(const std::string& jpeg) {
  const AVCodec* codec = avcodec_find_decoder(AV_CODEC_ID_MJPEG);
  AVCodecContext* ctx = avcodec_alloc_context3(codec);
  EXPECT_EQ(avcodec_open2(ctx, codec, nullptr), 0);
  AVPacket* packet = av_packet_alloc();
  av_new_packet(packet, static_cast<int>(jpeg.size()));
  std::copy(jpeg.begin(), jpeg.end(), packet->data);
  AVFrame* picture = av_frame_alloc();
  Decoded out;
  EXPECT_EQ(avcodec_send_packet(ctx, packet), 0);
  if (avcodec_receive_frame(ctx, picture) == 0) {
    out.width = picture->width;
    out.height = picture->height;
    EXPECT_EQ(picture->format, AV_PIX_FMT_YUVJ420P);
    const int cw = (picture->width + 1) / 2;
    const int ch = (picture->height + 1) / 2;
    out.mean_y = plane_mean(picture->data[0], picture->linesize[0], picture->width, picture->height);
    out.mean_u = plane_mean(picture->data[1], picture->linesize[1], cw, ch);
    out.mean_v = plane_mean(picture->data[2], picture->linesize[2], cw, ch);
  } else {
    ADD_FAILURE() << "FFmpeg's mjpeg decoder gave no picture";
  }
  av_frame_free(&picture);
  av_packet_free(&packet);
  avcodec_free_context(&ctx);
  return out;
}

Frame test_frame(const std::string& size) {
  auto source = open_source("testsrc://" + size + "@10?frames=1&noise=10");
  auto frame = source->read();
  if (!frame) throw std::runtime_error("testsrc gave no frame");
  return *frame;
}

TEST(JpegEncoder, DecodesBackToTheFramesSizeAndLuma) {
  const Frame frame = test_frame("160x120");
  const std::string jpeg = encode_jpeg(frame);
  ASSERT_GT(jpeg.size(), 4u);
  EXPECT_EQ(static_cast<unsigned char>(jpeg[0]), 0xFF);  // SOI
  EXPECT_EQ(static_cast<unsigned char>(jpeg[1]), 0xD8);
  const Decoded decoded = decode_jpeg(jpeg);
  EXPECT_EQ(decoded.width, 160);
  EXPECT_EQ(decoded.height, 120);
  const auto& y = frame.planes[0];
  EXPECT_NEAR(decoded.mean_y, plane_mean(y.data, static_cast<int>(y.pitch), y.width, y.height), 2.0);
  const auto& u = frame.planes[1];
  EXPECT_NEAR(decoded.mean_u, plane_mean(u.data, static_cast<int>(u.pitch), u.width, u.height), 2.0);
}

TEST(JpegEncoder, OddSizesKeepTheirSize) {
  const Decoded decoded = decode_jpeg(encode_jpeg(test_frame("33x17")));
  EXPECT_EQ(decoded.width, 33);
  EXPECT_EQ(decoded.height, 17);
}

TEST(JpegEncoder, AFrameWithoutChromaIsGrey) {
  Frame frame = test_frame("64x48");
  frame.planes[1] = Plane{};
  frame.planes[2] = Plane{};
  const Decoded decoded = decode_jpeg(encode_jpeg(frame));
  EXPECT_EQ(decoded.width, 64);
  EXPECT_NEAR(decoded.mean_u, 128.0, 1.0);
  EXPECT_NEAR(decoded.mean_v, 128.0, 1.0);
}

TEST(JpegEncoder, LowerQualityIsSmaller) {
  const Frame frame = test_frame("160x120");
  EXPECT_LT(encode_jpeg(frame, 10).size(), encode_jpeg(frame, 95).size());
}

void expect_error(const Frame& frame, int quality, const std::string& text) {
  try {
    encode_jpeg(frame, quality);
    ADD_FAILURE() << "no error for: " << text;
  } catch (const MediaError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("jpeg: ", 0), 0u) << message;
    EXPECT_NE(message.find(text), std::string::npos) << message;
  }
}

TEST(JpegEncoder, ClearErrors) {
  const Frame frame = test_frame("32x32");
  expect_error(frame, 0, "quality 0 is outside 1..100");
  expect_error(frame, 101, "quality 101");
  expect_error(Frame{}, 80, "the frame is empty");
  Frame on_device = frame;
  on_device.location = MemoryLocation::Device;
  expect_error(on_device, 80, "device memory");
}

}  // namespace
}  // namespace fp::test
