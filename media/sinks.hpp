// The sink implementations behind open_sink (private to media/).
#pragma once

#include <memory>
#include <string>

#include "media/frame_sink.hpp"

namespace fp {

// The path's extension in lower case, e.g. ".mp4"; empty when it has none. Pure string work.
std::string output_extension(const std::string& path);

std::unique_ptr<FrameSink> open_null_sink();
// Container from the extension (.mp4, .mkv, .ts: libx264; .y4m: raw); the path was checked.
std::unique_ptr<FrameSink> open_ffmpeg_sink(const SinkOptions& options, const VideoInfo& info);

}  // namespace fp
