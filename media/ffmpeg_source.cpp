// Files, network streams and cameras: FFmpeg demuxes, decodes in software (in threads), and
// frames are copied (yuv420p) or converted (anything else) into pooled I420 frames.
#include <atomic>
#include <chrono>

#include "core/frame_pool.hpp"
#include "media/ffmpeg_common.hpp"
#include "media/ffmpeg_input.hpp"
#include "media/memory_source.hpp"
#include "media/sources.hpp"

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

namespace fp {

namespace {

class FfmpegSource final : public FrameSource {
 public:
  FfmpegSource(std::string uri, PlaneMemory memory) : uri_(std::move(uri)), memory_(std::move(memory)) {
    // `this` is stable: sources live on the heap behind the unique_ptr open_source returns.
    start(ff::open_input(uri_, AVIOInterruptCB{&FfmpegSource::interrupt_callback, this}), DecodeOptions{});
  }

  // A file held in memory (open_memory_source).
  FfmpegSource(std::string name, std::span<const std::uint8_t> bytes, PlaneMemory memory,
               const DecodeOptions& options)
      : uri_(std::move(name)), memory_(std::move(memory)) {
    start(ff::open_memory_input(uri_, bytes, AVIOInterruptCB{&FfmpegSource::interrupt_callback, this}), options);
  }

  const VideoInfo& info() const override { return info_; }
  std::string decoder_name() const override { return ff::software_decoder_name(codec_); }
  void interrupt() override { interrupted_.store(true); }

  std::optional<Frame> read() override {
    while (!finished_) {
      if (interrupted_.load()) break;
      const int ret = avcodec_receive_frame(decoder_.get(), frame_.get());
      if (ret == 0) {
        Frame out = convert();
        av_frame_unref(frame_.get());
        return out;
      }
      if (ret == AVERROR_EOF) break;
      if (ret != AVERROR(EAGAIN)) fail_stream("decode error", ret);
      feed_decoder();
    }
    finished_ = true;
    return std::nullopt;
  }

 private:
  static int interrupt_callback(void* opaque) {
    return static_cast<FfmpegSource*>(opaque)->interrupted_.load() ? 1 : 0;
  }

  [[noreturn]] void fail_stream(const std::string& what, int errnum) const {
    ff::fail(uri_, "stream #" + std::to_string(stream_->index) + " (" + avcodec_get_name(stream_->codecpar->codec_id) +
                       "): " + what,
             errnum);
  }

  void start(ff::OpenedInput opened, const DecodeOptions& options) {
    io_ = std::move(opened.io);
    format_ = std::move(opened.format);
    select_stream();
    open_decoder(opened.live, options);
    packet_.reset(av_packet_alloc());
    frame_.reset(av_frame_alloc());
    if (!packet_ || !frame_) ff::fail(uri_, "cannot allocate frames", AVERROR(ENOMEM));
  }

  void select_stream() {
    const int index = av_find_best_stream(format_.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &codec_, 0);
    if (index == AVERROR_STREAM_NOT_FOUND) ff::fail(uri_, "no video stream");
    if (index == AVERROR_DECODER_NOT_FOUND) {
      for (unsigned i = 0; i < format_->nb_streams; ++i) {
        const AVCodecParameters* par = format_->streams[i]->codecpar;
        if (par->codec_type == AVMEDIA_TYPE_VIDEO)
          ff::fail(uri_, std::string("unsupported codec '") + avcodec_get_name(par->codec_id) + "'");
      }
    }
    if (index < 0) ff::fail(uri_, "cannot select a video stream", index);
    stream_ = format_->streams[index];
  }

  void open_decoder(bool live, const DecodeOptions& options) {
    decoder_.reset(avcodec_alloc_context3(codec_));
    if (!decoder_) ff::fail(uri_, "cannot allocate a decoder", AVERROR(ENOMEM));
    if (const int ret = avcodec_parameters_to_context(decoder_.get(), stream_->codecpar); ret < 0)
      fail_stream("bad codec parameters", ret);
    decoder_->pkt_timebase = stream_->time_base;
    decoder_->thread_count = options.threads;  // 0: one per core
    if (options.max_pixels > 0) decoder_->max_pixels = options.max_pixels;
    // Frame threads decode several frames at once (throughput, for files); each thread adds
    // a frame of delay, so live sources use slice threads only.
    decoder_->thread_type = live ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE;
    if (const int ret = avcodec_open2(decoder_.get(), codec_, nullptr); ret < 0)
      fail_stream(std::string("cannot open decoder ") + codec_->name, ret);

    info_.width = decoder_->width;
    info_.height = decoder_->height;
    if (info_.width <= 0 || info_.height <= 0) fail_stream("unknown frame size", AVERROR_INVALIDDATA);
    info_.time_base = ff::to_rational(stream_->time_base);
    const AVRational rate = av_guess_frame_rate(format_.get(), stream_, nullptr);
    info_.frame_rate = rate.num > 0 && rate.den > 0 ? ff::to_rational(rate) : Rational{0, 1};
    info_.frame_count = stream_->nb_frames > 0 ? stream_->nb_frames : -1;
    info_.live = live;
    pool_.emplace(info_.width, info_.height, memory_);
  }

  // Reads packets until one of our stream reaches the decoder, or starts the final flush.
  void feed_decoder() {
    for (;;) {
      int ret = av_read_frame(format_.get(), packet_.get());
      if (ret < 0) {
        if (interrupted_.load()) return;  // read() sees the flag and ends the stream
        const bool at_end = ret == AVERROR_EOF || (format_->pb != nullptr && avio_feof(format_->pb));
        if (!at_end) ff::fail(uri_, "read error", ret);
        if (draining_) return;  // the decoder already has the flush; receive gives EOF
        draining_ = true;
        if (ret = avcodec_send_packet(decoder_.get(), nullptr); ret < 0 && ret != AVERROR_EOF)
          fail_stream("decode error", ret);
        return;
      }
      if (packet_->stream_index != stream_->index) {
        av_packet_unref(packet_.get());
        continue;
      }
      ret = avcodec_send_packet(decoder_.get(), packet_.get());
      av_packet_unref(packet_.get());
      // A damaged packet in a live feed costs a frame, not the pipeline; in a file it is an
      // error worth reporting.
      if (ret == AVERROR_INVALIDDATA && info_.live) continue;
      if (ret < 0) fail_stream("decode error", ret);
      return;
    }
  }

  Frame convert() {
    Frame out = pool_->acquire();
    const std::int64_t pts = frame_->best_effort_timestamp;
    out.pts = pts == AV_NOPTS_VALUE ? kNoPts : pts;
    out.time_base = info_.time_base;
    out.sequence = sequence_++;
    out.arrival = std::chrono::steady_clock::now();

    const auto format = static_cast<AVPixelFormat>(frame_->format);
    const bool same_size = frame_->width == info_.width && frame_->height == info_.height;
    if (same_size && (format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P)) {
      // Already I420 (full-range yuvj420p keeps its values): a plain copy, no swscale.
      for (int p = 0; p < 3; ++p) {
        Plane& plane = out.planes[p];
        av_image_copy_plane(plane.data, static_cast<int>(plane.pitch), frame_->data[p], frame_->linesize[p],
                            plane.width, plane.height);
      }
      return out;
    }
    // Other pixel formats, or a stream whose size changed midway: swscale to the size the
    // pipeline was set up for. The context is cached and rebuilt only when the input changes.
    scaler_.reset(sws_getCachedContext(scaler_.release(), frame_->width, frame_->height, format, info_.width,
                                       info_.height, AV_PIX_FMT_YUV420P, SWS_BILINEAR, nullptr, nullptr, nullptr));
    if (!scaler_) {
      const char* name = av_get_pix_fmt_name(format);
      fail_stream(std::string("cannot convert ") + (name != nullptr ? name : "unknown pixel format") + " to yuv420p",
                  AVERROR(EINVAL));
    }
    std::uint8_t* const dst[4] = {out.planes[0].data, out.planes[1].data, out.planes[2].data, nullptr};
    const int dst_stride[4] = {static_cast<int>(out.planes[0].pitch), static_cast<int>(out.planes[1].pitch),
                               static_cast<int>(out.planes[2].pitch), 0};
    if (const int rows = sws_scale(scaler_.get(), frame_->data, frame_->linesize, 0, frame_->height, dst, dst_stride);
        rows <= 0)
      fail_stream("pixel format conversion failed", rows < 0 ? rows : AVERROR(EINVAL));
    return out;
  }

  std::string uri_;
  std::unique_ptr<ff::MemoryIo> io_;  // open_memory_source's bytes; outlives format_
  ff::InputFormatPtr format_;
  AVStream* stream_ = nullptr;
  const AVCodec* codec_ = nullptr;
  ff::CodecContextPtr decoder_;
  ff::PacketPtr packet_;
  ff::FramePtr frame_;
  ff::SwsPtr scaler_;
  PlaneMemory memory_;
  std::optional<FramePool> pool_;
  VideoInfo info_;
  std::int64_t sequence_ = 0;
  bool draining_ = false;
  bool finished_ = false;
  std::atomic<bool> interrupted_{false};
};

}  // namespace

std::unique_ptr<FrameSource> open_ffmpeg_source(const std::string& uri, const PlaneMemory& memory) {
  return std::make_unique<FfmpegSource>(uri, memory);
}

std::unique_ptr<FrameSource> open_memory_source(const std::string& name, std::span<const std::uint8_t> bytes,
                                                const PlaneMemory& memory, const DecodeOptions& options) {
  return std::make_unique<FfmpegSource>(name, bytes, memory, options);
}

}  // namespace fp
