// Picks the source implementation for a URI: testsrc:// is ours, everything else FFmpeg's.
#include <filesystem>
#include <memory>

#include "media/frame_source.hpp"
#include "media/media_error.hpp"
#include "media/sources.hpp"
#include "media/stream_uri.hpp"
#include "media/testsrc_uri.hpp"

namespace fp {

std::unique_ptr<FrameSource> open_source(const std::string& uri, const PlaneMemory& memory, OnDecodeError on_error,
                                         const std::atomic<bool>* stop) {
  return open_source(uri, SourceOptions{.memory = memory, .on_error = on_error, .stop = stop});
}

std::unique_ptr<FrameSource> open_source(const std::string& uri, const SourceOptions& options) {
  if (uri.empty()) throw MediaError("input URI is empty");
  if (is_testsrc_uri(uri)) return open_test_source(uri, options.memory);
  // FFmpeg calls an empty file "Invalid data found when processing input"; say what it is.
  std::error_code ec;
  if (std::filesystem::is_regular_file(uri, ec) && std::filesystem::file_size(uri, ec) == 0 && !ec)
    throw MediaError(uri + ": the file is empty (0 bytes)");
  if (!options.reconnect.enabled()) return open_ffmpeg_source(uri, options, nullptr);
  // One flag reaches the blocking calls of whichever session is open: the reconnecting
  // source sets it in interrupt(), from another thread, without touching the session.
  auto halt = std::make_shared<std::atomic<bool>>(false);
  auto open_session = [uri, options, halt] { return open_ffmpeg_source(uri, options, halt.get()); };
  auto first = open_session();
  return make_reconnecting_source(mask_credentials(uri), std::move(first), std::move(open_session), std::move(halt),
                                  options);
}

}  // namespace fp
