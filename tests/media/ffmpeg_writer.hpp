// Writes test videos with FFmpeg's own encoders and muxers (not framepipe's sink), so that
// tests can make what the sink never writes: other codecs and pixel formats, faststart
// mp4, and packets damaged on purpose. Shared by the media and end-to-end tests.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/frame.hpp"
#include "media/ffmpeg_common.hpp"
#include "media/ffmpeg_raii.hpp"
#include "media/media_error.hpp"

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

namespace fp::test {

struct VideoWriteSpec {
  std::string encoder = "libx264";
  std::string muxer = "mp4";  // FFmpeg muxer name: mp4, matroska, mpegts, avi...
  AVPixelFormat pix_fmt = AV_PIX_FMT_YUV420P;
  std::string encoder_options;  // private options "k=v:k=v"
  std::string muxer_options;    // "k=v:k=v", e.g. "movflags=+faststart"
  int fps = 25;
  int gop = 0;  // frames between keyframes; 0: the encoder's default
  // Called with each encoded packet and its index before it is written: a test may damage it.
  std::function<void(AVPacket&, std::int64_t)> on_packet;
};

// Why this FFmpeg cannot write such a file (no muxer, no encoder, or an encoder that does
// not take the pixel format, like a libx264 built for 8 bits only); "" when it can.
// Minimal FFmpeg builds (such as the GPU machine's) lack some: tests skip with the reason.
inline std::string cannot_write(const VideoWriteSpec& spec) {
  if (av_guess_format(spec.muxer.c_str(), nullptr, nullptr) == nullptr)
    return "this FFmpeg has no " + spec.muxer + " muxer to make the test file";
  const AVCodec* codec = avcodec_find_encoder_by_name(spec.encoder.c_str());
  if (codec == nullptr) return "this FFmpeg has no " + spec.encoder + " encoder to make the test file";
  if (codec->pix_fmts != nullptr) {
    for (const AVPixelFormat* f = codec->pix_fmts; *f != AV_PIX_FMT_NONE; ++f)
      if (*f == spec.pix_fmt) return "";
    return "this FFmpeg's " + spec.encoder + " cannot encode " + av_get_pix_fmt_name(spec.pix_fmt);
  }
  return "";
}

namespace detail {
inline void check(int ret, const char* what) {
  if (ret < 0) throw std::runtime_error(std::string(what) + " failed: " + av_error_text(ret));
}
}  // namespace detail

// Encodes I420 frames (all of one size): converted to the encoder's pixel format with
// swscale, pts = frame index in a 1/fps time base.
inline void write_video(const VideoWriteSpec& spec, const std::string& path, const std::vector<Frame>& frames) {
  using detail::check;
  ff::global_init();  // quiets FFmpeg's console logging, as for framepipe's own codecs
  const int w = frames.at(0).width;
  const int h = frames.at(0).height;
  AVFormatContext* raw = nullptr;
  check(avformat_alloc_output_context2(&raw, nullptr, spec.muxer.c_str(), path.c_str()), "alloc muxer");
  ff::OutputFormatPtr format(raw);
  const AVCodec* codec = avcodec_find_encoder_by_name(spec.encoder.c_str());
  if (codec == nullptr) throw std::runtime_error("no encoder " + spec.encoder);
  ff::CodecContextPtr enc(avcodec_alloc_context3(codec));
  if (!enc) throw std::runtime_error("cannot allocate " + spec.encoder);
  enc->width = w;
  enc->height = h;
  enc->pix_fmt = spec.pix_fmt;
  enc->time_base = AVRational{1, spec.fps};
  enc->framerate = AVRational{spec.fps, 1};
  enc->bit_rate = 4000000;
  if (spec.gop > 0) enc->gop_size = spec.gop;
  if ((format->oformat->flags & AVFMT_GLOBALHEADER) != 0) enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if (!spec.encoder_options.empty())
    check(av_opt_set_from_string(enc->priv_data, spec.encoder_options.c_str(), nullptr, "=", ":"), "options");
  check(avcodec_open2(enc.get(), codec, nullptr), "open encoder");
  AVStream* stream = avformat_new_stream(format.get(), nullptr);
  if (stream == nullptr) throw std::runtime_error("cannot add a stream");
  check(avcodec_parameters_from_context(stream->codecpar, enc.get()), "parameters");
  stream->time_base = enc->time_base;
  check(avio_open(&format->pb, path.c_str(), AVIO_FLAG_WRITE), "create file");
  ff::DictionaryPtr muxer_options;
  if (!spec.muxer_options.empty()) {
    AVDictionary* parsed = nullptr;
    check(av_dict_parse_string(&parsed, spec.muxer_options.c_str(), "=", ":", 0), "muxer options");
    muxer_options.reset(parsed);
  }
  check(ff::with_dictionary(muxer_options, [&](AVDictionary** d) { return avformat_write_header(format.get(), d); }),
        "header");

  ff::SwsPtr sws(sws_getContext(w, h, AV_PIX_FMT_YUV420P, w, h, spec.pix_fmt, SWS_BICUBIC, nullptr, nullptr, nullptr));
  ff::FramePtr picture;
  ff::PacketPtr packet(av_packet_alloc());
  if (!sws || !packet) throw std::runtime_error("cannot set up the conversion");
  std::int64_t packets = 0;
  auto drain = [&] {
    for (;;) {
      const int ret = avcodec_receive_packet(enc.get(), packet.get());
      if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return;
      check(ret, "encode");
      if (spec.on_packet) spec.on_packet(*packet, packets);
      ++packets;
      // One frame each (the time base is 1/fps): without it the mp4 muxer gives the last
      // frame no duration, and its edit list then hides that frame.
      if (packet->duration == 0) packet->duration = 1;
      av_packet_rescale_ts(packet.get(), enc->time_base, stream->time_base);
      packet->stream_index = stream->index;
      check(av_interleaved_write_frame(format.get(), packet.get()), "write");
    }
  };
  for (const Frame& frame : frames) {
    picture.reset(av_frame_alloc());
    if (!picture) throw std::runtime_error("cannot allocate a frame");
    picture->format = spec.pix_fmt;
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

}  // namespace fp::test
