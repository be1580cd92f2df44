#include "media/lent_planes.hpp"

#include "media/plane_buffer.hpp"

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

bool aligned(const Plane& plane, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(plane.data) % alignment == 0 && plane.pitch > 0 &&
         static_cast<std::size_t>(plane.pitch) % alignment == 0 && plane.pitch <= std::numeric_limits<int>::max();
}

}  // namespace

bool lend_planes(const Frame& frame, int pix_fmt, AVFrame* out) {
  av_frame_unref(out);
  const bool nv12 = frame.layout == PlaneLayout::NV12;
  if (pix_fmt != (nv12 ? AV_PIX_FMT_NV12 : AV_PIX_FMT_YUV420P) || frame.location != MemoryLocation::Host) return false;
  const int planes = nv12 ? 2 : 3;  // NV12: luma, then U and V in pairs
  const std::size_t alignment = av_cpu_max_align();
  for (int p = 0; p < planes; ++p)
    if (frame.planes[p].data == nullptr || !aligned(frame.planes[p], alignment)) return false;
  for (int p = 0; p < planes; ++p) {
    const Plane& plane = frame.planes[p];
    out->buf[p] = lend_plane(plane, AV_BUFFER_FLAG_READONLY);
    if (out->buf[p] == nullptr) {
      av_frame_unref(out);
      return false;  // no memory for the reference: the copy may still find some
    }
    out->data[p] = plane.data;
    out->linesize[p] = static_cast<int>(plane.pitch);
  }
  out->extended_data = out->data;
  out->format = pix_fmt;
  out->width = frame.width;
  out->height = frame.height;
  return true;
}

void lender_done(const AVFrame* frame) { plane_buffers_released(frame); }

}  // namespace fp
