#pragma once
// A pooled plane lent to FFmpeg as an AVBufferRef, by reference: the decoder's frames
// (DecodeBuffers) and the encoder's input (lend_planes) both hand FFmpeg the pinned planes
// framepipe already holds instead of copying them.

#include <cstdint>

#include "core/frame.hpp"

extern "C" {
#include <libavutil/buffer.h>
#include <libavutil/frame.h>
}

namespace fp {

// A buffer over `plane`'s pitch x height bytes that keeps a copy of the Plane (and so its
// pool's reference) until FFmpeg frees the buffer, which gives the plane back. nullptr when
// FFmpeg has no memory for the reference.
AVBufferRef* lend_plane(const Plane& plane, int flags);

// The lender is done with `frame`: for ThreadSanitizer, its writes to the planes happen
// before whichever thread drops the last reference and frees them (the hand-over goes
// through libavutil's atomic reference count, which TSan does not see).
void plane_buffers_released(const AVFrame* frame);

}  // namespace fp
