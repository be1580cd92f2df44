// Errors from media I/O. what() is one line that names the URI or path and the reason.
#pragma once

#include <stdexcept>
#include <string>

namespace fp {

class MediaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  // `av_error`: the FFmpeg error code behind it, so that a caller can tell a refusal that
  // waiting will not change (401 Unauthorized) from a server that is only gone for now.
  MediaError(const std::string& what, int av_error) : std::runtime_error(what), av_error_(av_error) {}
  int av_error() const { return av_error_; }  // 0 when the failure was not FFmpeg's

 private:
  int av_error_ = 0;
};

// A live stream that stopped delivering (a read error, a read timeout): what a source that
// reconnects catches. Other media errors (damage under on_error: stop, a size change, no
// memory) end the run even on a live input.
class StreamLost : public MediaError {
 public:
  using MediaError::MediaError;
};

// "<averror text>" for an FFmpeg error code (e.g. "No such file or directory").
std::string av_error_text(int errnum);

// "<name>: out of memory for a WxH frame (N MiB)": what a source throws when the memory
// for a frame cannot be had (std::bad_alloc names nothing).
MediaError frame_memory_error(const std::string& name, int width, int height);

}  // namespace fp
