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

}  // namespace fp
