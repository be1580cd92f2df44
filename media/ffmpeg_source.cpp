// Files, network streams and cameras: FFmpeg demuxes, and the stream's decoder
// (media/video_decoder: NVDEC or software) turns its packets into frames. This is the demux
// loop: it reads packets, feeds the decoder, and judges damage: damaged packets and frames
// are counted and skipped, or end the stream (OnDecodeError).
#include <atomic>
#include <chrono>
#include <optional>

#include "media/ffmpeg_common.hpp"
#include "media/ffmpeg_input.hpp"
#include "media/io_deadline.hpp"
#include "media/media_error.hpp"
#include "media/memory_source.hpp"
#include "media/sources.hpp"
#include "media/stream_uri.hpp"
#include "media/video_decoder.hpp"

namespace fp {

namespace {

// Failures in a row (of the demuxer on damaged data, or of the decoder without taking a new
// packet) before the input counts as unreadable: a bound, so that nothing spins forever.
constexpr int kMaxFailuresInARow = 100;

class FfmpegSource final : public FrameSource {
 public:
  // `uri_` is the masked form: it names the input in every message.
  FfmpegSource(const std::string& uri, const SourceOptions& options, const std::atomic<bool>* also_stop)
      : uri_(mask_credentials(uri)),
        on_error_(options.on_error),
        stop_(options.stop),
        also_stop_(also_stop),
        deadline_(is_network_uri(uri)),
        timeout_(options.network_timeout_ms) {
    // The socket timeout bounds each wait; the deadline bounds the whole open (the RTSP
    // handshake and reading the stream info), which a server that answers slowly, a byte at
    // a time, could otherwise stretch forever.
    deadline_.arm(2 * timeout_);
    try {
      // `this` is stable: sources live on the heap behind the unique_ptr open_source returns.
      start(ff::open_input(uri, AVIOInterruptCB{&FfmpegSource::interrupt_callback, this}, options.network_timeout_ms,
                           options.confined ? &*options.confined : nullptr),
            DecoderSettings{.memory = options.memory, .mode = options.decode, .cuda_device = options.cuda_device,
                            .frames_held = options.frames_held, .on_error = options.on_error});
    } catch (const MediaError& e) {
      if (!deadline_.timed_out()) throw;
      ff::fail(uri_, "cannot open: no answer within " + IoDeadline::seconds_text(2 * timeout_) + " (timeout)", AVERROR(ETIMEDOUT));
    }
    deadline_.disarm();
  }

  // A file held in memory (open_memory_source).
  FfmpegSource(std::string name, std::span<const std::uint8_t> bytes, PlaneMemory memory,
               const DecodeOptions& options)
      : uri_(std::move(name)) {
    start(ff::open_memory_input(uri_, bytes, AVIOInterruptCB{&FfmpegSource::interrupt_callback, this}),
          DecoderSettings{.memory = std::move(memory), .limits = options});
  }

  const VideoInfo& info() const override { return info_; }
  std::string decoder_name() const override { return decoder_->description(); }
  void interrupt() override { interrupted_.store(true); }
  const DecodeErrors& decode_errors() const override { return errors_; }
  void start_at_live_edge() override { catching_up_ = info_.live; }
  std::int64_t frames_skipped_to_live() const override { return skipped_to_live_; }

  std::optional<Frame> read() override {
    while (!finished_) {
      if (stop_requested()) break;
      const int ret = decoder_->receive();
      if (ret == 0) {
        decode_failures_in_a_row_ = 0;
        const std::int64_t index = frames_decoded_++;
        check_frame(index);
        if (catching_up_) {
          ++skipped_to_live_;
          decoder_->drop_received();
          continue;
        }
        Frame out = decoder_->take_frame();
        out.sequence = index;
        return out;
      }
      if (ret == AVERROR_EOF) break;
      if (ret == AVERROR(EAGAIN)) {
        feed_decoder();
      } else if (decoder_->nvdec_refused()) {
        fail_stream("decode: nvdec: " + decoder_->nvdec_reason(), ret);
      } else if (ret == AVERROR(ENOMEM) || ++decode_failures_in_a_row_ > kMaxFailuresInARow) {
        fail_stream("decode error after " + last_sent_.where(), ret);
      } else if (last_sent_.packet >= 0 && last_sent_.packet == flagged_packet_) {
        flagged_packet_ = -1;  // the demuxer's flag on this packet was counted already
      } else {
        // With frame threads a damaged packet is reported here, a few packets late: the
        // position is that of the last packet sent.
        damaged_packet(last_sent_, ret);
      }
    }
    finished_ = true;
    if (frames_decoded_ == 0 && errors_.total() > 0 && !stop_requested())
      fail_stream("no frame could be decoded (" + errors_.summary() + "; the first at " + errors_.first[0].where() +
                  ": " + errors_.first[0].reason + ")");
    return std::nullopt;
  }

 private:
  using Clock = std::chrono::steady_clock;

  // FFmpeg polls this in every blocking open and read (network waits included): a stop
  // request, or the deadline of the current network open or read, ends the wait.
  static int interrupt_callback(void* opaque) {
    auto* self = static_cast<FfmpegSource*>(opaque);
    if (self->stop_requested()) return 1;
    return self->deadline_.expired() ? 1 : 0;
  }
  bool stop_requested() const {
    return interrupted_.load() || (stop_ != nullptr && stop_->load()) || (also_stop_ != nullptr && also_stop_->load());
  }

  [[noreturn]] void fail_stream(const std::string& what, int errnum) const { decoder_->fail(what, errnum); }
  [[noreturn]] void fail_stream(const std::string& what) const { decoder_->fail(what); }

  void start(ff::OpenedInput opened, DecoderSettings settings) {
    io_ = std::move(opened.io);
    file_io_ = std::move(opened.file_io);
    format_ = std::move(opened.format);
    const AVCodec* codec = select_stream();
    settings.live = opened.live;
    decoder_.emplace(uri_, *stream_, codec, settings);
    info_.width = decoder_->width();
    info_.height = decoder_->height();
    info_.time_base = ff::to_rational(stream_->time_base);
    const AVRational rate = av_guess_frame_rate(format_.get(), stream_, nullptr);
    info_.frame_rate = rate.num > 0 && rate.den > 0 ? ff::to_rational(rate) : Rational{0, 1};
    info_.frame_count = stream_->nb_frames > 0 ? stream_->nb_frames : -1;
    info_.live = opened.live;
    info_.chroma_layout = decoder_->on_nvdec() ? PlaneLayout::NV12 : PlaneLayout::I420;
    packet_.reset(av_packet_alloc());
    if (!packet_) ff::fail(uri_, "cannot allocate frames", AVERROR(ENOMEM));
  }

  // The video stream to decode, and its decoder.
  const AVCodec* select_stream() {
    const AVCodec* codec = nullptr;
    const int index = av_find_best_stream(format_.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
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
    return codec;
  }

  // Reads packets until one of our stream reaches the decoder, or starts the final flush.
  void feed_decoder() {
    for (;;) {
      deadline_.arm(timeout_);
      const auto read_started = std::chrono::steady_clock::now();
      int ret = av_read_frame(format_.get(), packet_.get());
      deadline_.disarm();
      if (catching_up_) catch_up(std::chrono::steady_clock::now() - read_started);
      if (ret < 0) {
        if (stop_requested()) return;  // read() sees the flag and ends the stream
        if (deadline_.timed_out())
          throw StreamLost(uri_ + ": no data for " + IoDeadline::seconds_text(timeout_) + " (read timeout) at packet " +
                               std::to_string(packets_read_),
                           AVERROR(ETIMEDOUT));
        const bool at_end = ret == AVERROR_EOF || (format_->pb != nullptr && avio_feof(format_->pb));
        if (!at_end) {
          // Damaged container data: the demuxer skips ahead on the next call. A bound on
          // failures in a row keeps a demuxer that cannot get past it from spinning.
          if (ret != AVERROR_INVALIDDATA || ++read_failures_in_a_row_ > kMaxFailuresInARow)
            throw StreamLost(uri_ + ": read error at packet " + std::to_string(packets_read_) + ": " + av_error_text(ret),
                             ret);
          damaged_packet({.packet = packets_read_}, ret);
          continue;
        }
        if (draining_) return;  // the decoder already has the flush; receive gives EOF
        draining_ = true;
        decoder_->flush();
        return;
      }
      read_failures_in_a_row_ = 0;
      if (packet_->stream_index != stream_->index) {
        av_packet_unref(packet_.get());
        continue;
      }
      const DecodeErrorPosition position = packet_position();
      const bool corrupt = (packet_->flags & AV_PKT_FLAG_CORRUPT) != 0;
      ret = decoder_->send(*packet_);
      av_packet_unref(packet_.get());
      last_sent_ = position;
      decode_failures_in_a_row_ = 0;
      if (ret == AVERROR(ENOMEM)) fail_stream("decode error at " + position.where(), ret);
      if (ret < 0 && decoder_->nvdec_refused())
        fail_stream("decode: nvdec: " + decoder_->nvdec_reason() + " (at " + position.where() + ")", ret);
      if (ret < 0) {
        damaged_packet(position, ret);  // the decoder dropped it: on to the next packet
        continue;
      }
      // The demuxer knows data is missing (an MPEG-TS continuity gap, a file cut short); the
      // decoder conceals what it can.
      if (corrupt) {
        damaged_packet(position, "data missing in the container");
        flagged_packet_ = position.packet;
      }
      return;
    }
  }

  // Catching up to a live input's edge ends with the first packet that had to be waited
  // for (buffered ones come back in microseconds; the next live one a frame interval later),
  // or after two seconds of frames, for a sender that runs ahead of real time.
  void catch_up(std::chrono::steady_clock::duration read_took) {
    const double rate = info_.frame_rate.value() > 0 ? info_.frame_rate.value() : 30.0;
    const auto waited_for = std::chrono::duration<double>(0.25 / rate);
    if (read_took >= waited_for || skipped_to_live_ >= static_cast<std::int64_t>(2 * rate)) catching_up_ = false;
  }

  DecodeErrorPosition packet_position() {
    const std::int64_t pts = packet_->pts != AV_NOPTS_VALUE ? packet_->pts : packet_->dts;
    return {.packet = packets_read_++,
            .pts = pts == AV_NOPTS_VALUE ? kNoPts : pts,
            .time_base = info_.time_base};
  }

  void damaged_packet(DecodeErrorPosition position, int errnum) {
    damaged_packet(std::move(position), av_error_text(errnum));
  }
  void damaged_packet(DecodeErrorPosition position, std::string reason) {
    position.reason = std::move(reason);
    if (on_error_ == OnDecodeError::Stop)
      fail_stream("damaged " + position.where() + ": " + position.reason + " (on_error: stop)");
    errors_.add_packet(std::move(position));
  }

  // A decoded frame whose errors the decoder concealed, or one of a size the pipeline was
  // not set up for (which ends the stream: stages and encoders are prepared for one size,
  // and scaling the new size to the old one would distort every frame).
  void check_frame(std::int64_t index) {
    const AVFrame& frame = decoder_->received();
    const std::int64_t pts = frame.best_effort_timestamp;
    DecodeErrorPosition position{.frame = index, .pts = pts == AV_NOPTS_VALUE ? kNoPts : pts,
                                 .time_base = info_.time_base};
    if (frame.width != info_.width || frame.height != info_.height)
      fail_stream("the frame size changes from " + std::to_string(info_.width) + "x" + std::to_string(info_.height) +
                  " to " + std::to_string(frame.width) + "x" + std::to_string(frame.height) + " at " +
                  position.where() + "; a run handles one size (split the input where it changes)");
    if (frame.decode_error_flags == 0 && (frame.flags & AV_FRAME_FLAG_CORRUPT) == 0) return;
    position.reason = "decoded with errors concealed";
    if (on_error_ == OnDecodeError::Stop)
      fail_stream(position.where() + " " + position.reason + " (on_error: stop)");
    errors_.add_frame(std::move(position));
  }

  std::string uri_;
  std::unique_ptr<ff::MemoryIo> io_;  // open_memory_source's bytes; outlives format_
  std::unique_ptr<ff::FdIo> file_io_;  // a confined file (SourceOptions::confined); outlives format_
  ff::InputFormatPtr format_;
  AVStream* stream_ = nullptr;
  std::optional<VideoDecoder> decoder_;  // in place: FFmpeg's callbacks hold its address
  ff::PacketPtr packet_;
  VideoInfo info_;
  OnDecodeError on_error_ = OnDecodeError::Skip;
  DecodeErrors errors_;
  std::int64_t frames_decoded_ = 0;
  bool catching_up_ = false;         // start_at_live_edge(): skipping what was waiting
  std::int64_t skipped_to_live_ = 0;
  std::int64_t packets_read_ = 0;  // of our stream
  DecodeErrorPosition last_sent_;  // the last packet given to the decoder
  std::int64_t flagged_packet_ = -1;  // the last packet counted because the demuxer flagged it
  int read_failures_in_a_row_ = 0;
  int decode_failures_in_a_row_ = 0;
  bool draining_ = false;
  bool finished_ = false;
  std::atomic<bool> interrupted_{false};
  const std::atomic<bool>* stop_ = nullptr;       // the run's stop request, or null
  const std::atomic<bool>* also_stop_ = nullptr;  // the reconnecting source's, or null
  IoDeadline deadline_;  // of the current network open or read (files and devices: none)
  std::chrono::milliseconds timeout_{5000};  // of a network read; an open gets twice as long
};

}  // namespace

std::unique_ptr<FrameSource> open_ffmpeg_source(const std::string& uri, const SourceOptions& options,
                                                const std::atomic<bool>* also_stop) {
  return std::make_unique<FfmpegSource>(uri, options, also_stop);
}

std::unique_ptr<FrameSource> open_memory_source(const std::string& name, std::span<const std::uint8_t> bytes,
                                                const PlaneMemory& memory, const DecodeOptions& options) {
  return std::make_unique<FfmpegSource>(name, bytes, memory, options);
}

}  // namespace fp
