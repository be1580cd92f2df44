// Lets libavcodec decode straight into framepipe's pooled planes (page-locked memory on a
// GPU run), so that a decoded yuv420p picture becomes a Frame without a copy: on a GPU run
// the copy into page-locked memory cost ~0.3 ms of the source thread per 1080p frame, a
// third of what one thread can decode. Other formats (and codecs that cannot decode into
// the caller's buffers) keep FFmpeg's own buffers and are copied or converted as before.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "core/frame_pool.hpp"

extern "C" {
struct AVCodecContext;
struct AVFrame;
}

namespace fp {

class DecodeBuffers {
 public:
  // Buffers come from `memory` (ordinary host memory when it names no allocator: then
  // aligned for FFmpeg's SIMD loads).
  explicit DecodeBuffers(const PlaneMemory& memory);
  DecodeBuffers(const DecodeBuffers&) = delete;
  DecodeBuffers& operator=(const DecodeBuffers&) = delete;

  // True when `decoder` decodes pictures of `format` (an AVPixelFormat) into these pools:
  // the rule get_buffer() follows, so that a decoded frame's planes can be taken as they are.
  static bool takes(const AVCodecContext* decoder, int format);

  // For AVCodecContext::get_buffer2 (FFmpeg calls it from its decoding threads: safe to call
  // from several at once). The frame's planes hold their pool buffers until FFmpeg's last
  // reference (the decoder's own, for prediction, and the Frame's) is gone.
  int get_buffer(AVCodecContext* decoder, AVFrame* frame, int flags) noexcept;

  // Called by whoever drops the last Frame reference to a picture decoded here, right
  // before freeing the AVFrame. FFmpeg may still hold the picture (a reference frame) and
  // free it later on one of its own threads, ordered after this one only by libavutil's
  // atomic reference count, which ThreadSanitizer cannot see; this tells it (and does
  // nothing in other builds).
  static void reader_done(const AVFrame* frame);

 private:
  FramePool& pool_for(int width, int height);

  PlaneMemory memory_;
  mutable std::mutex mutex_;
  std::map<std::pair<int, int>, std::unique_ptr<FramePool>> pools_;  // by padded luma size
};

}  // namespace fp
