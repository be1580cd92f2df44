// The sink implementations behind open_sink (private to media/).
#pragma once

#include <memory>
#include <string>

#include "media/frame_sink.hpp"

namespace fp {

std::unique_ptr<FrameSink> open_null_sink();
// Container or protocol from the output (media/output_target.hpp), which was checked.
std::unique_ptr<FrameSink> open_ffmpeg_sink(const SinkOptions& options, const VideoInfo& info);

}  // namespace fp
