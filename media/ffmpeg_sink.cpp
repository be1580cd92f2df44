// Encoded and raw outputs: libx264 (or NVENC: h264_nvenc, hevc_nvenc, auto) into
// mp4/matroska/mpegts files, an HLS playlist, or a network stream (MPEG-TS over UDP or SRT,
// RTSP publish); raw frames into .y4m.
//
// Network outputs: every blocking call (connect, write, trailer) has a deadline polled by
// FFmpeg's interrupt callback, so a receiver that stops reading fails that output within
// timeout_ms instead of stalling the run; a stop request (Ctrl-C) ends a connect at once.
//
// Odd sizes: H.264 crops in units of two luma samples for 4:2:0, so no 4:2:0 stream can be
// 641 pixels wide and libx264 refuses odd 4:2:0 sizes outright. An odd-sized output is
// therefore encoded as 4:4:4 (High 4:4:4 Predictive), where cropping is exact: it decodes
// to the very same size, and the source converts it back to I420. Even sizes stay 4:2:0.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "core/open_beneath.hpp"
#include "media/ffmpeg_common.hpp"
#include "media/io_deadline.hpp"
#include "media/lent_planes.hpp"
#include "media/media_error.hpp"
#include "media/output_target.hpp"
#include "media/stream_gaps.hpp"
#include "media/stream_uri.hpp"
#include "media/sinks.hpp"

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/mathematics.h>
}

namespace fp {

namespace {

// The nominal frame rate: the stream's own, else one implied by a frame-sized time base,
// else 30. Used for x264's rate control, the .y4m header, and to time frames without pts.
// The longest key-frame interval asked of an encoder, in frames (x264 takes up to 2^30):
// over an hour at 240 fps, so only a crafted frame rate ever meets it.
constexpr int kMaxKeyFrameInterval = 1 << 20;

Rational nominal_rate(const VideoInfo& info) {
  if (ff::positive(info.frame_rate)) return info.frame_rate;
  const Rational tb = info.time_base;
  if (ff::positive(tb) && std::int64_t{tb.num} * 1000 >= tb.den) return {tb.den, tb.num};  // at most 1000 fps
  return {30, 1};
}

class FfmpegSink final : public FrameSink {
 public:
  FfmpegSink(const SinkOptions& options, const VideoInfo& info)
      : path_(mask_credentials(options.path)),
        target_(parse_output_target(options.path)),
        raw_(target_.muxer == "yuv4mpegpipe"),
        width_(info.width),
        height_(info.height),
        frame_rate_(nominal_rate(info)),
        timeout_(options.network_timeout_ms),
        deadline_(is_network_output(target_.kind)),
        options_(options),
        gaps_(options.reconnect, options.on_reconnect) {
    if (width_ <= 0 || height_ <= 0)
      ff::fail(path_, "bad frame size " + std::to_string(width_) + "x" + std::to_string(height_));
    ff::global_init();
    create_muxer();
    // y4m stores no timestamps, only a frame rate taken from the stream time base.
    const Rational time_base = !raw_ && ff::positive(info.time_base) ? info.time_base : Rational{frame_rate_.den, frame_rate_.num};
    open_encoder(time_base);
    add_stream();
    allocate_buffers();
    open_output();
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
    if (!frame.valid() || frame.width != width_ || frame.height != height_)
      ff::fail(path_, "frame is " + std::to_string(frame.width) + "x" + std::to_string(frame.height) +
                          ", the output was opened for " + std::to_string(width_) + "x" + std::to_string(height_));
    const std::int64_t pts = next_pts(frame);
    // While the receiver is away the frame is not encoded: the stream resumes with a key
    // frame, which needs no earlier one.
    if (!connected() && !reconnect_when_due()) return;
    AVFrame* picture = picture_of(frame);
    picture->pts = pts;
    picture->pict_type = restart_with_key_frame_ ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
    restart_with_key_frame_ = false;
    const int sent = avcodec_send_frame(encoder_.get(), picture);
    if (picture == lent_.get()) {  // the encoder holds its own reference now, if it needs one
      lender_done(picture);
      av_frame_unref(picture);
    }
    if (sent < 0) ff::fail(path_, "encode error", sent);
    try {
      write_packets();
    } catch (const MediaError& e) {
      // An output that reconnects has lost its receiver, not failed: after Ctrl-C it simply
      // ends in the gap (no attempt is made once a stop is requested).
      if (!gaps_.policy().enabled()) throw;
      lose_receiver(e.what());
      return;
    }
    if (gaps_.policy().enabled()) gaps_.frame_passed(IoDeadline::Clock::now());
    ++frames_;
  }

  std::int64_t frames_lent() const override { return frames_lent_; }

  const ReconnectStats* reconnect_stats() const override {
    return gaps_.policy().enabled() ? &gaps_.stats() : nullptr;
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    try {
      finish();
    } catch (...) {
      release();
      throw;
    }
    release();
  }

  std::string encoder_name() const override {
    if (raw_) return "rawvideo (y4m)";
    if (!nvenc_.empty()) return nvenc_;
    return nvenc_refusal_.empty() ? "libx264" : "libx264 (NVENC: " + nvenc_refusal_ + ")";
  }
  std::int64_t frames_written() const override { return frames_; }

 private:
  bool connected() const { return format_ != nullptr; }
  bool stop_requested() const { return options_.stop != nullptr && options_.stop->load(); }

  // The receiver went away: the muxer is let go (its trailer frees what it holds; it fails,
  // the connection being gone) and the first attempt is scheduled.
  void lose_receiver(const std::string& reason) {
    with_deadline([&] { return av_write_trailer(format_.get()); });
    format_.reset();
    gaps_.lost(reason);
    schedule_attempt();
  }

  void schedule_attempt() {
    if (!gaps_.next_attempt()) {
      const int attempts = gaps_.policy().attempts;
      ff::fail(path_, "the receiver went away (" + gaps_.gap().reason + ") and could not be reached again in " +
                          std::to_string(attempts) + " attempt" + (attempts == 1 ? "" : "s") +
                          (gaps_.last_error().empty() ? "" : "; the last: " + gaps_.last_error()));
    }
    next_attempt_at_ = IoDeadline::Clock::now() + gaps_.delay_before_attempt();
  }

  // Connects again when the backoff has passed; true when the output is back.
  bool reconnect_when_due() {
    if (stop_requested() || IoDeadline::Clock::now() < next_attempt_at_) return false;
    try {
      create_muxer();
      add_stream();
      open_output();
    } catch (const MediaError& e) {
      format_.reset();
      if (stop_requested()) return false;
      gaps_.attempt_failed(e.what());
      schedule_attempt();
      return false;
    }
    gaps_.back();
    restart_with_key_frame_ = true;
    return true;
  }

  void create_muxer() {
    const char* muxer = target_.muxer.c_str();
    AVFormatContext* ctx = nullptr;
    const int ret = avformat_alloc_output_context2(&ctx, nullptr, muxer, target_.url.c_str());
    if (ret < 0 || ctx == nullptr)
      ff::fail(path_, std::string("cannot set up the ") + muxer + " muxer", ret < 0 ? ret : AVERROR(ENOMEM));
    format_.reset(ctx);
    // `this` is stable: sinks live on the heap behind the unique_ptr open_sink returns.
    format_->interrupt_callback = AVIOInterruptCB{&FfmpegSink::interrupt_callback, this};
  }

  // Polled by FFmpeg in every blocking call: a stop request ends a connect (the user gave
  // up on a receiver that does not answer), and a network call past its deadline fails.
  // Writes are not ended by a stop: Ctrl-C drains and finalizes every output.
  static int interrupt_callback(void* opaque) {
    auto* self = static_cast<FfmpegSink*>(opaque);
    if (self->connecting_ && self->stop_requested()) return 1;
    return self->deadline_.expired() ? 1 : 0;
  }

  // Runs one blocking step of a network output under the deadline; a step ended by it fails
  // with a message that says so.
  template <typename Step>
  int with_deadline(Step&& step) {
    deadline_.arm(timeout_);
    const int ret = step();
    deadline_.disarm();
    return ret;
  }
  [[noreturn]] void fail_io(const std::string& what, int errnum) const {
    if (deadline_.timed_out())
      ff::fail(path_, what + ": no progress within " + IoDeadline::seconds_text(timeout_) + " (timeout_ms)",
               AVERROR(ETIMEDOUT));
    ff::fail(path_, what, errnum);
  }

  // Key frames: x264's default (one at scene cuts, at most every 250 frames) suits a file.
  // A network stream has one every second, so that a receiver that joins late or lost
  // packets shows a picture within a second (with latency: low a sweep of intra blocks does
  // that instead). HLS cuts segments at key frames: one starts each segment.
  void set_key_frames(ff::DictionaryPtr& opts) {
    const SinkOptions& options = options_;
    const int one_second = frames_in(1.0);
    bool intra_refresh = options.low_latency;
    if (target_.kind == OutputKind::Hls) {
      encoder_->gop_size = frames_in(options.hls_segment_seconds);
      intra_refresh = false;
    } else if (options.low_latency || is_network_output(target_.kind)) {
      encoder_->gop_size = one_second;
    }
    if (intra_refresh)
      set_option(opts, "intra-refresh", "1");
    // A network output that reconnects restarts its stream with a key frame the receiver can
    // start from: an IDR, not just an I-frame.
    if (is_network_output(target_.kind))
      set_option(opts, "forced-idr", "1");
  }

  // Frames in `seconds` at the nominal rate, rounded: at least 1, at most kMaxKeyFrameInterval.
  // The rate is the input's own, which a crafted file sets to anything up to 2^31-1 fps; a
  // count past int's range converted to int would be undefined (in practice INT_MIN: every
  // frame a key frame), so the count is clamped while still a double.
  int frames_in(double seconds) const {
    const double frames = std::round(seconds * frame_rate_.value());
    return static_cast<int>(std::clamp(frames, 1.0, static_cast<double>(kMaxKeyFrameInterval)));
  }

  void open_encoder(Rational time_base) {
    const std::string& codec = options_.codec;
    if (raw_) {
      open_raw_encoder(time_base);
    } else if (codec == "h264_nvenc" || codec == "hevc_nvenc") {
      if (auto refusal = open_nvenc(codec, time_base); !refusal.empty()) ff::fail(path_, "cannot open encoder " + refusal);
    } else if (codec == "auto") {
      // No NVENC here (no such encoder in this FFmpeg, no NVIDIA driver, a GPU without one
      // such as the H100): libx264, and the encoder name says why.
      nvenc_refusal_ = open_nvenc("h264_nvenc", time_base);
      if (!nvenc_refusal_.empty()) open_x264(time_base);
    } else {
      open_x264(time_base);
    }
  }

  // The steps every encoder shares: its context for `codec` in `pix_fmt`, the stream's
  // size and timing, and (mp4, matroska: SPS/PPS once in the header; mpegts repeats them
  // in-band) a global header where the container wants one.
  void start_encoder(const AVCodec* codec, AVPixelFormat pix_fmt, Rational time_base) {
    encoder_.reset(avcodec_alloc_context3(codec));
    if (!encoder_) ff::fail(path_, "cannot allocate the encoder", AVERROR(ENOMEM));
    encoder_->pix_fmt = pix_fmt;
    set_common(time_base);
    if ((format_->oformat->flags & AVFMT_GLOBALHEADER) != 0) encoder_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  }

  void set_option(ff::DictionaryPtr& opts, const char* key, const char* value) {
    if (const int ret = ff::dict_set(opts, key, value); ret < 0) ff::fail(path_, std::string("bad ") + key, ret);
  }

  // latency: low for any H.264/HEVC encoder: no B-frames holding frames back, and every
  // packet handed to the file or network at once. (The encoder's own tuning is its caller's.)
  void set_low_latency() {
    encoder_->max_b_frames = 0;
    format_->flags |= AVFMT_FLAG_FLUSH_PACKETS;
  }

  // NVENC through FFmpeg's encoder, on frames from the host: FFmpeg uploads each frame to
  // the encoder itself. Quality as x264's crf (NVENC's constant-quality `cq`), speed from
  // x264's preset names mapped onto NVENC's p1 (fastest) .. p7. "" when it opened, else
  // "NAME: why not" (and no encoder is left open).
  std::string open_nvenc(const std::string& name, Rational time_base) {
    const SinkOptions& options = options_;
    const AVCodec* codec = avcodec_find_encoder_by_name(name.c_str());
    if (codec == nullptr) return name + ": not in this FFmpeg build";
    if ((width_ % 2) != 0 || (height_ % 2) != 0)
      return name + ": even sizes only (this output is " + std::to_string(width_) + "x" + std::to_string(height_) + ")";
    start_encoder(codec, AV_PIX_FMT_YUV420P, time_base);
    ff::DictionaryPtr opts;
    set_option(opts, "preset", nvenc_preset(options.preset));
    set_option(opts, "rc", "vbr");
    set_option(opts, "cq", std::to_string(options.crf).c_str());
    encoder_->bit_rate = 0;  // quality alone decides (cq), as x264's crf
    if (options.low_latency) {
      set_option(opts, "tune", "ull");
      set_option(opts, "zerolatency", "1");
      set_option(opts, "delay", "0");
      set_low_latency();
    }
    set_key_frames(opts);
    const int ret = ff::with_dictionary(opts, [&](AVDictionary** d) { return avcodec_open2(encoder_.get(), codec, d); });
    if (ret >= 0) ff::require_all_taken(path_, name, opts);
    if (ret < 0) {
      encoder_.reset();
      return name + ": no NVENC on this machine (no NVIDIA driver, or a GPU without a video encoder such as the H100): " +
             av_error_text(ret);
    }
    nvenc_ = name;
    return "";
  }

  static const char* nvenc_preset(const std::string& x264_preset) {
    if (x264_preset == "ultrafast" || x264_preset == "superfast") return "p1";
    if (x264_preset == "veryfast") return "p2";
    if (x264_preset == "faster") return "p3";
    if (x264_preset == "fast") return "p4";
    if (x264_preset == "medium") return "p5";
    if (x264_preset == "slow") return "p6";
    return "p7";
  }

  void open_x264(Rational time_base) {
    const SinkOptions& options = options_;
    if (options.crf < 0 || options.crf > 51) ff::fail(path_, "crf must be 0..51 (got " + std::to_string(options.crf) + ")");
    const AVCodec* codec = avcodec_find_encoder_by_name("libx264");
    if (codec == nullptr) ff::fail(path_, "cannot encode: this FFmpeg build has no libx264");
    const bool odd = (width_ % 2) != 0 || (height_ % 2) != 0;
    start_encoder(codec, odd ? AV_PIX_FMT_YUV444P : AV_PIX_FMT_YUV420P, time_base);
    encoder_->thread_count = 0;  // x264 picks its thread count from the cores

    ff::DictionaryPtr opts;
    const std::string crf = std::to_string(options.crf);
    set_option(opts, "preset", options.preset.c_str());
    set_option(opts, "crf", crf.c_str());
    if (options.low_latency) {
      // A frame in, its packet out: no lookahead or B-frames holding frames back. Instead of
      // a key frame every second (a frame several times the size of the others, which takes
      // that much longer to encode and to send, and delays the frames behind it), a column
      // of intra blocks sweeps the picture once a second (periodic intra refresh): a viewer
      // joining, or a receiver after a loss, has a whole picture within a second.
      set_option(opts, "tune", "zerolatency");
      set_low_latency();
    }
    set_key_frames(opts);
    const int ret = ff::with_dictionary(opts, [&](AVDictionary** d) { return avcodec_open2(encoder_.get(), codec, d); });
    if (ret < 0)
      ff::fail(path_, "cannot open encoder libx264 (preset '" + options.preset + "', crf " + crf + ")", ret);
    ff::require_all_taken(path_, "libx264", opts);
  }

  void open_raw_encoder(Rational time_base) {
    // The y4m muxer takes frames wrapped in packets (AV_CODEC_ID_WRAPPED_AVFRAME), not
    // rawvideo packets: the bytes on disk are the planes as given, bit for bit.
    const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_WRAPPED_AVFRAME);
    if (codec == nullptr) ff::fail(path_, "cannot write y4m: this FFmpeg build has no wrapped_avframe encoder");
    start_encoder(codec, AV_PIX_FMT_YUV420P, time_base);
    if (const int ret = avcodec_open2(encoder_.get(), codec, nullptr); ret < 0)
      ff::fail(path_, "cannot open the y4m writer", ret);
  }

  void set_common(Rational time_base) {
    encoder_->width = width_;
    encoder_->height = height_;
    // Encoder time base = the input's: pts pass through unchanged, and are rescaled once,
    // packet by packet, to whatever time base the muxer picks for the stream.
    encoder_->time_base = ff::to_av(time_base);
    encoder_->framerate = ff::to_av(frame_rate_);
    encoder_->sample_aspect_ratio = AVRational{1, 1};
    encoder_->field_order = AV_FIELD_PROGRESSIVE;
    frame_step_ = std::max<std::int64_t>(1, av_rescale_q(1, AVRational{frame_rate_.den, frame_rate_.num}, encoder_->time_base));
  }

  void add_stream() {
    stream_ = avformat_new_stream(format_.get(), nullptr);
    if (stream_ == nullptr) ff::fail(path_, "cannot add a stream", AVERROR(ENOMEM));
    if (const int ret = avcodec_parameters_from_context(stream_->codecpar, encoder_.get()); ret < 0)
      ff::fail(path_, "cannot set stream parameters", ret);
    stream_->time_base = encoder_->time_base;  // a hint: the muxer may choose another
    stream_->avg_frame_rate = encoder_->framerate;
    stream_->r_frame_rate = encoder_->framerate;
  }

  void allocate_buffers() {
    frame_.reset(av_frame_alloc());
    lent_.reset(av_frame_alloc());
    packet_.reset(av_packet_alloc());
    if (!frame_ || !lent_ || !packet_) ff::fail(path_, "cannot allocate frames", AVERROR(ENOMEM));
    frame_->format = encoder_->pix_fmt;
    frame_->width = width_;
    frame_->height = height_;
    if (const int ret = av_frame_get_buffer(frame_.get(), 0); ret < 0) ff::fail(path_, "cannot allocate frames", ret);
  }

  // Opens the file or connects to the receiver, then writes the header (for RTSP the
  // ANNOUNCE/RECORD handshake happens here).
  void open_output() {
    ff::DictionaryPtr muxer_options = muxer_settings();
    connecting_ = is_network_output(target_.kind);  // a file's header is written whatever comes
    if ((format_->oformat->flags & AVFMT_NOFILE) == 0) {
      const std::string url = options_.confined ? create_confined_file() : target_.url;
      auto open = [&] {
        return avio_open2(&format_->pb, url.c_str(), AVIO_FLAG_WRITE, &format_->interrupt_callback, nullptr);
      };
      // An SRT listener waits for its receiver to call, for as long as it takes (Ctrl-C ends it).
      const int ret = srt_listener() ? open() : with_deadline(open);
      if (ret < 0) fail_io(is_network_output(target_.kind) ? connect_failure() : "cannot create", ret);
    }
    const int ret = with_deadline([&] {
      return ff::with_dictionary(muxer_options, [&](AVDictionary** d) { return avformat_write_header(format_.get(), d); });
    });
    connecting_ = false;
    if (ret < 0) {
      const bool timed_out = deadline_.timed_out();
      discard_new_output();
      const std::string what = is_network_output(target_.kind) ? connect_failure() : "cannot write the header";
      if (timed_out) fail_io(what, ret);
      ff::fail(path_, what, ret);
    }
    try {
      ff::require_all_taken(path_, std::string("the ") + target_.muxer + " muxer", muxer_options);
    } catch (...) {
      discard_new_output();
      throw;
    }
  }

  // A service's output file, created beneath the output root (the name was checked when the
  // stream was accepted; a symlink swapped in since refuses). FFmpeg gets the file's /proc
  // magic link rather than an AVIOContext of ours: its file protocol then re-opens exactly
  // the inode held here (truncating what is already empty), and writing, seeking back for the
  // header, flushing, error reporting and closing stay FFmpeg's own, as for any other file.
  // The muxer was picked from the real name (target_.muxer), never from this one.
  std::string create_confined_file() {
    if (target_.kind != OutputKind::File)
      ff::fail(path_, "cannot create: a service writes files one by one beneath its output root, and an HLS playlist "
                      "writes and deletes segments by name (use .mp4, .mkv, .ts or .y4m)");
    try {
      created_ = create_within(target_.url, options_.confined->output_root);
    } catch (const std::system_error& e) {
      ff::fail(path_, std::string("cannot create: ") + e.what());  // e.what(): the path, the root, the reason
    }
    return "/proc/self/fd/" + std::to_string(created_.get());
  }

  // Leaves no unreadable stub behind when opening fails: the file was created just now, by us.
  void discard_new_output() {
    format_.reset();
    if (target_.kind != OutputKind::File) return;
    if (options_.confined) {
      remove_within(target_.url, options_.confined->output_root, created_);  // by name only if still ours
      return;
    }
    std::error_code ignored;
    std::filesystem::remove(target_.url, ignored);
  }

  bool srt_listener() const {
    return target_.kind == OutputKind::Srt && target_.url.find("mode=listener") != std::string::npos;
  }
  // libsrt says only "Input/output error" when nobody answers a caller.
  std::string connect_failure() const {
    if (target_.kind == OutputKind::Srt && !srt_listener())
      return "cannot connect (no SRT listener answered there; with ?mode=listener framepipe waits for the receiver "
             "to call instead)";
    return "cannot connect";
  }

  // The muxer's options: HLS segments and playlist, the RTSP transport.
  ff::DictionaryPtr muxer_settings() {
    const SinkOptions& options = options_;
    ff::DictionaryPtr opts;
    auto set = [&](const char* key, const std::string& value) { set_option(opts, key, value.c_str()); };
    if (target_.kind == OutputKind::Hls) {
      set("hls_time", fmt::format("{:g}", options.hls_segment_seconds));
      set("hls_list_size", std::to_string(options.hls_playlist_size));
      // A live playlist of a few segments deletes the older ones, so that a run of days
      // does not fill the disk; playlist_size 0 keeps every segment (a whole recording).
      // Segments start with a key frame and need none before them.
      set("hls_flags", options.hls_playlist_size > 0 ? "delete_segments+independent_segments" : "independent_segments");
    } else if (target_.kind == OutputKind::Rtsp) {
      set("rtsp_transport", target_.rtsp_over_udp ? "udp" : "tcp");
    }
    return opts;
  }

  // The picture to encode: `frame`'s planes by reference where the encoder takes them as
  // they are (media/lent_planes says when), else a copy into the encoder's own frame.
  AVFrame* picture_of(const Frame& frame) {
    if (lend_planes(frame, encoder_->pix_fmt, lent_.get())) {
      ++frames_lent_;
      return lent_.get();
    }
    // The encoder normally has released our buffer by now; if it still holds a reference,
    // FFmpeg gives us a fresh buffer rather than letting us overwrite a queued picture.
    if (const int ret = av_frame_make_writable(frame_.get()); ret < 0) ff::fail(path_, "cannot get a frame buffer", ret);
    fill_frame(frame);
    return frame_.get();
  }

  void fill_frame(const Frame& frame) {
    av_image_copy_plane(frame_->data[0], frame_->linesize[0], frame.planes[0].data, static_cast<int>(frame.planes[0].pitch),
                        width_, height_);
    if (encoder_->pix_fmt == AV_PIX_FMT_YUV420P) {
      for (int p = 1; p < 3; ++p)
        av_image_copy_plane(frame_->data[p], frame_->linesize[p], frame.planes[p].data,
                            static_cast<int>(frame.planes[p].pitch), chroma_width(width_), chroma_height(height_));
      return;
    }
    // 4:4:4 for odd sizes: each chroma sample covers its 2x2 block of luma positions.
    for (int p = 1; p < 3; ++p) {
      const ConstImageU8 src = frame.planes[p].cview();
      for (int y = 0; y < height_; ++y) {
        const std::uint8_t* in = src.row(y / 2);
        std::uint8_t* out = frame_->data[p] + static_cast<std::ptrdiff_t>(y) * frame_->linesize[p];
        for (int x = 0; x < width_; ++x) out[x] = in[x / 2];
      }
    }
  }

  std::int64_t next_pts(const Frame& frame) {
    std::int64_t pts = 0;
    if (raw_) {
      pts = frames_;  // y4m: frame n is at n / fps, whatever the source said
    } else if (frame.pts == kNoPts) {
      pts = last_pts_ == AV_NOPTS_VALUE ? 0 : last_pts_ + frame_step_;
    } else if (ff::positive(frame.time_base)) {
      pts = av_rescale_q(frame.pts, ff::to_av(frame.time_base), encoder_->time_base);
    } else {
      pts = frame.pts;
    }
    // Muxers refuse timestamps that do not increase; a repeated or stepped-back pts (a
    // live source's clock glitch) is nudged forward rather than failing the whole output.
    if (last_pts_ != AV_NOPTS_VALUE && pts <= last_pts_) pts = last_pts_ + 1;
    last_pts_ = pts;
    return pts;
  }

  void write_packets() {
    for (;;) {
      int ret = avcodec_receive_packet(encoder_.get(), packet_.get());
      if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return;
      if (ret < 0) ff::fail(path_, "encode error", ret);
      av_packet_rescale_ts(packet_.get(), encoder_->time_base, stream_->time_base);
      packet_->stream_index = stream_->index;
      // One stream needs no interleaving; av_write_frame also writes a y4m packet at once,
      // so the encoder's reference to our frame buffer is dropped before the next write.
      ret = with_deadline([&] { return av_write_frame(format_.get(), packet_.get()); });
      av_packet_unref(packet_.get());
      if (ret < 0) fail_io("cannot write", ret);
      check_io("cannot write");
    }
  }

  // Writes go through AVIOContext's buffer: a failed flush (a full disk) is only recorded
  // in pb->error, which some muxers never look at, so it is checked after each packet.
  void check_io(const char* what) {
    if (format_->pb != nullptr && format_->pb->error < 0) fail_io(what, format_->pb->error);
  }

  // Drains the encoder (x264 holds frames back for B-frames and lookahead), then writes the
  // trailer (the mp4 index lives there) and closes the file.
  void finish() {
    if (!connected()) {  // the run ended while the receiver was away: nothing to finalize
      gaps_.end();
      return;
    }
    // The trailer is written even when draining the encoder failed: it finalizes what can
    // be (a file's index), and it is where a muxer frees its own state (RTSP's RTP muxers,
    // which avformat_free_context does not free). The first error is the one reported.
    std::exception_ptr drain_error;
    try {
      if (const int ret = avcodec_send_frame(encoder_.get(), nullptr); ret < 0 && ret != AVERROR_EOF)
        ff::fail(path_, "encode error", ret);
      write_packets();
    } catch (...) {
      drain_error = std::current_exception();
    }
    const int trailer = with_deadline([&] { return av_write_trailer(format_.get()); });
    if (drain_error) std::rethrow_exception(drain_error);
    if (trailer < 0) fail_io("cannot finalize", trailer);
    check_io("cannot finalize");
    if ((format_->oformat->flags & AVFMT_NOFILE) == 0) {
      if (const int ret = with_deadline([&] { return avio_closep(&format_->pb); }); ret < 0) fail_io("cannot close", ret);
    }
  }

  void release() {
    format_.reset();
    encoder_.reset();
    frame_.reset();
    lent_.reset();
    packet_.reset();
  }

  std::string path_;  // names the output in messages (without a password)
  std::string nvenc_;          // the NVENC encoder in use, or empty
  std::string nvenc_refusal_;  // codec auto: why NVENC did not open (then libx264)
  OutputTarget target_;
  bool raw_;
  int width_;
  int height_;
  Rational frame_rate_;
  std::chrono::milliseconds timeout_;        // of each blocking network call
  IoDeadline deadline_;                      // of the current one (files: none)
  bool connecting_ = false;                  // a stop request ends the wait
  SinkOptions options_;                      // as opened: connecting again opens the same way
  StreamGaps gaps_;                          // a network output's lost receivers
  IoDeadline::Clock::time_point next_attempt_at_{};
  bool restart_with_key_frame_ = false;
  UniqueFd created_;  // a confined output file, as created beneath the output root
  ff::OutputFormatPtr format_;
  ff::CodecContextPtr encoder_;
  AVStream* stream_ = nullptr;
  ff::FramePtr frame_;  // the encoder's own picture, for frames that must be copied
  ff::FramePtr lent_;   // a picture of the caller's planes, by reference (between writes: empty)
  std::int64_t frames_lent_ = 0;
  ff::PacketPtr packet_;
  std::int64_t frame_step_ = 1;
  std::int64_t last_pts_ = AV_NOPTS_VALUE;
  std::int64_t frames_ = 0;
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<FrameSink> open_ffmpeg_sink(const SinkOptions& options, const VideoInfo& info) {
  return std::make_unique<FfmpegSink>(options, info);
}

}  // namespace fp
