// Picks the source implementation for a URI: testsrc:// is ours, everything else FFmpeg's.
#include <filesystem>

#include "media/frame_source.hpp"
#include "media/media_error.hpp"
#include "media/sources.hpp"
#include "media/testsrc_uri.hpp"

namespace fp {

std::unique_ptr<FrameSource> open_source(const std::string& uri, const PlaneMemory& memory, OnDecodeError on_error,
                                         const std::atomic<bool>* stop) {
  if (uri.empty()) throw MediaError("input URI is empty");
  if (is_testsrc_uri(uri)) return open_test_source(uri, memory);
  // FFmpeg calls an empty file "Invalid data found when processing input"; say what it is.
  std::error_code ec;
  if (std::filesystem::is_regular_file(uri, ec) && std::filesystem::file_size(uri, ec) == 0 && !ec)
    throw MediaError(uri + ": the file is empty (0 bytes)");
  return open_ffmpeg_source(uri, memory, on_error, stop);
}

}  // namespace fp
