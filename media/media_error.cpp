#include "media/media_error.hpp"

#include <array>
#include <cstdint>

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

MediaError frame_memory_error(const std::string& name, int width, int height) {
  // I420: the luma plane and two chroma planes of a quarter each (rounded up).
  const auto w = static_cast<std::int64_t>(width);
  const auto h = static_cast<std::int64_t>(height);
  const std::int64_t bytes = w * h + 2 * ((w + 1) / 2) * ((h + 1) / 2);
  return MediaError(name + ": out of memory for a " + std::to_string(width) + "x" + std::to_string(height) +
                    " frame (" + std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB)");
}

}  // namespace fp
