// Picks the source implementation for a URI: testsrc:// is ours, everything else FFmpeg's.
#include <chrono>
#include <filesystem>
#include <functional>
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

namespace {

bool stopped(const SourceOptions& options) { return options.stop != nullptr && options.stop->load(); }

// The first session, tried again after each failure (retry_first_open) with the policy's
// waits, each one logged; a stop ends the waiting at once (the last error is thrown then).
std::unique_ptr<FrameSource> open_first_session(const std::function<std::unique_ptr<FrameSource>()>& open_session,
                                                const SourceOptions& options) {
  const auto first_try = std::chrono::steady_clock::now();
  for (int attempt = 1;; ++attempt) {
    try {
      auto session = open_session();
      if (attempt > 1 && options.on_reconnect)
        options.on_reconnect({.kind = ReconnectEvent::Kind::Opened, .attempt = attempt,
                              .delay = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now() - first_try)});
      return session;
    } catch (const MediaError& e) {
      if (!options.reconnect.retry_first_open || stopped(options) || is_final_refusal(e.av_error())) throw;
      const auto delay = backoff_delay(options.reconnect, attempt);
      if (options.on_reconnect)
        options.on_reconnect({.kind = ReconnectEvent::Kind::OpenFailed, .reason = e.what(), .attempt = attempt,
                              .delay = delay});
      if (!sleep_unless_stopped(delay, [&options] { return stopped(options); })) throw;
    }
  }
}

}  // namespace

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
  std::function<std::unique_ptr<FrameSource>()> open_session = [uri, options, halt] {
    return open_ffmpeg_source(uri, options, halt.get());
  };
  auto first = open_first_session(open_session, options);
  return make_reconnecting_source(mask_credentials(uri), std::move(first), std::move(open_session), std::move(halt),
                                  options);
}

}  // namespace fp
