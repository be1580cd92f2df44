// Files, network streams and cameras: FFmpeg demuxes and decodes, on NVDEC (frames stay on
// the GPU as NV12, see nvdec_device.hpp) or in software (in threads; yuv420p pictures are
// decoded straight into pooled planes (decode_buffers.hpp), anything else is converted into
// pooled I420 frames). Damaged packets and
// frames are counted and skipped, or end the stream (OnDecodeError).
#include <atomic>
#include <chrono>
#include <mutex>
#include <new>

#include <fmt/format.h>

#include "core/frame_pool.hpp"
#include "media/decode_buffers.hpp"
#include "media/ffmpeg_common.hpp"
#include "media/ffmpeg_input.hpp"
#include "media/hw_decode.hpp"
#include "media/io_deadline.hpp"
#include "media/media_error.hpp"
#include "media/memory_source.hpp"
#include "media/nvdec_device.hpp"
#include "media/packet_arrivals.hpp"
#include "media/sources.hpp"
#include "media/stream_uri.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

namespace fp {

namespace {

// Failures in a row (of the demuxer on damaged data, or of the decoder without taking a new
// packet) before the input counts as unreadable: a bound, so that nothing spins forever.
constexpr int kMaxFailuresInARow = 100;

// Frame threads for NVDEC on files (see set_up_nvdec).
constexpr int kNvdecFrameThreads = 4;

class FfmpegSource final : public FrameSource {
 public:
  // `uri_` is the masked form: it names the input in every message.
  FfmpegSource(const std::string& uri, const SourceOptions& options, const std::atomic<bool>* also_stop)
      : uri_(mask_credentials(uri)),
        memory_(options.memory),
        decode_mode_(options.decode),
        cuda_device_(options.cuda_device),
        frames_held_(options.frames_held),
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
            DecodeOptions{});
    } catch (const MediaError& e) {
      if (!deadline_.timed_out()) throw;
      ff::fail(uri_, "cannot open: no answer within " + IoDeadline::seconds_text(2 * timeout_) + " (timeout)", AVERROR(ETIMEDOUT));
    }
    deadline_.disarm();
  }

  // A file held in memory (open_memory_source).
  FfmpegSource(std::string name, std::span<const std::uint8_t> bytes, PlaneMemory memory,
               const DecodeOptions& options)
      : uri_(std::move(name)), memory_(std::move(memory)) {
    start(ff::open_memory_input(uri_, bytes, AVIOInterruptCB{&FfmpegSource::interrupt_callback, this}), options);
  }

  const VideoInfo& info() const override { return info_; }
  std::string decoder_name() const override {
    return decoder_description(codec_, on_nvdec_.load(), on_nvdec_.load() ? std::string() : nvdec_reason());
  }
  void interrupt() override { interrupted_.store(true); }
  const DecodeErrors& decode_errors() const override { return errors_; }
  void start_at_live_edge() override { catching_up_ = info_.live; }
  std::int64_t frames_skipped_to_live() const override { return skipped_to_live_; }

  std::optional<Frame> read() override {
    while (!finished_) {
      if (stop_requested()) break;
      const int ret = avcodec_receive_frame(decoder_.get(), frame_.get());
      if (ret == 0) {
        decode_failures_in_a_row_ = 0;
        const std::int64_t index = frames_decoded_++;
        check_frame(index);
        if (catching_up_) {
          ++skipped_to_live_;
          av_frame_unref(frame_.get());
          continue;
        }
        Frame out = frame_->format == AV_PIX_FMT_CUDA ? device_frame() : convert();
        out.sequence = index;
        av_frame_unref(frame_.get());
        return out;
      }
      if (ret == AVERROR_EOF) break;
      if (ret == AVERROR(EAGAIN)) {
        feed_decoder();
      } else if (nvdec_refused()) {
        fail_stream("decode: nvdec: " + nvdec_reason(), ret);
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

  std::string stream_name() const {
    return "stream #" + std::to_string(stream_->index) + " (" + avcodec_get_name(stream_->codecpar->codec_id) + ")";
  }
  [[noreturn]] void fail_stream(const std::string& what, int errnum) const {
    ff::fail(uri_, stream_name() + ": " + what, errnum);
  }
  [[noreturn]] void fail_stream(const std::string& what) const { ff::fail(uri_, stream_name() + ": " + what); }

  void start(ff::OpenedInput opened, const DecodeOptions& options) {
    io_ = std::move(opened.io);
    file_io_ = std::move(opened.file_io);
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
    // Check the checksums that codecs carry, so that damage is found rather than decoded.
    // Not AV_EF_EXPLODE or the strict checks: those turn small deviations from the spec in
    // otherwise playable streams into errors. Damaged frames are concealed (error
    // resilience is on by default with frame threads) and counted through their flags.
    // AV_CODEC_FLAG2_SHOW_ALL stays off: frames before the first keyframe are gray guesses.
    decoder_->err_recognition |= AV_EF_CRCCHECK;
    decoder_->opaque = this;
    decoder_->get_buffer2 = &FfmpegSource::get_buffer;
    set_up_nvdec();
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

  // decode: auto|nvdec. What rules NVDEC out here fails the open under nvdec; under auto the
  // stream is decoded in software and decoder_name() says why.
  void set_up_nvdec() {
    if (decode_mode_ == DecodeMode::Software) return;
    std::string reason = nvdec_unsupported_reason(codec_, *stream_->codecpar);
    // NVDEC conceals damage without saying so (no frame comes out flagged), so a run that
    // must stop at the first damaged frame is decoded where damage is seen.
    if (reason.empty() && decode_mode_ == DecodeMode::Auto && on_error_ == OnDecodeError::Stop)
      reason = "on_error: stop needs the software decoder's reports of damaged frames";
    if (reason.empty()) {
      try {
        nvdec_ = open_nvdec_device(cuda_device_);
      } catch (const MediaError& e) {
        reason = e.what();
      }
    }
    if (!reason.empty()) {
      if (decode_mode_ == DecodeMode::Nvdec) fail_stream("decode: nvdec: " + reason);
      set_nvdec_reason(std::move(reason));
      return;
    }
    decoder_->hw_device_ctx = av_buffer_ref(nvdec_->context());
    if (decoder_->hw_device_ctx == nullptr) fail_stream("cannot use the GPU for decoding", AVERROR(ENOMEM));
    decoder_->get_format = &FfmpegSource::choose_format;
    // FFmpeg hands out NVDEC's own output surfaces (no copy), each held until the frame is
    // released: the decoder needs one for every frame the run may hold beside its
    // reference frames, or it stops with "No decoder surfaces left" when the graph is slow.
    decoder_->extra_hw_frames = frames_held_;
    // Frame threads each hold a surface more and add a frame of delay; NVDEC does the
    // decoding, so a few suffice to keep it busy on files (submitting the next picture
    // while one is mapped), and live streams use one, for latency.
    if (decoder_->thread_type & FF_THREAD_FRAME) decoder_->thread_count = kNvdecFrameThreads;
    else decoder_->thread_count = 1;
    on_nvdec_.store(true);
  }

  // FFmpeg asks which of the formats it can decode to (at the first picture, and again when
  // the stream's parameters change). When the GPU refuses the stream (a profile or size its
  // NVDEC lacks), FFmpeg asks again without the CUDA format: auto then goes on in software;
  // nvdec answers none, and the decode error that follows names the reason.
  static AVPixelFormat choose_format(AVCodecContext* context, const AVPixelFormat* formats) noexcept {
    auto* self = static_cast<FfmpegSource*>(context->opaque);
    bool cuda_offered = false;
    AVPixelFormat software = AV_PIX_FMT_NONE;
    for (const AVPixelFormat* f = formats; *f != AV_PIX_FMT_NONE; ++f) {
      const AVPixFmtDescriptor* descriptor = av_pix_fmt_desc_get(*f);
      if (*f == AV_PIX_FMT_CUDA) cuda_offered = true;
      else if (software == AV_PIX_FMT_NONE && descriptor != nullptr && !(descriptor->flags & AV_PIX_FMT_FLAG_HWACCEL))
        software = *f;
    }
    if (cuda_offered && nvdec_gives_nv12(context->sw_pix_fmt)) {
      self->on_nvdec_.store(true);
      return AV_PIX_FMT_CUDA;
    }
    try {
      self->set_nvdec_reason(!cuda_offered ? "the GPU's NVDEC refused the stream (profile or size; -v shows FFmpeg's reason)"
                                           : nvdec_format_refusal(context->sw_pix_fmt));
    } catch (...) {
      // Out of memory for the text: the decoder name just lacks the reason.
    }
    self->on_nvdec_.store(false);
    return self->decode_mode_ == DecodeMode::Nvdec ? AV_PIX_FMT_NONE : software;
  }

  static int get_buffer(AVCodecContext* context, AVFrame* frame, int flags) noexcept {
    return static_cast<FfmpegSource*>(context->opaque)->buffers_.get_buffer(context, frame, flags);
  }

  bool nvdec_refused() const { return decode_mode_ == DecodeMode::Nvdec && !on_nvdec_.load(); }
  std::string nvdec_reason() const {
    std::lock_guard lock(nvdec_mutex_);
    return nvdec_reason_;
  }
  void set_nvdec_reason(std::string reason) {
    std::lock_guard lock(nvdec_mutex_);
    nvdec_reason_ = std::move(reason);
  }

  // A frame decoded on NVDEC: its device planes, read where they lie (the AVFrame stays
  // referenced by the planes until the last reader lets go), ready once the copy FFmpeg
  // enqueued on the device's stream is done.
  Frame device_frame() {
    const auto* frames = reinterpret_cast<const AVHWFramesContext*>(frame_->hw_frames_ctx->data);
    if (frames->sw_format != AV_PIX_FMT_NV12) {
      const char* name = av_get_pix_fmt_name(frames->sw_format);
      fail_stream(std::string("NVDEC gave ") + (name != nullptr ? name : "unknown") + " frames, not NV12");
    }
    const std::shared_ptr<AVFrame> held = take_received();
    Frame out;
    out.width = held->width;
    out.height = held->height;
    out.location = MemoryLocation::Device;
    out.device = nvdec_->ordinal();
    out.layout = PlaneLayout::NV12;
    out.planes[0] = Plane{std::shared_ptr<std::uint8_t>(held, held->data[0]), held->data[0], out.width, out.height,
                          held->linesize[0]};
    out.planes[1] = Plane{std::shared_ptr<std::uint8_t>(held, held->data[1]), held->data[1], chroma_width(out.width),
                          chroma_height(out.height), held->linesize[1]};
    out.ready = nvdec_->mark_written();
    stamp(out, held->best_effort_timestamp);
    return out;
  }

  // An I420 picture decoded into buffers_'s pooled planes (yuvj420p keeps its full-range
  // values): the Frame takes the planes where they lie and holds the AVFrame, so that the
  // buffers go back to their pool when both the decoder (a reference picture) and the
  // pipeline are done with them.
  Frame decoded_in_place() {
    const std::shared_ptr<AVFrame> held = take_received();
    Frame out;
    out.width = info_.width;
    out.height = info_.height;
    out.location = memory_.location;
    out.device = memory_.device;
    for (int p = 0; p < 3; ++p) {
      const int width = p == 0 ? out.width : chroma_width(out.width);
      const int height = p == 0 ? out.height : chroma_height(out.height);
      out.planes[p] = Plane{std::shared_ptr<std::uint8_t>(held, held->data[p]), held->data[p], width, height,
                            held->linesize[p]};
    }
    stamp(out, held->best_effort_timestamp);
    return out;
  }

  // The picture just received, for Frames that read its planes where they lie: freed when
  // the last of them lets go (frame_ is left empty for the next one).
  std::shared_ptr<AVFrame> take_received() {
    std::shared_ptr<AVFrame> held(av_frame_alloc(), [](AVFrame* f) {
      DecodeBuffers::reader_done(f);
      av_frame_free(&f);
    });
    if (!held) fail_stream("cannot allocate frames", AVERROR(ENOMEM));
    av_frame_move_ref(held.get(), frame_.get());
    return held;
  }

  void stamp(Frame& out, std::int64_t pts) {
    out.pts = pts == AV_NOPTS_VALUE ? kNoPts : pts;
    out.time_base = info_.time_base;
    out.arrival = pts == AV_NOPTS_VALUE ? std::chrono::steady_clock::now() : arrivals_.take(pts);
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
        if (ret = avcodec_send_packet(decoder_.get(), nullptr); ret < 0 && ret != AVERROR_EOF)
          fail_stream("decode error", ret);
        return;
      }
      read_failures_in_a_row_ = 0;
      if (packet_->stream_index != stream_->index) {
        av_packet_unref(packet_.get());
        continue;
      }
      const DecodeErrorPosition position = packet_position();
      if (packet_->pts != AV_NOPTS_VALUE) arrivals_.add(packet_->pts, std::chrono::steady_clock::now());
      const bool corrupt = (packet_->flags & AV_PKT_FLAG_CORRUPT) != 0;
      ret = avcodec_send_packet(decoder_.get(), packet_.get());
      av_packet_unref(packet_.get());
      last_sent_ = position;
      decode_failures_in_a_row_ = 0;
      if (ret == AVERROR(ENOMEM)) fail_stream("decode error at " + position.where(), ret);
      if (ret < 0 && nvdec_refused()) fail_stream("decode: nvdec: " + nvdec_reason() + " (at " + position.where() + ")", ret);
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
    const std::int64_t pts = frame_->best_effort_timestamp;
    DecodeErrorPosition position{.frame = index, .pts = pts == AV_NOPTS_VALUE ? kNoPts : pts,
                                 .time_base = info_.time_base};
    if (frame_->width != info_.width || frame_->height != info_.height)
      fail_stream("the frame size changes from " + std::to_string(info_.width) + "x" + std::to_string(info_.height) +
                  " to " + std::to_string(frame_->width) + "x" + std::to_string(frame_->height) + " at " +
                  position.where() + "; a run handles one size (split the input where it changes)");
    if (frame_->decode_error_flags == 0 && (frame_->flags & AV_FRAME_FLAG_CORRUPT) == 0) return;
    position.reason = "decoded with errors concealed";
    if (on_error_ == OnDecodeError::Stop)
      fail_stream(position.where() + " " + position.reason + " (on_error: stop)");
    errors_.add_frame(std::move(position));
  }

  Frame acquire() {
    try {
      return pool_->acquire();
    } catch (const std::bad_alloc&) {
      throw frame_memory_error(uri_, info_.width, info_.height);
    }
  }

  // The frame has the pipeline's size (check_frame); only its pixel format may differ.
  Frame convert() {
    const auto format = static_cast<AVPixelFormat>(frame_->format);
    if (DecodeBuffers::takes(decoder_.get(), format)) return decoded_in_place();
    Frame out = acquire();
    stamp(out, frame_->best_effort_timestamp);
    if (format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P) {
      // Already I420 (full-range yuvj420p keeps its values): a plain copy, no swscale.
      for (int p = 0; p < 3; ++p) {
        Plane& plane = out.planes[p];
        av_image_copy_plane(plane.data, static_cast<int>(plane.pitch), frame_->data[p], frame_->linesize[p],
                            plane.width, plane.height);
      }
      return out;
    }
    // Other pixel formats (10-bit, 4:2:2, 4:4:4...): swscale to 8-bit I420. The context is
    // cached and rebuilt only when the input format changes.
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
  PlaneMemory memory_;
  // What software decoding decodes into. Declared before the decoder, whose threads may still
  // ask it for buffers while the decoder is being closed.
  DecodeBuffers buffers_{memory_};
  std::unique_ptr<ff::MemoryIo> io_;  // open_memory_source's bytes; outlives format_
  std::unique_ptr<ff::FdIo> file_io_;  // a confined file (SourceOptions::confined); outlives format_
  ff::InputFormatPtr format_;
  AVStream* stream_ = nullptr;
  const AVCodec* codec_ = nullptr;
  ff::CodecContextPtr decoder_;
  ff::PacketPtr packet_;
  ff::FramePtr frame_;
  ff::SwsPtr scaler_;
  std::optional<FramePool> pool_;  // frames converted from other pixel formats
  DecodeMode decode_mode_ = DecodeMode::Software;
  int cuda_device_ = -1;
  int frames_held_ = 8;
  std::unique_ptr<NvdecDevice> nvdec_;  // decode: auto|nvdec, when NVDEC can take the stream
  std::atomic<bool> on_nvdec_{false};   // frames come from NVDEC (get_format may change it)
  mutable std::mutex nvdec_mutex_;
  std::string nvdec_reason_;            // why NVDEC is not used (auto) or failed (nvdec)
  VideoInfo info_;
  OnDecodeError on_error_ = OnDecodeError::Skip;
  DecodeErrors errors_;
  std::int64_t frames_decoded_ = 0;
  PacketArrivals arrivals_;  // of the packets sent to the decoder, by pts
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
