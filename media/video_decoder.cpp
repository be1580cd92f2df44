#include "media/video_decoder.hpp"

#include <chrono>
#include <new>

#include "media/ffmpeg_common.hpp"
#include "media/hw_decode.hpp"
#include "media/media_error.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
}

namespace fp {

namespace {

// Frame threads for NVDEC on files (see set_up_nvdec).
constexpr int kNvdecFrameThreads = 4;

}  // namespace

VideoDecoder::VideoDecoder(std::string name, const AVStream& stream, const AVCodec* codec,
                           const DecoderSettings& settings)
    : uri_(std::move(name)),
      stream_(&stream),
      codec_(codec),
      memory_(settings.memory),
      time_base_(ff::to_rational(stream.time_base)),
      mode_(settings.mode),
      cuda_device_(settings.cuda_device),
      frames_held_(settings.frames_held),
      on_error_(settings.on_error) {
  decoder_.reset(avcodec_alloc_context3(codec_));
  if (!decoder_) ff::fail(uri_, "cannot allocate a decoder", AVERROR(ENOMEM));
  if (const int ret = avcodec_parameters_to_context(decoder_.get(), stream_->codecpar); ret < 0)
    fail("bad codec parameters", ret);
  decoder_->pkt_timebase = stream_->time_base;
  decoder_->thread_count = settings.limits.threads;  // 0: one per core
  if (settings.limits.max_pixels > 0) decoder_->max_pixels = settings.limits.max_pixels;
  // Frame threads decode several frames at once (throughput, for files); each thread adds
  // a frame of delay, so live sources use slice threads only.
  decoder_->thread_type = settings.live ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE;
  // Check the checksums that codecs carry, so that damage is found rather than decoded.
  // Not AV_EF_EXPLODE or the strict checks: those turn small deviations from the spec in
  // otherwise playable streams into errors. Damaged frames are concealed (error
  // resilience is on by default with frame threads) and counted through their flags.
  // AV_CODEC_FLAG2_SHOW_ALL stays off: frames before the first keyframe are gray guesses.
  decoder_->err_recognition |= AV_EF_CRCCHECK;
  decoder_->opaque = this;
  decoder_->get_buffer2 = &VideoDecoder::get_buffer;
  set_up_nvdec();
  if (const int ret = avcodec_open2(decoder_.get(), codec_, nullptr); ret < 0)
    fail(std::string("cannot open decoder ") + codec_->name, ret);

  width_ = decoder_->width;
  height_ = decoder_->height;
  if (width_ <= 0 || height_ <= 0) fail("unknown frame size", AVERROR_INVALIDDATA);
  pool_.emplace(width_, height_, memory_);
  frame_.reset(av_frame_alloc());
  if (!frame_) ff::fail(uri_, "cannot allocate frames", AVERROR(ENOMEM));
}

std::string VideoDecoder::stream_name() const {
  return "stream #" + std::to_string(stream_->index) + " (" + avcodec_get_name(stream_->codecpar->codec_id) + ")";
}

void VideoDecoder::fail(const std::string& what, int errnum) const {
  ff::fail(uri_, stream_name() + ": " + what, errnum);
}

void VideoDecoder::fail(const std::string& what) const { ff::fail(uri_, stream_name() + ": " + what); }

std::string VideoDecoder::description() const {
  return decoder_description(codec_, on_nvdec_.load(), on_nvdec_.load() ? std::string() : nvdec_reason());
}

// decode: auto|nvdec. What rules NVDEC out here fails the open under nvdec; under auto the
// stream is decoded in software and description() says why.
void VideoDecoder::set_up_nvdec() {
  if (mode_ == DecodeMode::Software) return;
  std::string reason = nvdec_unsupported_reason(codec_, *stream_->codecpar);
  // NVDEC conceals damage without saying so (no frame comes out flagged), so a run that
  // must stop at the first damaged frame is decoded where damage is seen.
  if (reason.empty() && mode_ == DecodeMode::Auto && on_error_ == OnDecodeError::Stop)
    reason = "on_error: stop needs the software decoder's reports of damaged frames";
  if (reason.empty()) {
    try {
      nvdec_ = open_nvdec_device(cuda_device_);
    } catch (const MediaError& e) {
      reason = e.what();
    }
  }
  if (!reason.empty()) {
    if (mode_ == DecodeMode::Nvdec) fail("decode: nvdec: " + reason);
    set_nvdec_reason(std::move(reason));
    return;
  }
  decoder_->hw_device_ctx = av_buffer_ref(nvdec_->context());
  if (decoder_->hw_device_ctx == nullptr) fail("cannot use the GPU for decoding", AVERROR(ENOMEM));
  decoder_->get_format = &VideoDecoder::choose_format;
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
AVPixelFormat VideoDecoder::choose_format(AVCodecContext* context, const AVPixelFormat* formats) noexcept {
  auto* self = static_cast<VideoDecoder*>(context->opaque);
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
  return self->mode_ == DecodeMode::Nvdec ? AV_PIX_FMT_NONE : software;
}

int VideoDecoder::get_buffer(AVCodecContext* context, AVFrame* frame, int flags) noexcept {
  return static_cast<VideoDecoder*>(context->opaque)->buffers_.get_buffer(context, frame, flags);
}

std::string VideoDecoder::nvdec_reason() const {
  std::lock_guard lock(nvdec_mutex_);
  return nvdec_reason_;
}

void VideoDecoder::set_nvdec_reason(std::string reason) {
  std::lock_guard lock(nvdec_mutex_);
  nvdec_reason_ = std::move(reason);
}

int VideoDecoder::send(const AVPacket& packet) {
  if (packet.pts != AV_NOPTS_VALUE) arrivals_.add(packet.pts, std::chrono::steady_clock::now());
  return avcodec_send_packet(decoder_.get(), &packet);
}

void VideoDecoder::flush() {
  if (const int ret = avcodec_send_packet(decoder_.get(), nullptr); ret < 0 && ret != AVERROR_EOF)
    fail("decode error", ret);
}

int VideoDecoder::receive() { return avcodec_receive_frame(decoder_.get(), frame_.get()); }

Frame VideoDecoder::take_frame() {
  Frame out = frame_->format == AV_PIX_FMT_CUDA ? device_frame() : convert();
  av_frame_unref(frame_.get());
  return out;
}

// A frame decoded on NVDEC: its device planes, read where they lie (the AVFrame stays
// referenced by the planes until the last reader lets go), ready once the copy FFmpeg
// enqueued on the device's stream is done.
Frame VideoDecoder::device_frame() {
  const auto* frames = reinterpret_cast<const AVHWFramesContext*>(frame_->hw_frames_ctx->data);
  if (frames->sw_format != AV_PIX_FMT_NV12) {
    const char* name = av_get_pix_fmt_name(frames->sw_format);
    fail(std::string("NVDEC gave ") + (name != nullptr ? name : "unknown") + " frames, not NV12");
  }
  const std::shared_ptr<AVFrame> held = hold_received();
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
Frame VideoDecoder::decoded_in_place() {
  const std::shared_ptr<AVFrame> held = hold_received();
  Frame out;
  out.width = width_;
  out.height = height_;
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
std::shared_ptr<AVFrame> VideoDecoder::hold_received() {
  std::shared_ptr<AVFrame> held(
      av_frame_alloc(),
      [](AVFrame* f) {
        DecodeBuffers::reader_done(f);
        av_frame_free(&f);
      },
      RecyclingAllocator<AVFrame>(held_blocks_));
  if (!held) fail("cannot allocate frames", AVERROR(ENOMEM));
  av_frame_move_ref(held.get(), frame_.get());
  return held;
}

void VideoDecoder::stamp(Frame& out, std::int64_t pts) {
  out.pts = pts == AV_NOPTS_VALUE ? kNoPts : pts;
  out.time_base = time_base_;
  out.arrival = pts == AV_NOPTS_VALUE ? std::chrono::steady_clock::now() : arrivals_.take(pts);
}

Frame VideoDecoder::acquire() {
  try {
    return pool_->acquire();
  } catch (const std::bad_alloc&) {
    throw frame_memory_error(uri_, width_, height_);
  }
}

// The frame has the stream's size (the source checked); only its pixel format may differ.
Frame VideoDecoder::convert() {
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
  scaler_.reset(sws_getCachedContext(scaler_.release(), frame_->width, frame_->height, format, width_, height_,
                                     AV_PIX_FMT_YUV420P, SWS_BILINEAR, nullptr, nullptr, nullptr));
  if (!scaler_) {
    const char* name = av_get_pix_fmt_name(format);
    fail(std::string("cannot convert ") + (name != nullptr ? name : "unknown pixel format") + " to yuv420p",
         AVERROR(EINVAL));
  }
  std::uint8_t* const dst[4] = {out.planes[0].data, out.planes[1].data, out.planes[2].data, nullptr};
  const int dst_stride[4] = {static_cast<int>(out.planes[0].pitch), static_cast<int>(out.planes[1].pitch),
                             static_cast<int>(out.planes[2].pitch), 0};
  if (const int rows = sws_scale(scaler_.get(), frame_->data, frame_->linesize, 0, frame_->height, dst, dst_stride);
      rows <= 0)
    fail("pixel format conversion failed", rows < 0 ? rows : AVERROR(EINVAL));
  return out;
}

}  // namespace fp
