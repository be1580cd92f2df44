// Encoded and raw outputs: libx264 (or NVENC: h264_nvenc, hevc_nvenc, auto) into
// mp4/matroska/mpegts files, an HLS playlist, or a network stream (MPEG-TS over UDP or SRT,
// RTSP publish); raw frames into .y4m. The sink composes an encoder (media/video_encoder)
// with a muxed output (media/muxed_output) that reconnects where the options say so
// (media/reconnecting_output); it owns what spans both: the checks on each frame and the
// stream's timestamps.
#include <algorithm>
#include <exception>

#include "media/ffmpeg_common.hpp"
#include "media/media_error.hpp"
#include "media/reconnecting_output.hpp"
#include "media/sinks.hpp"
#include "media/stream_uri.hpp"
#include "media/video_encoder.hpp"

extern "C" {
#include <libavutil/mathematics.h>
}

namespace fp {

namespace {

// The nominal frame rate: the stream's own, else one implied by a frame-sized time base,
// else 30. Used for x264's rate control, the .y4m header, and to time frames without pts.
Rational nominal_rate(const VideoInfo& info) {
  if (ff::positive(info.frame_rate)) return info.frame_rate;
  const Rational tb = info.time_base;
  if (ff::positive(tb) && std::int64_t{tb.num} * 1000 >= tb.den) return {tb.den, tb.num};  // at most 1000 fps
  return {30, 1};
}

// What the encoder is opened for; throws on a frame size no encoder takes.
EncodedVideo encoded_video(const std::string& name, const OutputTarget& target, const VideoInfo& info) {
  if (info.width <= 0 || info.height <= 0)
    ff::fail(name, "bad frame size " + std::to_string(info.width) + "x" + std::to_string(info.height));
  const Rational frame_rate = nominal_rate(info);
  const bool raw = target.muxer == "yuv4mpegpipe";
  // y4m stores no timestamps, only a frame rate taken from the stream time base.
  const Rational time_base =
      !raw && ff::positive(info.time_base) ? info.time_base : Rational{frame_rate.den, frame_rate.num};
  return {.width = info.width, .height = info.height, .frame_rate = frame_rate, .time_base = time_base,
          .kind = target.kind, .raw = raw, .chroma_layout = info.chroma_layout};
}

class FfmpegSink final : public FrameSink {
 public:
  FfmpegSink(const SinkOptions& options, const VideoInfo& info)
      : path_(mask_credentials(options.path)),
        target_(parse_output_target(options.path)),
        video_(encoded_video(path_, target_, info)),
        output_(path_, target_, options),
        encoder_(path_, options, video_, output_.wants_global_header()) {
    output_.open(encoder_.context());
    const AVRational frame_time{video_.frame_rate.den, video_.frame_rate.num};
    frame_step_ = std::max<std::int64_t>(1, av_rescale_q(1, frame_time, ff::to_av(video_.time_base)));
  }

  FfmpegSink(const FfmpegSink&) = delete;
  FfmpegSink& operator=(const FfmpegSink&) = delete;

  // A destructor cannot report failure: errors of this last close are dropped. Call close()
  // to see them.
  ~FfmpegSink() override {
    try {
      close();
    } catch (const std::exception&) {
    }
  }

  void write(const Frame& frame) override {
    if (closed_) ff::fail(path_, "write after close");
    if (frame.location != MemoryLocation::Host) ff::fail(path_, "frame is in device memory; download it before encoding");
    if (!frame.valid() || frame.width != video_.width || frame.height != video_.height)
      ff::fail(path_, "frame is " + std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                          ", the output was opened for " + std::to_string(video_.width) + "x" +
                          std::to_string(video_.height));
    const std::int64_t pts = next_pts(frame);
    // While the receiver is away the frame is not encoded: the stream resumes with a key
    // frame, which needs no earlier one.
    if (!output_.is_open()) {
      if (!output_.reconnect_when_due()) return;
      encoder_.force_key_frame();
    }
    encoder_.send(frame, pts);
    if (!output_.write_frame([&] { write_packets(); })) return;
    ++frames_;
  }

  std::int64_t frames_lent() const override { return encoder_.frames_lent(); }
  const ReconnectStats* reconnect_stats() const override { return output_.stats(); }

  void close() override {
    if (closed_) return;
    closed_ = true;
    try {
      // The encoder is drained (x264 holds frames back for B-frames and lookahead) into the
      // output's last packets, then the trailer is written.
      output_.finalize([&] {
        encoder_.drain();
        write_packets();
      });
    } catch (...) {
      release();
      throw;
    }
    release();
  }

  std::string encoder_name() const override { return encoder_.name(); }
  std::int64_t frames_written() const override { return frames_; }

 private:
  void write_packets() {
    while (AVPacket* packet = encoder_.receive_packet()) output_.write(*packet);
  }

  std::int64_t next_pts(const Frame& frame) {
    std::int64_t pts = 0;
    if (video_.raw) {
      pts = frames_;  // y4m: frame n is at n / fps, whatever the source said
    } else if (frame.pts == kNoPts) {
      pts = last_pts_ == AV_NOPTS_VALUE ? 0 : last_pts_ + frame_step_;
    } else if (ff::positive(frame.time_base)) {
      pts = av_rescale_q(frame.pts, ff::to_av(frame.time_base), encoder_.time_base());
    } else {
      pts = frame.pts;
    }
    // Muxers refuse timestamps that do not increase; a repeated or stepped-back pts (a
    // live source's clock glitch) is nudged forward rather than failing the whole output.
    if (last_pts_ != AV_NOPTS_VALUE && pts <= last_pts_) pts = last_pts_ + 1;
    last_pts_ = pts;
    return pts;
  }

  void release() {
    output_.close();
    encoder_.close();
  }

  std::string path_;  // names the output in messages (without a password)
  OutputTarget target_;
  EncodedVideo video_;
  ReconnectingOutput output_;  // made first: the encoder asks it for the container's needs
  VideoEncoder encoder_;
  std::int64_t frame_step_ = 1;  // one frame at the nominal rate, in the encoder's time base
  std::int64_t last_pts_ = AV_NOPTS_VALUE;
  std::int64_t frames_ = 0;
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<FrameSink> open_ffmpeg_sink(const SinkOptions& options, const VideoInfo& info) {
  return std::make_unique<FfmpegSink>(options, info);
}

}  // namespace fp
