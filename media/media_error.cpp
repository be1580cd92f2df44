#include "media/media_error.hpp"

#include <array>

extern "C" {
#include <libavutil/error.h>
}

namespace fp {

std::string av_error_text(int errnum) {
  std::array<char, AV_ERROR_MAX_STRING_SIZE> buffer{};
  // av_strerror fills in "Error number N occurred" itself for codes it does not know, so
  // the text is meaningful even when it returns a negative value.
  if (av_strerror(errnum, buffer.data(), buffer.size()) < 0 && buffer[0] == '\0')
    return "FFmpeg error " + std::to_string(errnum);
  return buffer.data();
}

}  // namespace fp
