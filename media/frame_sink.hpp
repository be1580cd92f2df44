// Where frames go: an encoded file (H.264 through libx264 into mp4/mkv/ts), raw .y4m,
// or nothing (the null sink).
#pragma once

#include <memory>
#include <string>

#include "core/frame.hpp"
#include "media/video_info.hpp"

namespace fp {

struct SinkOptions {
  std::string path;          // output file; "null" (or empty) for the null sink
  std::string codec = "h264";  // h264 | rawvideo (forced for .y4m)
  int crf = 18;              // libx264 constant rate factor, 0..51
  std::string preset = "veryfast";
  // Live outputs: x264 tune=zerolatency (no lookahead, sliced threads), no B-frames, periodic
  // intra refresh over one second instead of key frames, and every packet handed to the file
  // or network at once.
  bool low_latency = false;
};

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  // Encodes and muxes one frame (host memory, the size given at open). Throws MediaError.
  virtual void write(const Frame& frame) = 0;
  // Flushes the encoder and finalizes the container (trailer). Idempotent; the destructor
  // calls it too, so a file is finalized even when an error unwinds the stack.
  virtual void close() = 0;
  virtual std::string encoder_name() const = 0;  // e.g. "libx264", "rawvideo (y4m)", "null"
  virtual std::int64_t frames_written() const = 0;
};

// The container follows the path's extension: .mp4, .mkv, .ts, .y4m. Throws MediaError
// naming the path when it cannot be created or the extension is not supported.
std::unique_ptr<FrameSink> open_sink(const SinkOptions& options, const VideoInfo& info);

// Checks what open_sink would reject (extension, codec) without touching the file system;
// returns an empty string when fine, else the reason. Used by config validation.
std::string check_sink_path(const std::string& path, const std::string& codec);

}  // namespace fp
