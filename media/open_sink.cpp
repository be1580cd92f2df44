// Picks the sink for an output path, and says what it would reject without touching disk.
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "media/frame_sink.hpp"
#include "media/media_error.hpp"
#include "media/sinks.hpp"

namespace fp {

namespace {

bool is_null_path(const std::string& path) { return path.empty() || path == "null"; }

}  // namespace

std::string output_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

std::string check_sink_path(const std::string& path, const std::string& codec) {
  if (is_null_path(path)) return {};
  const std::string ext = output_extension(path);
  if (ext != ".mp4" && ext != ".mkv" && ext != ".ts" && ext != ".y4m") {
    if (ext.empty()) return "output has no extension (use .mp4, .mkv, .ts, .y4m or null)";
    return "unsupported output extension '" + std::filesystem::path(path).extension().string() +
           "' (use .mp4, .mkv, .ts, .y4m or null)";
  }
  if (!codec.empty() && codec != "h264" && codec != "rawvideo")
    return "unsupported codec '" + codec + "' (use h264 or rawvideo)";
  // .y4m holds raw frames whatever codec is asked for; raw frames fit no other container
  // framepipe writes.
  if (codec == "rawvideo" && ext != ".y4m") return "codec rawvideo needs a .y4m output (" + ext + " takes h264)";
  return {};
}

std::unique_ptr<FrameSink> open_sink(const SinkOptions& options, const VideoInfo& info) {
  if (is_null_path(options.path)) return open_null_sink();
  if (const std::string reason = check_sink_path(options.path, options.codec); !reason.empty())
    throw MediaError(options.path + ": " + reason);
  return open_ffmpeg_sink(options, info);
}

}  // namespace fp
