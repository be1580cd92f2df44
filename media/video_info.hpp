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
  // How the frames' chroma reaches a sink on the host: NV12 when it is an NVDEC source's
  // that no stage reads (the executor's HostCopies), I420 otherwise. An encoder opens in
  // this layout so that it takes the planes by reference; a frame of the other layout
  // (NVDEC gave up on the stream and software took over) is converted.
  PlaneLayout chroma_layout = PlaneLayout::I420;
};

}  // namespace fp
