// What a stream of frames looks like: size, timing and where it came from.
#pragma once

#include <cstdint>
#include <string>

#include "core/frame.hpp"

namespace fp {

struct VideoInfo {
  int width = 0;
  int height = 0;
  Rational time_base{1, 30};   // unit of Frame::pts
  Rational frame_rate{30, 1};  // nominal; 0/1 when unknown
  std::int64_t frame_count = -1;  // -1 when unknown (live sources, some containers)
  bool live = false;              // a camera or network stream (frames may be dropped)
  // The frames' chroma layout: a source's as it decodes them (NV12 from NVDEC); a stream
  // into a sink, as it reaches the host there (NV12 when an NVDEC source's chroma is read by
  // no stage: the executor's HostCopies). An encoder opens in this layout so that it takes
  // the planes by reference; a frame of the other layout (NVDEC gave up on the stream at
  // its first picture and software took over) is converted.
  PlaneLayout chroma_layout = PlaneLayout::I420;
};

}  // namespace fp
