#include "media/video_encoder.hpp"

#include <algorithm>
#include <cmath>

#include "core/interleaved_chroma.hpp"
#include "media/ffmpeg_common.hpp"
#include "media/lent_planes.hpp"
#include "media/media_error.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

namespace fp {

namespace {

// The longest key-frame interval asked of an encoder, in frames (x264 takes up to 2^30):
// over an hour at 240 fps, so only a crafted frame rate ever meets it.
constexpr int kMaxKeyFrameInterval = 1 << 20;

const char* nvenc_preset(const std::string& x264_preset) {
  if (x264_preset == "ultrafast" || x264_preset == "superfast") return "p1";
  if (x264_preset == "veryfast") return "p2";
  if (x264_preset == "faster") return "p3";
  if (x264_preset == "fast") return "p4";
  if (x264_preset == "medium") return "p5";
  if (x264_preset == "slow") return "p6";
  return "p7";
}

}  // namespace

VideoEncoder::VideoEncoder(std::string name, const SinkOptions& options, const EncodedVideo& video, bool global_header)
    : path_(std::move(name)), video_(video), global_header_(global_header) {
  open(options);
  allocate_buffers();
}

std::string VideoEncoder::name() const {
  if (video_.raw) return "rawvideo (y4m)";
  if (!nvenc_.empty()) return nvenc_;
  return nvenc_refusal_.empty() ? "libx264" : "libx264 (NVENC: " + nvenc_refusal_ + ")";
}

void VideoEncoder::open(const SinkOptions& options) {
  const std::string& codec = options.codec;
  if (video_.raw) {
    open_raw_encoder();
  } else if (codec == "h264_nvenc" || codec == "hevc_nvenc") {
    if (auto refusal = open_nvenc(codec, options); !refusal.empty()) ff::fail(path_, "cannot open encoder " + refusal);
  } else if (codec == "auto") {
    // No NVENC here (no such encoder in this FFmpeg, no NVIDIA driver, a GPU without one
    // such as the H100): libx264, and the encoder name says why.
    nvenc_refusal_ = open_nvenc("h264_nvenc", options);
    if (!nvenc_refusal_.empty()) open_x264(options);
  } else {
    open_x264(options);
  }
}

// The steps every encoder shares: its context for `codec` in `pix_fmt`, the stream's size
// and timing, and (mp4, matroska: SPS/PPS once in the header; mpegts repeats them in-band)
// a global header where the container wants one.
void VideoEncoder::start_encoder(const AVCodec* codec, AVPixelFormat pix_fmt) {
  encoder_.reset(avcodec_alloc_context3(codec));
  if (!encoder_) ff::fail(path_, "cannot allocate the encoder", AVERROR(ENOMEM));
  encoder_->pix_fmt = pix_fmt;
  encoder_->width = video_.width;
  encoder_->height = video_.height;
  // Encoder time base = the input's: pts pass through unchanged, and are rescaled once,
  // packet by packet, to whatever time base the muxer picks for the stream.
  encoder_->time_base = ff::to_av(video_.time_base);
  encoder_->framerate = ff::to_av(video_.frame_rate);
  encoder_->sample_aspect_ratio = AVRational{1, 1};
  encoder_->field_order = AV_FIELD_PROGRESSIVE;
  if (global_header_) encoder_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
}

// latency: low for any H.264/HEVC encoder: no B-frames holding frames back. (The encoder's
// own tuning is its caller's; the muxer hands every packet on at once, see MuxedOutput.)
void VideoEncoder::set_low_latency() { encoder_->max_b_frames = 0; }

// Key frames: x264's default (one at scene cuts, at most every 250 frames) suits a file. A
// network stream has one every second, so that a receiver that joins late or lost packets
// shows a picture within a second (with latency: low a sweep of intra blocks does that
// instead). HLS cuts segments at key frames: one starts each segment.
void VideoEncoder::set_key_frames(const SinkOptions& options, ff::DictionaryPtr& opts) {
  const int one_second = frames_in(1.0);
  bool intra_refresh = options.low_latency;
  if (video_.kind == OutputKind::Hls) {
    encoder_->gop_size = frames_in(options.hls_segment_seconds);
    intra_refresh = false;
  } else if (options.low_latency || is_network_output(video_.kind)) {
    encoder_->gop_size = one_second;
  }
  if (intra_refresh)
    ff::set_option(path_, opts, "intra-refresh", "1");
  // A network output that reconnects restarts its stream with a key frame the receiver can
  // start from: an IDR, not just an I-frame.
  if (is_network_output(video_.kind))
    ff::set_option(path_, opts, "forced-idr", "1");
}

// Frames in `seconds` at the nominal rate, rounded: at least 1, at most kMaxKeyFrameInterval.
// The rate is the input's own, which a crafted file sets to anything up to 2^31-1 fps; a
// count past int's range converted to int would be undefined (in practice INT_MIN: every
// frame a key frame), so the count is clamped while still a double.
int VideoEncoder::frames_in(double seconds) const {
  const double frames = std::round(seconds * video_.frame_rate.value());
  return static_cast<int>(std::clamp(frames, 1.0, static_cast<double>(kMaxKeyFrameInterval)));
}

// NVENC through FFmpeg's encoder, on frames from the host: FFmpeg uploads each frame to the
// encoder itself. Quality as x264's crf (NVENC's constant-quality `cq`), speed from x264's
// preset names mapped onto NVENC's p1 (fastest) .. p7. "" when it opened, else "NAME: why
// not" (and no encoder is left open).
std::string VideoEncoder::open_nvenc(const std::string& name, const SinkOptions& options) {
  const AVCodec* codec = avcodec_find_encoder_by_name(name.c_str());
  if (codec == nullptr) return name + ": not in this FFmpeg build";
  if ((video_.width % 2) != 0 || (video_.height % 2) != 0)
    return name + ": even sizes only (this output is " + std::to_string(video_.width) + "x" +
           std::to_string(video_.height) + ")";
  start_encoder(codec, four_two_zero());
  ff::DictionaryPtr opts;
  ff::set_option(path_, opts, "preset", nvenc_preset(options.preset));
  ff::set_option(path_, opts, "rc", "vbr");
  ff::set_option(path_, opts, "cq", std::to_string(options.crf).c_str());
  encoder_->bit_rate = 0;  // quality alone decides (cq), as x264's crf
  if (options.low_latency) {
    ff::set_option(path_, opts, "tune", "ull");
    ff::set_option(path_, opts, "zerolatency", "1");
    ff::set_option(path_, opts, "delay", "0");
    set_low_latency();
  }
  set_key_frames(options, opts);
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

// 4:2:0 in the layout the frames come in: x264 and NVENC take NV12 as well as I420 (x264
// keeps its pictures in NV12, so an I420 frame costs it an interleaving copy).
AVPixelFormat VideoEncoder::four_two_zero() const {
  return video_.chroma_layout == PlaneLayout::NV12 ? AV_PIX_FMT_NV12 : AV_PIX_FMT_YUV420P;
}

void VideoEncoder::open_x264(const SinkOptions& options) {
  if (options.crf < 0 || options.crf > 51) ff::fail(path_, "crf must be 0..51 (got " + std::to_string(options.crf) + ")");
  const AVCodec* codec = avcodec_find_encoder_by_name("libx264");
  if (codec == nullptr) ff::fail(path_, "cannot encode: this FFmpeg build has no libx264");
  const bool odd = (video_.width % 2) != 0 || (video_.height % 2) != 0;
  start_encoder(codec, odd ? AV_PIX_FMT_YUV444P : four_two_zero());
  // Not x264's own choice (1.5 threads a core for every encoder): a share of the process's
  // cores among its encoders (media/encoder_threads.hpp).
  thread_lease_.emplace(EncoderThreadBudget::process().lease(options.threads));
  encoder_->thread_count = thread_lease_->threads();

  ff::DictionaryPtr opts;
  const std::string crf = std::to_string(options.crf);
  ff::set_option(path_, opts, "preset", options.preset.c_str());
  ff::set_option(path_, opts, "crf", crf.c_str());
  if (options.low_latency) {
    // A frame in, its packet out: no lookahead or B-frames holding frames back. Instead of
    // a key frame every second (a frame several times the size of the others, which takes
    // that much longer to encode and to send, and delays the frames behind it), a column
    // of intra blocks sweeps the picture once a second (periodic intra refresh): a viewer
    // joining, or a receiver after a loss, has a whole picture within a second.
    ff::set_option(path_, opts, "tune", "zerolatency");
    set_low_latency();
  }
  set_key_frames(options, opts);
  const int ret = ff::with_dictionary(opts, [&](AVDictionary** d) { return avcodec_open2(encoder_.get(), codec, d); });
  if (ret < 0)
    ff::fail(path_, "cannot open encoder libx264 (preset '" + options.preset + "', crf " + crf + ")", ret);
  ff::require_all_taken(path_, "libx264", opts);
}

void VideoEncoder::open_raw_encoder() {
  // The y4m muxer takes frames wrapped in packets (AV_CODEC_ID_WRAPPED_AVFRAME), not
  // rawvideo packets: the bytes on disk are the planes as given, bit for bit.
  const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_WRAPPED_AVFRAME);
  if (codec == nullptr) ff::fail(path_, "cannot write y4m: this FFmpeg build has no wrapped_avframe encoder");
  start_encoder(codec, AV_PIX_FMT_YUV420P);
  if (const int ret = avcodec_open2(encoder_.get(), codec, nullptr); ret < 0)
    ff::fail(path_, "cannot open the y4m writer", ret);
}

void VideoEncoder::allocate_buffers() {
  frame_.reset(av_frame_alloc());
  lent_.reset(av_frame_alloc());
  packet_.reset(av_packet_alloc());
  if (!frame_ || !lent_ || !packet_) ff::fail(path_, "cannot allocate frames", AVERROR(ENOMEM));
  frame_->format = encoder_->pix_fmt;
  frame_->width = video_.width;
  frame_->height = video_.height;
  if (const int ret = av_frame_get_buffer(frame_.get(), 0); ret < 0) ff::fail(path_, "cannot allocate frames", ret);
}

void VideoEncoder::send(const Frame& frame, std::int64_t pts) {
  AVFrame* picture = picture_of(frame);
  picture->pts = pts;
  picture->pict_type = key_frame_next_ ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
  key_frame_next_ = false;
  const int sent = avcodec_send_frame(encoder_.get(), picture);
  if (picture == lent_.get()) {  // the encoder holds its own reference now, if it needs one
    lender_done(picture);
    av_frame_unref(picture);
  }
  if (sent < 0) fail_encoding(sent);
}

void VideoEncoder::drain() {
  // A failed encoder is not asked again: libx264 whose allocation failed inside a frame
  // crashed in the flush (seen under a data limit, StreamJobsCli's memory test). The frames
  // it held are lost with it; the packets already written stay in the output.
  if (failed_) return;
  if (const int ret = avcodec_send_frame(encoder_.get(), nullptr); ret < 0 && ret != AVERROR_EOF) fail_encoding(ret);
}

AVPacket* VideoEncoder::receive_packet() {
  if (failed_) return nullptr;
  const int ret = avcodec_receive_packet(encoder_.get(), packet_.get());
  if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return nullptr;
  if (ret < 0) fail_encoding(ret);
  return packet_.get();
}

void VideoEncoder::fail_encoding(int error) {
  failed_ = true;
  ff::fail(path_, "encode error", error);
}

// The picture to encode: `frame`'s planes by reference where the encoder takes them as they
// are (media/lent_planes says when), else a copy into the encoder's own frame.
AVFrame* VideoEncoder::picture_of(const Frame& frame) {
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

void VideoEncoder::fill_frame(const Frame& frame) {
  const int width = video_.width;
  const int height = video_.height;
  av_image_copy_plane(frame_->data[0], frame_->linesize[0], frame.planes[0].data, static_cast<int>(frame.planes[0].pitch),
                      width, height);
  const int cw = chroma_width(width);
  const int ch = chroma_height(height);
  const bool nv12_in = frame.layout == PlaneLayout::NV12;
  const auto picture_plane = [&](int p, int w, int h) {
    return ImageU8{frame_->data[p], w, h, frame_->linesize[p]};
  };
  switch (encoder_->pix_fmt) {
    case AV_PIX_FMT_NV12: {
      const Plane uv{nullptr, frame_->data[1], cw, ch, frame_->linesize[1]};
      if (nv12_in)
        av_image_copy_plane(uv.data, static_cast<int>(uv.pitch), frame.planes[1].data,
                            static_cast<int>(frame.planes[1].pitch), 2 * cw, ch);
      else
        interleave_chroma(frame.planes[1].cview(), frame.planes[2].cview(), uv);
      return;
    }
    case AV_PIX_FMT_YUV420P:
      if (nv12_in) {
        deinterleave_chroma(frame.planes[1], picture_plane(1, cw, ch), picture_plane(2, cw, ch));
        return;
      }
      for (int p = 1; p < 3; ++p)
        av_image_copy_plane(frame_->data[p], frame_->linesize[p], frame.planes[p].data,
                            static_cast<int>(frame.planes[p].pitch), cw, ch);
      return;
    default:
      break;
  }
  // 4:4:4 for odd sizes: each chroma sample covers its 2x2 block of luma positions.
  for (int p = 1; p < 3; ++p) {
    // Sample x of a chroma row: byte x of its plane, or of the pairs, byte 2x (U) or 2x+1 (V).
    const ConstImageU8 src = nv12_in ? frame.planes[1].cview() : frame.planes[p].cview();
    const int step = nv12_in ? 2 : 1;
    const int first = nv12_in ? p - 1 : 0;
    for (int y = 0; y < height; ++y) {
      const std::uint8_t* in = src.row(y / 2) + first;
      std::uint8_t* out = frame_->data[p] + static_cast<std::ptrdiff_t>(y) * frame_->linesize[p];
      for (int x = 0; x < width; ++x) out[x] = in[x / 2 * step];
    }
  }
}

void VideoEncoder::close() {
  // libx264 after a failed frame can wait for ever in x264_encoder_close, joining its
  // lookahead threads that wait on a condition nothing signals any more (seen under a data
  // limit, after "malloc of size ... failed"). Its context is left behind instead: memory
  // and idle threads, once per failed output, where closing it could hang the stream.
  if (failed_ && thread_lease_) (void)encoder_.release();
  encoder_.reset();
  frame_.reset();
  lent_.reset();
  packet_.reset();
  thread_lease_.reset();  // its threads have ended with it
}

}  // namespace fp
