// NV12's chroma (U and V interleaved in one plane, a pair of bytes a sample; Frame's
// PlaneLayout) to and from I420's two planes, on the host: for the consumers that need the
// other layout than the frame they get (an encoder opened for one, the status page's JPEG).
#pragma once

#include "core/frame.hpp"
#include "core/image_view.hpp"

namespace fp {

// U and V of an NV12 chroma plane (`uv.width` pairs a row) into two planes of its size.
void deinterleave_chroma(const Plane& uv, ImageU8 u, ImageU8 v);
// U and V, of one size, into an NV12 chroma plane of that many pairs a row.
void interleave_chroma(ConstImageU8 u, ConstImageU8 v, const Plane& uv);

}  // namespace fp
