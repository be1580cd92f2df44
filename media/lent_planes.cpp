#include "media/lent_planes.hpp"

#include <cstdint>
#include <limits>
#include <memory>

extern "C" {
#include <libavutil/buffer.h>
#include <libavutil/cpu.h>
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

namespace fp {

namespace {

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* address);
extern "C" void __tsan_release(void* address);
void tsan_acquire(void* address) { __tsan_acquire(address); }
void tsan_release(void* address) { __tsan_release(address); }
#else
void tsan_acquire(void*) {}
void tsan_release(void*) {}
#endif

// The encoder's last reference is gone: the plane goes back to whoever owns it.
void give_back(void* opaque, std::uint8_t* data) {
  tsan_acquire(data);
  delete static_cast<Plane*>(opaque);
}

bool aligned(const Plane& plane, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(plane.data) % alignment == 0 && plane.pitch > 0 &&
         static_cast<std::size_t>(plane.pitch) % alignment == 0 && plane.pitch <= std::numeric_limits<int>::max();
}

}  // namespace

bool lend_planes(const Frame& frame, int pix_fmt, AVFrame* out) {
  av_frame_unref(out);
  if (pix_fmt != AV_PIX_FMT_YUV420P || frame.location != MemoryLocation::Host || frame.layout != PlaneLayout::I420)
    return false;
  const std::size_t alignment = av_cpu_max_align();
  for (const Plane& plane : frame.planes)
    if (plane.data == nullptr || !aligned(plane, alignment)) return false;
  for (int p = 0; p < 3; ++p) {
    const Plane& plane = frame.planes[p];
    auto lent = std::make_unique<Plane>(plane);
    const auto bytes = static_cast<std::size_t>(plane.pitch) * static_cast<std::size_t>(plane.height);
    out->buf[p] = av_buffer_create(plane.data, bytes, &give_back, lent.get(), AV_BUFFER_FLAG_READONLY);
    if (out->buf[p] == nullptr) {
      av_frame_unref(out);
      return false;  // no memory for the reference: the copy may still find some
    }
    lent.release();  // the buffer owns it now
    out->data[p] = plane.data;
    out->linesize[p] = static_cast<int>(plane.pitch);
  }
  out->extended_data = out->data;
  out->format = pix_fmt;
  out->width = frame.width;
  out->height = frame.height;
  return true;
}

void lender_done(const AVFrame* frame) {
  for (const AVBufferRef* buf : frame->buf)
    if (buf != nullptr) tsan_release(buf->data);
}

}  // namespace fp
