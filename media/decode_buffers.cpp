#include "media/decode_buffers.hpp"

#include "media/plane_buffer.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/buffer.h>
}

namespace fp {

namespace {

// FFmpeg's widest SIMD loads and stores want 64-byte aligned rows (STRIDE_ALIGN with AVX-512).
constexpr std::size_t kAlignment = 64;

// Rows past the padded height: some motion-compensation routines read a row or two beyond a
// plane's last one (FFmpeg's own pool adds bytes at the end for the same reason).
constexpr int kSlackRows = 2;

}  // namespace

DecodeBuffers::DecodeBuffers(const PlaneMemory& memory) : memory_(memory) {
  memory_.row_alignment = std::max<std::ptrdiff_t>(memory_.row_alignment, kAlignment);
  if (!memory_.allocate) {
    memory_.allocate = [](std::size_t bytes) {
      return static_cast<std::uint8_t*>(::operator new[](bytes, std::align_val_t{kAlignment}));
    };
    memory_.release = [](std::uint8_t* p) { ::operator delete[](p, std::align_val_t{kAlignment}); };
  }
}

bool DecodeBuffers::takes(const AVCodecContext* decoder, int format) {
  // A decoder without DR1 must be given FFmpeg's default buffers (get_buffer2's contract).
  return decoder->codec != nullptr && (decoder->codec->capabilities & AV_CODEC_CAP_DR1) != 0 &&
         (format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P);
}

FramePool& DecodeBuffers::pool_for(int width, int height) {
  std::lock_guard lock(mutex_);
  auto& pool = pools_[{width, height}];
  if (!pool) pool = std::make_unique<FramePool>(width, height, memory_);
  return *pool;
}

int DecodeBuffers::get_buffer(AVCodecContext* decoder, AVFrame* frame, int flags) noexcept {
  if (!takes(decoder, frame->format)) return avcodec_default_get_buffer2(decoder, frame, flags);
  // The size the decoder may touch: the coded size rounded up to its macroblocks, and row
  // strides it can use with its SIMD routines.
  int width = frame->width;
  int height = frame->height;
  int stride_align[AV_NUM_DATA_POINTERS] = {};
  avcodec_align_dimensions2(decoder, &width, &height, stride_align);
  try {
    Frame pooled = pool_for(width, height + kSlackRows).acquire();
    for (int p = 0; p < 3; ++p) {
      Plane& plane = pooled.planes[p];
      // An allocator that gives less alignment than FFmpeg's routines assume: FFmpeg's own
      // buffers for this picture (read() then takes those as they are).
      const bool aligned = reinterpret_cast<std::uintptr_t>(plane.data) % kAlignment == 0 &&
                           (stride_align[p] <= 0 || plane.pitch % stride_align[p] == 0);
      if (!aligned) {
        for (int q = 0; q < p; ++q) av_buffer_unref(&frame->buf[q]);
        return avcodec_default_get_buffer2(decoder, frame, flags);
      }
      frame->buf[p] = lend_plane(plane, 0);
      if (frame->buf[p] == nullptr) {
        for (int q = 0; q < p; ++q) av_buffer_unref(&frame->buf[q]);
        return AVERROR(ENOMEM);
      }
      frame->data[p] = plane.data;
      frame->linesize[p] = static_cast<int>(plane.pitch);
    }
  } catch (...) {
    // Out of (page-locked) memory: the decoder reports the error for this picture.
    for (auto& buf : frame->buf) av_buffer_unref(&buf);
    return AVERROR(ENOMEM);
  }
  frame->extended_data = frame->data;
  return 0;
}

void DecodeBuffers::reader_done(const AVFrame* frame) { plane_buffers_released(frame); }

}  // namespace fp
