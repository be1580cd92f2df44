// A camera's URI: v4l2:///dev/video0?size=1280x720&fps=30&format=mjpeg. What the query asks
// for becomes the options of FFmpeg's v4l2 input device (video_size, framerate,
// input_format); without them the camera's current mode is used. Pure string work.
#pragma once

#include <string>
#include <string_view>

namespace fp {

struct V4l2Uri {
  std::string device;  // /dev/video0
  std::string size;    // "1280x720", or "" for the camera's current size
  std::string fps;     // "30", "29.97", "30000/1001", or ""
  std::string format;  // the camera's pixel or compressed format (mjpeg, yuyv422, h264...), or ""
};

bool is_v4l2_uri(std::string_view uri);

// Throws std::invalid_argument naming the problem (an unknown or malformed parameter, no device).
V4l2Uri parse_v4l2_uri(std::string_view uri);

// "" when the URI is not v4l2:// or is well formed, else the problem (configuration checks).
std::string v4l2_uri_problem(std::string_view uri);

}  // namespace fp
