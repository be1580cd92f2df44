#include "media/plane_buffer.hpp"

#include <memory>

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

// FFmpeg's last reference is gone: the plane goes back to its pool.
void give_back(void* opaque, std::uint8_t* data) {
  tsan_acquire(data);
  delete static_cast<Plane*>(opaque);
}

}  // namespace

AVBufferRef* lend_plane(const Plane& plane, int flags) {
  auto lent = std::make_unique<Plane>(plane);
  const auto bytes = static_cast<std::size_t>(plane.pitch) * static_cast<std::size_t>(plane.height);
  AVBufferRef* buffer = av_buffer_create(plane.data, bytes, &give_back, lent.get(), flags);
  if (buffer != nullptr) lent.release();  // the buffer owns it now
  return buffer;
}

void plane_buffers_released(const AVFrame* frame) {
  for (const AVBufferRef* buf : frame->buf)
    if (buf != nullptr) tsan_release(buf->data);
}

}  // namespace fp
