// The source implementations behind open_source (private to media/).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "media/frame_source.hpp"

namespace fp {

std::unique_ptr<FrameSource> open_test_source(const std::string& uri, const PlaneMemory& memory);  // testsrc://
std::unique_ptr<FrameSource> open_ffmpeg_source(const std::string& uri, const PlaneMemory& memory,
                                                OnDecodeError on_error,
                                                const std::atomic<bool>* stop);  // files, rtsp, v4l2, http

}  // namespace fp
