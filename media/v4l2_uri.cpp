#include "media/v4l2_uri.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "media/uri_query.hpp"

namespace fp {

namespace {

constexpr std::string_view kScheme = "v4l2://";

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// 1280x720: two positive integers.
bool valid_size(std::string_view size) {
  const auto x = size.find('x');
  if (x == std::string_view::npos) return false;
  const auto w = size.substr(0, x);
  const auto h = size.substr(x + 1);
  return all_digits(w) && all_digits(h) && std::stol(std::string(w)) > 0 && std::stol(std::string(h)) > 0;
}

// 30, 29.97 or 30000/1001, above zero.
bool valid_fps(std::string_view fps) {
  if (const auto slash = fps.find('/'); slash != std::string_view::npos)
    return all_digits(fps.substr(0, slash)) && all_digits(fps.substr(slash + 1)) &&
           std::stol(std::string(fps.substr(0, slash))) > 0 && std::stol(std::string(fps.substr(slash + 1))) > 0;
  const auto dot = fps.find('.');
  const auto whole = fps.substr(0, dot);
  const auto fraction = dot == std::string_view::npos ? std::string_view("0") : fps.substr(dot + 1);
  return all_digits(whole) && all_digits(fraction) && std::stod(std::string(fps)) > 0;
}

bool valid_format(std::string_view format) {
  return !format.empty() &&
         std::all_of(format.begin(), format.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

}  // namespace

bool is_v4l2_uri(std::string_view uri) { return uri.substr(0, kScheme.size()) == kScheme; }

V4l2Uri parse_v4l2_uri(std::string_view uri) {
  V4l2Uri result;
  const std::string_view rest = uri.substr(kScheme.size());
  const auto question = rest.find('?');
  result.device = std::string(rest.substr(0, question));
  if (result.device.empty() || result.device.front() != '/')
    throw std::invalid_argument("no device given (expected v4l2:///dev/videoN)");
  if (question == std::string_view::npos) return result;
  for (const QueryItem& item : query_items(rest.substr(question + 1))) {
    if (item.text.empty()) continue;
    const std::string_view key = item.key;
    const std::string_view value = item.value;
    if (key == "size") {
      if (!valid_size(value)) throw std::invalid_argument("size must be WIDTHxHEIGHT (got '" + std::string(value) + "')");
      result.size = std::string(value);
    } else if (key == "fps") {
      if (!valid_fps(value))
        throw std::invalid_argument("fps must be a positive number or N/D (got '" + std::string(value) + "')");
      result.fps = std::string(value);
    } else if (key == "format") {
      if (!valid_format(value))
        throw std::invalid_argument("format must name a camera format such as mjpeg, yuyv422 or h264 (got '" +
                                    std::string(value) + "')");
      result.format = std::string(value);
    } else {
      throw std::invalid_argument("unknown camera parameter '" + std::string(key) + "' (known: size, fps, format)");
    }
  }
  return result;
}

std::string v4l2_uri_problem(std::string_view uri) {
  if (!is_v4l2_uri(uri)) return "";
  try {
    parse_v4l2_uri(uri);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace fp
