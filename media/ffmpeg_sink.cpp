// Encoded and raw outputs: libx264 into mp4/matroska/mpegts, or raw frames into .y4m.
//
// Odd sizes: H.264 crops in units of two luma samples for 4:2:0, so no 4:2:0 stream can be
// 641 pixels wide and libx264 refuses odd 4:2:0 sizes outright. An odd-sized output is
// therefore encoded as 4:4:4 (High 4:4:4 Predictive), where cropping is exact: it decodes
// to the very same size, and the source converts it back to I420. Even sizes stay 4:2:0.
#include <algorithm>
#include <filesystem>

#include "media/ffmpeg_common.hpp"
#include "media/sinks.hpp"

extern "C" {
#include <libavutil/imgutils.h>
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

class FfmpegSink final : public FrameSink {
 public:
  FfmpegSink(const SinkOptions& options, const VideoInfo& info)
      : path_(options.path),
        raw_(output_extension(options.path) == ".y4m"),
        width_(info.width),
        height_(info.height),
        frame_rate_(nominal_rate(info)) {
    if (width_ <= 0 || height_ <= 0)
      ff::fail(path_, "bad frame size " + std::to_string(width_) + "x" + std::to_string(height_));
    ff::global_init();
    create_muxer();
    // y4m stores no timestamps, only a frame rate taken from the stream time base.
    const Rational time_base = !raw_ && ff::positive(info.time_base) ? info.time_base : Rational{frame_rate_.den, frame_rate_.num};
    if (raw_)
      open_raw_encoder(time_base);
    else
      open_x264(options, time_base);
    add_stream();
    allocate_buffers();
    open_file();
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
    // The encoder normally has released our buffer by now; if it still holds a reference,
    // FFmpeg gives us a fresh buffer rather than letting us overwrite a queued picture.
    if (const int ret = av_frame_make_writable(frame_.get()); ret < 0) ff::fail(path_, "cannot get a frame buffer", ret);
    fill_frame(frame);
    frame_->pts = next_pts(frame);
    if (const int ret = avcodec_send_frame(encoder_.get(), frame_.get()); ret < 0) ff::fail(path_, "encode error", ret);
    write_packets();
    ++frames_;
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

  std::string encoder_name() const override { return raw_ ? "rawvideo (y4m)" : "libx264"; }
  std::int64_t frames_written() const override { return frames_; }

 private:
  void create_muxer() {
    const std::string ext = output_extension(path_);
    const char* muxer = ext == ".mp4" ? "mp4" : ext == ".mkv" ? "matroska" : ext == ".ts" ? "mpegts" : "yuv4mpegpipe";
    AVFormatContext* ctx = nullptr;
    if (const int ret = avformat_alloc_output_context2(&ctx, nullptr, muxer, path_.c_str()); ret < 0 || ctx == nullptr)
      ff::fail(path_, std::string("cannot set up the ") + muxer + " muxer", ret < 0 ? ret : AVERROR(ENOMEM));
    format_.reset(ctx);
  }

  void open_x264(const SinkOptions& options, Rational time_base) {
    if (options.crf < 0 || options.crf > 51) ff::fail(path_, "crf must be 0..51 (got " + std::to_string(options.crf) + ")");
    const AVCodec* codec = avcodec_find_encoder_by_name("libx264");
    if (codec == nullptr) ff::fail(path_, "cannot encode: this FFmpeg build has no libx264");
    encoder_.reset(avcodec_alloc_context3(codec));
    if (!encoder_) ff::fail(path_, "cannot allocate the encoder", AVERROR(ENOMEM));
    const bool odd = (width_ % 2) != 0 || (height_ % 2) != 0;
    encoder_->pix_fmt = odd ? AV_PIX_FMT_YUV444P : AV_PIX_FMT_YUV420P;
    set_common(time_base);
    encoder_->thread_count = 0;  // x264 picks its thread count from the cores
    // mp4 and matroska carry SPS/PPS once in the header; mpegts repeats them in-band.
    if ((format_->oformat->flags & AVFMT_GLOBALHEADER) != 0) encoder_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;

    ff::DictionaryPtr opts;
    const std::string crf = std::to_string(options.crf);
    if (const int ret = ff::dict_set(opts, "preset", options.preset.c_str()); ret < 0) ff::fail(path_, "bad preset", ret);
    if (const int ret = ff::dict_set(opts, "crf", crf.c_str()); ret < 0) ff::fail(path_, "bad crf", ret);
    if (options.low_latency) {
      // A frame in, its packet out: no lookahead or B-frames holding frames back. Instead of
      // a key frame every second (a frame several times the size of the others, which takes
      // that much longer to encode and to send, and delays the frames behind it), a column
      // of intra blocks sweeps the picture once a second (periodic intra refresh): a viewer
      // joining, or a receiver after a loss, has a whole picture within a second.
      if (const int ret = ff::dict_set(opts, "tune", "zerolatency"); ret < 0) ff::fail(path_, "bad tune", ret);
      if (const int ret = ff::dict_set(opts, "intra-refresh", "1"); ret < 0) ff::fail(path_, "bad intra-refresh", ret);
      encoder_->max_b_frames = 0;
      encoder_->gop_size = std::max(1, static_cast<int>(frame_rate_.value() + 0.5));
      format_->flags |= AVFMT_FLAG_FLUSH_PACKETS;
    }
    const int ret = ff::with_dictionary(opts, [&](AVDictionary** d) { return avcodec_open2(encoder_.get(), codec, d); });
    if (ret < 0)
      ff::fail(path_, "cannot open encoder libx264 (preset '" + options.preset + "', crf " + crf + ")", ret);
  }

  void open_raw_encoder(Rational time_base) {
    // The y4m muxer takes frames wrapped in packets (AV_CODEC_ID_WRAPPED_AVFRAME), not
    // rawvideo packets: the bytes on disk are the planes as given, bit for bit.
    const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_WRAPPED_AVFRAME);
    if (codec == nullptr) ff::fail(path_, "cannot write y4m: this FFmpeg build has no wrapped_avframe encoder");
    encoder_.reset(avcodec_alloc_context3(codec));
    if (!encoder_) ff::fail(path_, "cannot allocate the encoder", AVERROR(ENOMEM));
    encoder_->pix_fmt = AV_PIX_FMT_YUV420P;
    set_common(time_base);
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
    packet_.reset(av_packet_alloc());
    if (!frame_ || !packet_) ff::fail(path_, "cannot allocate frames", AVERROR(ENOMEM));
    frame_->format = encoder_->pix_fmt;
    frame_->width = width_;
    frame_->height = height_;
    if (const int ret = av_frame_get_buffer(frame_.get(), 0); ret < 0) ff::fail(path_, "cannot allocate frames", ret);
  }

  void open_file() {
    if ((format_->oformat->flags & AVFMT_NOFILE) == 0) {
      if (const int ret = avio_open(&format_->pb, path_.c_str(), AVIO_FLAG_WRITE); ret < 0)
        ff::fail(path_, "cannot create", ret);
    }
    if (const int ret = avformat_write_header(format_.get(), nullptr); ret < 0) {
      // Leave no unreadable stub behind: the file was created just now, by us.
      format_.reset();
      std::error_code ignored;
      std::filesystem::remove(path_, ignored);
      ff::fail(path_, "cannot write the header", ret);
    }
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
      ret = av_write_frame(format_.get(), packet_.get());
      av_packet_unref(packet_.get());
      if (ret < 0) ff::fail(path_, "cannot write", ret);
      check_io("cannot write");
    }
  }

  // Writes go through AVIOContext's buffer: a failed flush (a full disk) is only recorded
  // in pb->error, which some muxers never look at, so it is checked after each packet.
  void check_io(const char* what) {
    if (format_->pb != nullptr && format_->pb->error < 0) ff::fail(path_, what, format_->pb->error);
  }

  // Drains the encoder (x264 holds frames back for B-frames and lookahead), then writes the
  // trailer (the mp4 index lives there) and closes the file.
  void finish() {
    if (const int ret = avcodec_send_frame(encoder_.get(), nullptr); ret < 0 && ret != AVERROR_EOF)
      ff::fail(path_, "encode error", ret);
    write_packets();
    if (const int ret = av_write_trailer(format_.get()); ret < 0) ff::fail(path_, "cannot finalize", ret);
    check_io("cannot finalize");
    if ((format_->oformat->flags & AVFMT_NOFILE) == 0) {
      if (const int ret = avio_closep(&format_->pb); ret < 0) ff::fail(path_, "cannot close", ret);
    }
  }

  void release() {
    format_.reset();
    encoder_.reset();
    frame_.reset();
    packet_.reset();
  }

  std::string path_;
  bool raw_;
  int width_;
  int height_;
  Rational frame_rate_;
  ff::OutputFormatPtr format_;
  ff::CodecContextPtr encoder_;
  AVStream* stream_ = nullptr;
  ff::FramePtr frame_;
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
