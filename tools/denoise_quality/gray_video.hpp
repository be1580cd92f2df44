// Raw 8-bit gray video, the format every file of the measurement uses (ffmpeg's
// `-f rawvideo -pix_fmt gray`): frames of width x height bytes, row by row, concatenated,
// with no header, so that ffmpeg reads and writes the same files the tool does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/image_view.hpp"

namespace fp::quality {

// A command-line mistake (a bad size, a missing file): exit code 2, as framepipe's.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Size {
  int width = 0;
  int height = 0;
};

// "960x540" -> {960, 540}; throws UsageError otherwise.
Size parse_size(const std::string& text);

// A whole video in memory, frames tightly packed (pitch = width).
struct GrayVideo {
  int width = 0;
  int height = 0;
  int frames = 0;
  std::vector<std::uint8_t> pixels;

  GrayVideo() = default;
  GrayVideo(int w, int h, int n)
      : width(w), height(h), frames(n),
        pixels(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(n)) {}

  std::size_t frame_bytes() const { return static_cast<std::size_t>(width) * static_cast<std::size_t>(height); }
  ImageU8 frame(int n) { return {pixels.data() + frame_bytes() * static_cast<std::size_t>(n), width, height, width}; }
  ConstImageU8 frame(int n) const {
    return {pixels.data() + frame_bytes() * static_cast<std::size_t>(n), width, height, width};
  }
};

// Reads a file of whole frames of `size`; throws UsageError when it is missing, empty or
// not a whole number of frames.
GrayVideo read_gray(const std::filesystem::path& file, Size size);
void write_gray(const std::filesystem::path& file, const GrayVideo& video);

}  // namespace fp::quality
