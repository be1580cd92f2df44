#include "media/url_protocol.hpp"

#include <algorithm>

namespace fp {

namespace {

// URL_SCHEME_CHARS of libavformat/avio.c.
constexpr std::string_view kSchemeChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.";

// FFmpeg copies the scheme into a 128-byte buffer: a longer one is cut to 127 characters
// (and names no protocol it has).
constexpr std::size_t kMaxScheme = 127;


}  // namespace

UrlProtocol url_protocol(std::string_view url) {
  const std::size_t length = std::min(url.find_first_not_of(kSchemeChars), url.size());
  const bool scheme = length < url.size() && url[length] == ':';
  const bool subfile = url.starts_with("subfile,") && url.find(':', length + 1) != std::string_view::npos;
  UrlProtocol protocol;
  protocol.name = scheme || subfile ? std::string(url.substr(0, std::min(length, kMaxScheme))) : "file";
  protocol.outer = protocol.name.substr(0, protocol.name.find('+'));
  return protocol;
}

std::string file_protocol_path(std::string_view url) {
  return std::string(url.starts_with("file:") ? url.substr(5) : url);
}

}  // namespace fp
