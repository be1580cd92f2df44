#include "tools/denoise_quality/gray_video.hpp"

#include <fmt/format.h>

#include <charconv>
#include <fstream>

namespace fp::quality {

Size parse_size(const std::string& text) {
  Size size;
  const auto x = text.find('x');
  const char* end = text.data() + text.size();
  bool ok = x != std::string::npos;
  if (ok) {
    const auto w = std::from_chars(text.data(), text.data() + x, size.width);
    const auto h = std::from_chars(text.data() + x + 1, end, size.height);
    ok = w.ec == std::errc{} && w.ptr == text.data() + x && h.ec == std::errc{} && h.ptr == end;
  }
  if (!ok || size.width <= 0 || size.height <= 0 || size.width > 16384 || size.height > 16384)
    throw UsageError(fmt::format("size '{}': expected WIDTHxHEIGHT, e.g. 960x540", text));
  return size;
}

GrayVideo read_gray(const std::filesystem::path& file, Size size) {
  std::error_code error;
  const auto bytes = std::filesystem::file_size(file, error);
  if (error) throw UsageError(fmt::format("{}: {}", file.string(), error.message()));
  const auto frame_bytes = static_cast<std::uintmax_t>(size.width) * static_cast<std::uintmax_t>(size.height);
  if (bytes == 0 || bytes % frame_bytes != 0)
    throw UsageError(fmt::format("{}: {} bytes is not a whole number of {}x{} gray frames", file.string(), bytes,
                                 size.width, size.height));
  GrayVideo video(size.width, size.height, static_cast<int>(bytes / frame_bytes));
  std::ifstream in(file, std::ios::binary);
  in.read(reinterpret_cast<char*>(video.pixels.data()), static_cast<std::streamsize>(video.pixels.size()));
  if (!in) throw std::runtime_error(fmt::format("{}: read failed", file.string()));
  return video;
}

void write_gray(const std::filesystem::path& file, const GrayVideo& video) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(video.pixels.data()), static_cast<std::streamsize>(video.pixels.size()));
  out.close();
  if (!out) throw std::runtime_error(fmt::format("{}: write failed", file.string()));
}

}  // namespace fp::quality
