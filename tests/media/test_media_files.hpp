// Media files the tests make for themselves: videos written with FFmpeg's own encoders and
// muxers (not framepipe's sink), so that tests can make what the sink never writes (other
// codecs and pixel formats, faststart mp4, packets damaged on purpose), and a sound-only
// WAV file. Shared by the media and end-to-end tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/sanitizers.hpp"
#include "core/frame.hpp"
#include "media/frame_source.hpp"
#include "media/ffmpeg_common.hpp"
#include "media/ffmpeg_raii.hpp"
#include "media/media_error.hpp"

extern "C" {
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

namespace fp::test {

// Tests that starve a process of memory (RLIMIT_DATA) cannot run under AddressSanitizer or
// ThreadSanitizer: their shadow memory counts against the limit, and their allocators
// abort rather than fail an allocation. The test program is built like framepipe.
#if defined(FRAMEPIPE_ASAN) || defined(FRAMEPIPE_TSAN)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif

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

namespace detail {
inline void put_le(std::ofstream& out, std::uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.put(static_cast<char>((v >> (8 * i)) & 0xff));
}
}  // namespace detail

// A valid WAV file (a tenth of a second of silence): media, but without video.
inline void write_silent_wav(const std::string& path) {
  using detail::put_le;
  const std::uint32_t rate = 8000, samples = 800;
  std::ofstream out(path, std::ios::binary);
  out.write("RIFF", 4);
  put_le(out, 36 + samples * 2, 4);
  out.write("WAVEfmt ", 8);
  put_le(out, 16, 4);
  put_le(out, 1, 2);  // PCM
  put_le(out, 1, 2);  // mono
  put_le(out, rate, 4);
  put_le(out, rate * 2, 4);
  put_le(out, 2, 2);
  put_le(out, 16, 2);
  out.write("data", 4);
  put_le(out, samples * 2, 4);
  const std::string silence(samples * 2, '\0');
  out.write(silence.data(), static_cast<std::streamsize>(silence.size()));
}

// `count` frames of testsrc://WxH@25 with a little noise (pts = index in 1/25).
inline std::vector<Frame> testsrc_frames(int width, int height, int count) {
  auto source = open_source("testsrc://" + std::to_string(width) + "x" + std::to_string(height) +
                            "@25?noise=4&frames=" + std::to_string(count));
  std::vector<Frame> frames;
  while (auto frame = source->read()) frames.push_back(std::move(*frame));
  return frames;
}

inline std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// `first` then `second`, byte for byte (as `cat first second > joined`).
inline void concatenate_files(const std::string& first, const std::string& second, const std::string& joined) {
  std::vector<char> bytes = read_bytes(first);
  const std::vector<char> more = read_bytes(second);
  bytes.insert(bytes.end(), more.begin(), more.end());
  write_bytes(joined, bytes);
}

// Keeps the first `fraction` of a file, as a download or a recording cut short would.
inline void truncate_file(const std::string& path, double fraction) {
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, static_cast<std::uintmax_t>(static_cast<double>(size) * fraction));
}

// Bit errors in the middle third of a file: `runs` runs of `length` inverted bytes at
// positions from a fixed seed (transport headers included, as on a real noisy link).
inline void damage_middle(const std::string& path, int runs, int length, unsigned seed) {
  std::vector<char> bytes = read_bytes(path);
  std::mt19937 random(seed);
  const std::size_t third = bytes.size() / 3;
  for (int r = 0; r < runs; ++r) {
    const std::size_t at = third + random() % (third - static_cast<std::size_t>(length));
    for (int k = 0; k < length; ++k) bytes[at + static_cast<std::size_t>(k)] ^= static_cast<char>(0xff);
  }
  write_bytes(path, bytes);
}

// Single bit errors in the payload of an MPEG-TS file's middle third: `count` bits flipped
// at positions from a fixed seed, never in a transport packet's 4-byte header, so the
// demuxer loses nothing and the damage reaches the decoder as it is.
inline void flip_transport_payload_bits(const std::string& path, int count, unsigned seed) {
  constexpr std::size_t kPacket = 188, kHeader = 4;
  std::vector<char> bytes = read_bytes(path);
  std::mt19937 random(seed);
  const std::size_t third = bytes.size() / 3;
  for (int flipped = 0; flipped < count;) {
    const std::size_t at = third + random() % third;
    const unsigned bit = random() % 8;
    if (at % kPacket < kHeader) continue;
    bytes[at] ^= static_cast<char>(1u << bit);
    ++flipped;
  }
  write_bytes(path, bytes);
}

}  // namespace fp::test
