// Opening a demuxer for a URI the way framepipe reads it (private to media/; shared by the
// FFmpeg source and probe, so probe describes exactly what a run would see).
#pragma once

#include <string>

#include "media/ffmpeg_raii.hpp"

namespace fp::ff {

struct OpenedInput {
  InputFormatPtr format;
  bool live = false;  // a camera or a network stream rather than a file
};

// v4l2:///dev/videoN goes to the v4l2 device; rtsp:// is read over TCP with a socket
// timeout; other network URLs get an I/O timeout. Stream info is read before returning.
// `interrupt` may be {nullptr, nullptr}. Throws MediaError "<uri>: <reason>".
OpenedInput open_input(const std::string& uri, const AVIOInterruptCB& interrupt);

}  // namespace fp::ff
