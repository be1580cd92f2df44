#include "pipeline/engine/input_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace fp {

namespace {

bool parse_side(std::string_view text, int& value) {
  if (text.empty() || text.front() == '+' || text.front() == '-') return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end && value >= 1;
}

}  // namespace

bool parse_frame_size(std::string_view text, int& width, int& height) {
  const auto x = text.find('x');
  if (x == std::string_view::npos) return false;
  return parse_side(text.substr(0, x), width) && parse_side(text.substr(x + 1), height);
}

std::string input_size_problem(int width, int height, const InputLimits& limits) {
  if (limits.max_width <= 0 || limits.max_height <= 0) return "";
  const bool fits = (width <= limits.max_width && height <= limits.max_height) ||
                    (width <= limits.max_height && height <= limits.max_width);
  if (fits) return "";
  return fmt::format("frames of {}x{} are larger than this service takes (at most {}x{}, either way round: "
                     "framepipe serve --max-input-size)",
                     width, height, limits.max_width, limits.max_height);
}

std::string input_rate_problem(double fps, std::string_view written, const InputLimits& limits) {
  if (limits.max_fps <= 0 || fps <= limits.max_fps) return "";
  return fmt::format("{} frames a second is more than this service takes (at most {}: framepipe serve --max-input-fps)",
                     written, limits.max_fps);
}

}  // namespace fp
