// Lends a Frame's host planes to an encoder by reference instead of copying them into the
// encoder's own AVFrame (a 1080p frame's copy is ~3 MB of memory traffic on the sink's
// thread). Each plane becomes an AVBufferRef (read-only) whose free callback drops the
// Frame's reference to the plane: a pooled page-locked plane (a GPU run's download) or a
// decoder's buffer goes back to its pool once the encoder no longer holds the picture,
// whichever thread that happens on.
#pragma once

#include "core/frame.hpp"

extern "C" {
struct AVFrame;
}

namespace fp {

// Points `out` (unreferenced first) at `frame`'s planes for an encoder taking `pix_fmt`
// (an AVPixelFormat); true when done. False, leaving `out` empty, when the encoder cannot
// take the planes as they are; the caller copies then:
// - a format other than the frame's layout: yuv420p for I420, nv12 for NV12 (odd sizes are
//   encoded as 4:4:4: the chroma is upsampled);
// - a plane whose start or pitch is not a multiple of av_cpu_max_align(): FFmpeg's encoders
//   may use SIMD loads that assume the alignment av_frame_get_buffer() gives;
// - a frame not in host memory, or a pitch that does not fit an int.
bool lend_planes(const Frame& frame, int pix_fmt, AVFrame* out);

// Called right before the caller's own reference to a lent picture is dropped
// (av_frame_unref): the encoder may free the buffers later on a thread of its own, ordered
// after this one only by libavutil's atomic reference count, which ThreadSanitizer cannot
// see; this tells it (and does nothing in other builds).
void lender_done(const AVFrame* frame);

}  // namespace fp
