// The encoder of an FFmpeg output (private to media/): libx264, NVENC (h264_nvenc,
// hevc_nvenc, or auto: NVENC where it opens, else libx264) or, for .y4m, the frames wrapped
// as they are. Takes frames, hands out packets; where they go is the caller's
// (media/muxed_output).
//
// Odd sizes: H.264 crops in units of two luma samples for 4:2:0, so no 4:2:0 stream can be
// 641 pixels wide and libx264 refuses odd 4:2:0 sizes outright. An odd-sized output is
// therefore encoded as 4:4:4 (High 4:4:4 Predictive), where cropping is exact: it decodes
// to the very same size, and the source converts it back to I420. Even sizes stay 4:2:0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/frame.hpp"
#include "media/encoder_threads.hpp"
#include "media/ffmpeg_raii.hpp"
#include "media/frame_sink.hpp"
#include "media/output_target.hpp"

namespace fp {

// What an encoder is opened for: frames of one size, at one rate, for one kind of output.
struct EncodedVideo {
  int width = 0;
  int height = 0;
  Rational frame_rate;  // nominal: x264's rate control and the spacing of key frames
  Rational time_base;   // of the pts given to send(), and of the packets received
  OutputKind kind = OutputKind::File;  // key frames suit a file, HLS segments or a network stream
  bool raw = false;                    // .y4m: no codec, the planes as given
  // The layout frames will come in (VideoInfo::chroma_layout): x264 and NVENC open for NV12
  // when they do, so as to take them by reference. y4m stores I420 either way.
  PlaneLayout chroma_layout = PlaneLayout::I420;
};

class VideoEncoder {
 public:
  // Opens the encoder options.codec names (the y4m writer when video.raw). `global_header`:
  // the container wants SPS/PPS once in its header (mp4, matroska) rather than in-band.
  // Throws MediaError "<name>: <why>".
  VideoEncoder(std::string name, const SinkOptions& options, const EncodedVideo& video, bool global_header);
  VideoEncoder(const VideoEncoder&) = delete;
  VideoEncoder& operator=(const VideoEncoder&) = delete;

  // "libx264", "h264_nvenc", "rawvideo (y4m)", or "libx264 (NVENC: <why not>)" under auto.
  std::string name() const;
  // What the muxer's stream is made from (its codec parameters and timing).
  const AVCodecContext& context() const { return *encoder_; }
  AVRational time_base() const { return encoder_->time_base; }

  // The next frame sent is a key frame the receiver can start from (an output that
  // connected again restarts its stream).
  void force_key_frame() { key_frame_next_ = true; }
  // Encodes `frame` (host memory, the size opened for) at `pts`; its packets come out of
  // receive_packet().
  void send(const Frame& frame, std::int64_t pts);
  // Asks for the frames the encoder still holds (x264 holds frames back for B-frames and
  // lookahead); their packets come out of receive_packet().
  void drain();
  // The next packet, or null when the encoder needs another frame (or is drained). The
  // packet is the encoder's own: empty it (av_packet_unref) before asking for the next.
  AVPacket* receive_packet();

  std::int64_t frames_lent() const { return frames_lent_; }
  // libx264's threads (its share of EncoderThreadBudget, or the stage's `threads`); 0 for
  // NVENC and y4m, which take no encoder threads of the CPU's.
  int threads() const { return thread_lease_ ? thread_lease_->threads() : 0; }
  void close();

 private:
  void open(const SinkOptions& options);
  std::string open_nvenc(const std::string& name, const SinkOptions& options);
  void open_x264(const SinkOptions& options);
  void open_raw_encoder();
  void start_encoder(const AVCodec* codec, AVPixelFormat pix_fmt);
  AVPixelFormat four_two_zero() const;
  void set_low_latency();
  void set_key_frames(const SinkOptions& options, ff::DictionaryPtr& opts);
  int frames_in(double seconds) const;
  void allocate_buffers();
  AVFrame* picture_of(const Frame& frame);
  [[noreturn]] void fail_encoding(int error);
  void fill_frame(const Frame& frame);

  std::string path_;           // names the output in messages (without a password)
  EncodedVideo video_;
  bool global_header_;
  std::string nvenc_;          // the NVENC encoder in use, or empty
  std::string nvenc_refusal_;  // codec auto: why NVENC did not open (then libx264)
  ff::CodecContextPtr encoder_;
  ff::FramePtr frame_;  // the encoder's own picture, for frames that must be copied
  ff::FramePtr lent_;   // a picture of the caller's planes, by reference (between sends: empty)
  std::int64_t frames_lent_ = 0;
  ff::PacketPtr packet_;
  bool key_frame_next_ = false;
  bool failed_ = false;  // libavcodec reported an encode error: the encoder is asked nothing more
  std::optional<EncoderThreadBudget::Lease> thread_lease_;  // x264's, while it is open
};

}  // namespace fp
