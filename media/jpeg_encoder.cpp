#include "media/jpeg_encoder.hpp"

#include <fmt/format.h>

#include <vector>

#include "media/ffmpeg_common.hpp"
#include "media/media_error.hpp"

namespace fp {

namespace {

constexpr const char* kName = "jpeg";

// mjpeg's quantizer: 2 (best) to 31 (smallest), from a quality of 100 down to 1.
int qscale_for(int quality) { return 2 + (100 - quality) * 29 / 99; }

}  // namespace

std::string encode_jpeg(const Frame& host_frame, int quality) {
  if (quality < 1 || quality > 100) ff::fail(kName, fmt::format("quality {} is outside 1..100", quality));
  if (!host_frame.valid() || host_frame.width <= 0 || host_frame.height <= 0)
    ff::fail(kName, "the frame is empty");
  if (host_frame.location != MemoryLocation::Host) ff::fail(kName, "the frame is in device memory, not on the host");
  if (host_frame.layout != PlaneLayout::I420) ff::fail(kName, "the frame is NV12; only I420 frames can be encoded");
  ff::global_init();

  const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG);
  if (codec == nullptr) ff::fail(kName, "this FFmpeg has no mjpeg encoder");
  ff::CodecContextPtr encoder(avcodec_alloc_context3(codec));
  if (!encoder) ff::fail(kName, "out of memory for the encoder");
  encoder->width = host_frame.width;
  encoder->height = host_frame.height;
  // YUVJ420P: JPEG's own (full-range) 4:2:0; the planes are handed over unchanged.
  encoder->pix_fmt = AV_PIX_FMT_YUVJ420P;
  encoder->time_base = {1, 25};
  encoder->flags |= AV_CODEC_FLAG_QSCALE;
  const int qscale = qscale_for(quality);
  encoder->global_quality = FF_QP2LAMBDA * qscale;
  encoder->qmin = encoder->qmax = qscale;
  if (const int ret = avcodec_open2(encoder.get(), codec, nullptr); ret < 0)
    ff::fail(kName, fmt::format("cannot open the mjpeg encoder for {}x{}", host_frame.width, host_frame.height), ret);

  ff::FramePtr picture(av_frame_alloc());
  if (!picture) ff::fail(kName, "out of memory for a frame");
  picture->format = AV_PIX_FMT_YUVJ420P;
  picture->width = host_frame.width;
  picture->height = host_frame.height;
  picture->quality = encoder->global_quality;
  picture->pts = 0;
  // Not reference-counted: the encoder reads the frame's planes in place (or copies them).
  const int cw = chroma_width(host_frame.width);
  const int ch = chroma_height(host_frame.height);
  std::vector<std::uint8_t> neutral;  // a grey frame's chroma, when it has none
  for (int p = 0; p < 3; ++p) {
    const Plane& plane = host_frame.planes[p];
    if (plane.data != nullptr) {
      picture->data[p] = plane.data;
      picture->linesize[p] = static_cast<int>(plane.pitch);
      continue;
    }
    if (neutral.empty()) neutral.assign(static_cast<std::size_t>(cw) * static_cast<std::size_t>(ch), 128);
    picture->data[p] = neutral.data();
    picture->linesize[p] = cw;
  }

  if (const int ret = avcodec_send_frame(encoder.get(), picture.get()); ret < 0)
    ff::fail(kName, "encoding the frame failed", ret);
  if (const int ret = avcodec_send_frame(encoder.get(), nullptr); ret < 0)
    ff::fail(kName, "flushing the encoder failed", ret);
  ff::PacketPtr packet(av_packet_alloc());
  if (!packet) ff::fail(kName, "out of memory for a packet");
  std::string jpeg;
  for (;;) {
    const int ret = avcodec_receive_packet(encoder.get(), packet.get());
    if (ret == AVERROR_EOF) break;
    if (ret < 0) ff::fail(kName, "encoding the frame failed", ret);
    jpeg.append(reinterpret_cast<const char*>(packet->data), static_cast<std::size_t>(packet->size));
    av_packet_unref(packet.get());
  }
  if (jpeg.empty()) ff::fail(kName, "the encoder gave no picture");
  return jpeg;
}

}  // namespace fp
