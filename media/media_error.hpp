// Errors from media I/O. what() is one line that names the URI or path and the reason.
#pragma once

#include <stdexcept>
#include <string>

namespace fp {

class MediaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "<averror text>" for an FFmpeg error code (e.g. "No such file or directory").
std::string av_error_text(int errnum);

// "<name>: out of memory for a WxH frame (N MiB)": what a source throws when the memory
// for a frame cannot be had (std::bad_alloc names nothing).
MediaError frame_memory_error(const std::string& name, int width, int height);

}  // namespace fp
