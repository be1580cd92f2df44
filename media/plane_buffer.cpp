#include "media/plane_buffer.hpp"

#include <memory>
#include <new>

#include "core/block_recycler.hpp"
#include "core/sanitizers.hpp"

namespace fp {

namespace {

#if defined(FRAMEPIPE_TSAN)
extern "C" void __tsan_acquire(void* address);
extern "C" void __tsan_release(void* address);
void tsan_acquire(void* address) { __tsan_acquire(address); }
void tsan_release(void* address) { __tsan_release(address); }
#else
void tsan_acquire(void*) {}
void tsan_release(void*) {}
#endif

// The Plane objects that hold a lent plane's reference while FFmpeg has it: recycled, so
// that lending a frame's planes every frame allocates nothing once warm. Never freed: a
// buffer may be released by an encoder's thread as the process ends.
BlockRecycler& lent_blocks() {
  static auto* recycler = new BlockRecycler();
  return *recycler;
}

// FFmpeg's last reference is gone: the plane goes back to its pool.
void give_back(void* opaque, std::uint8_t* data) {
  tsan_acquire(data);
  auto* lent = static_cast<Plane*>(opaque);
  lent->~Plane();
  lent_blocks().give(lent, sizeof(Plane));
}

}  // namespace

AVBufferRef* lend_plane(const Plane& plane, int flags) {
  void* block = lent_blocks().take(sizeof(Plane));
  auto* lent = new (block) Plane(plane);
  const auto bytes = static_cast<std::size_t>(plane.pitch) * static_cast<std::size_t>(plane.height);
  AVBufferRef* buffer = av_buffer_create(plane.data, bytes, &give_back, lent, flags);
  if (buffer == nullptr) {  // the buffer did not take it
    lent->~Plane();
    lent_blocks().give(block, sizeof(Plane));
  }
  return buffer;
}

void plane_buffers_released(const AVFrame* frame) {
  for (const AVBufferRef* buf : frame->buf)
    if (buf != nullptr) tsan_release(buf->data);
}

}  // namespace fp
