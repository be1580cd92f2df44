#include "media/testsrc_uri.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <string_view>

#include "media/media_error.hpp"
#include "media/uri_query.hpp"

namespace fp {

namespace {

// Bounds that keep every computation in int and every frame allocatable.
constexpr int kMaxSide = 16384;
constexpr double kMaxNoise = 255;
constexpr int kMaxFractionDigits = 6;

[[noreturn]] void bad(const std::string& uri, const std::string& what) { throw MediaError(uri + ": " + what); }

template <class T>
bool parse_number(std::string_view text, T& value) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end;
}

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  return true;
}

// "30", "30000/1001" or "29.97" as an exact, reduced fraction. Decimals are taken
// literally (29.97 is 2997/100, not 30000/1001), so what the user writes is what they get.
bool parse_rate(std::string_view text, Rational& rate) {
  std::int64_t num = 0;
  std::int64_t den = 1;
  if (const auto slash = text.find('/'); slash != std::string_view::npos) {
    if (!all_digits(text.substr(0, slash)) || !all_digits(text.substr(slash + 1))) return false;
    if (!parse_number(text.substr(0, slash), num) || !parse_number(text.substr(slash + 1), den)) return false;
  } else {
    const auto dot = text.find('.');
    const std::string_view whole = text.substr(0, dot);
    const std::string_view fraction = dot == std::string_view::npos ? std::string_view{} : text.substr(dot + 1);
    if (!all_digits(whole) || (dot != std::string_view::npos && !all_digits(fraction))) return false;
    if (fraction.size() > kMaxFractionDigits || whole.size() > 9) return false;
    if (!parse_number(whole, num)) return false;
    for (char c : fraction) {
      num = num * 10 + (c - '0');
      den *= 10;
    }
  }
  if (num <= 0 || den <= 0) return false;
  const std::int64_t g = std::gcd(num, den);
  num /= g;
  den /= g;
  if (num > std::numeric_limits<int>::max() || den > std::numeric_limits<int>::max()) return false;
  rate = {static_cast<int>(num), static_cast<int>(den)};
  return true;
}

void parse_size(const std::string& uri, std::string_view text, TestSourceParams& params) {
  const auto x = text.find('x');
  int width = 0;
  int height = 0;
  if (x == std::string_view::npos || !all_digits(text.substr(0, x)) || !all_digits(text.substr(x + 1)) ||
      !parse_number(text.substr(0, x), width) || !parse_number(text.substr(x + 1), height))
    bad(uri, "bad size '" + std::string(text) + "' (expected WxH, e.g. 640x360)");
  if (width < 1 || height < 1)
    bad(uri, "width and height must be at least 1 (got " + std::string(text) + ")");
  if (width > kMaxSide || height > kMaxSide)
    bad(uri, "size " + std::string(text) + " is too large (at most " + std::to_string(kMaxSide) + " per side)");
  params.width = width;
  params.height = height;
}

void parse_query(const std::string& uri, std::string_view query, TestSourceParams& params) {
  bool seen_noise = false;
  bool seen_frames = false;
  bool seen_loop = false;
  for (const QueryItem& item : query_items(query)) {
    if (item.text.empty()) continue;  // "a=1&" or "a=1&&b=2"
    if (!item.has_value) bad(uri, "parameter '" + std::string(item.text) + "' has no value (expected key=value)");
    const std::string_view key = item.key;
    const std::string_view value = item.value;
    if (key == "noise") {
      if (seen_noise) bad(uri, "parameter 'noise' given twice");
      seen_noise = true;
      double sigma = 0;
      if (!parse_number(value, sigma) || !std::isfinite(sigma) || sigma < 0 || sigma > kMaxNoise)
        bad(uri, "noise must be a number from 0 to 255 (got '" + std::string(value) + "')");
      params.noise = sigma;
    } else if (key == "frames") {
      if (seen_frames) bad(uri, "parameter 'frames' given twice");
      seen_frames = true;
      std::int64_t frames = 0;
      if (!all_digits(value) || !parse_number(value, frames))
        bad(uri, "frames must be a whole number >= 0 (got '" + std::string(value) + "'; 0 means endless)");
      params.frames = frames;
    } else if (key == "loop") {
      if (seen_loop) bad(uri, "parameter 'loop' given twice");
      seen_loop = true;
      std::int64_t loop = 0;
      if (!all_digits(value) || !parse_number(value, loop) || loop < 1 || loop > kMaxTestsrcLoop)
        bad(uri, "loop must be a whole number from 1 to " + std::to_string(kMaxTestsrcLoop) + " (got '" +
                     std::string(value) + "')");
      params.loop = static_cast<int>(loop);
    } else {
      bad(uri, "unknown parameter '" + std::string(key) + "' (known: noise, frames, loop)");
    }
  }
}

}  // namespace

TestSourceParams parse_testsrc_uri(const std::string& uri) {
  if (!is_testsrc_uri(uri)) bad(uri, "not a testsrc:// URI");
  TestSourceParams params;
  const std::string_view rest = std::string_view(uri).substr(std::string_view("testsrc://").size());
  const auto question = rest.find('?');
  const std::string_view spec = rest.substr(0, question);
  if (question != std::string_view::npos) parse_query(uri, rest.substr(question + 1), params);

  const auto at = spec.find('@');
  const std::string_view size = spec.substr(0, at);
  if (!size.empty()) parse_size(uri, size, params);
  if (at != std::string_view::npos) {
    const std::string_view rate = spec.substr(at + 1);
    if (!parse_rate(rate, params.fps))
      bad(uri, "bad frame rate '" + std::string(rate) + "' (expected e.g. 30, 29.97 or 30000/1001)");
  }
  return params;
}

}  // namespace fp
