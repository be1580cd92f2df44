// Picks the source implementation for a URI: testsrc:// is ours, everything else FFmpeg's.
#include "media/frame_source.hpp"
#include "media/media_error.hpp"
#include "media/sources.hpp"
#include "media/testsrc_uri.hpp"

namespace fp {

std::unique_ptr<FrameSource> open_source(const std::string& uri, const PlaneMemory& memory,
                                         const std::atomic<bool>* stop) {
  if (uri.empty()) throw MediaError("input URI is empty");
  if (is_testsrc_uri(uri)) return open_test_source(uri, memory);
  return open_ffmpeg_source(uri, memory, stop);
}

}  // namespace fp
