// Picks the sink for an output: nothing for null, else FFmpeg's muxers.
#include "media/frame_sink.hpp"
#include "media/media_error.hpp"
#include "media/output_target.hpp"
#include "media/sinks.hpp"
#include "media/stream_uri.hpp"

namespace fp {

std::unique_ptr<FrameSink> open_sink(const SinkOptions& options, const VideoInfo& info) {
  if (options.path.empty() || options.path == "null") return open_null_sink();
  if (const std::string reason = output_target_problem(options.path, options.codec); !reason.empty())
    throw MediaError(mask_credentials(options.path) + ": " + reason);
  return open_ffmpeg_sink(options, info);
}

}  // namespace fp
