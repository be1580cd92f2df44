#include "media/stream_uri.hpp"

#include "media/testsrc_uri.hpp"
#include "media/uri_query.hpp"
#include "media/v4l2_uri.hpp"

#include <array>
#include <stdexcept>

namespace fp {

namespace {

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

}  // namespace

std::string mask_credentials(std::string_view uri) {
  const auto scheme_end = uri.find("://");
  if (scheme_end == std::string_view::npos) return std::string(uri);
  const auto authority_start = scheme_end + 3;
  // The authority ends at the first '/', '?' or '#'; user info is what precedes its last '@'
  // (a password may itself contain '@' when the user did not escape it).
  auto authority_end = uri.find_first_of("/?#", authority_start);
  if (authority_end == std::string_view::npos) authority_end = uri.size();
  const std::string_view authority = uri.substr(authority_start, authority_end - authority_start);
  const auto at = authority.rfind('@');
  if (at == std::string_view::npos) return std::string(uri);
  const std::string_view user_info = authority.substr(0, at);
  const auto colon = user_info.find(':');
  const std::string masked = colon == std::string_view::npos ? "***" : std::string(user_info.substr(0, colon)) + ":***";
  return std::string(uri.substr(0, authority_start)) + masked + std::string(uri.substr(authority_start + at));
}

bool is_live_uri(std::string_view uri) {
  constexpr std::array<std::string_view, 7> kLive = {"rtsp://", "rtsps://", "rtmp://", "rtmps://",
                                                     "udp://",  "rtp://",   "srt://"};
  for (auto prefix : kLive)
    if (starts_with(uri, prefix)) return true;
  return false;
}

bool is_endless_uri(const std::string& uri) {
  if (is_live_uri(uri) || is_v4l2_uri(uri)) return true;
  if (!is_testsrc_uri(uri)) return false;
  try {
    return parse_testsrc_uri(uri).frames == 0;
  } catch (const std::exception&) {
    return false;  // a malformed testsrc fails when it is opened, like any bad input
  }
}

bool is_network_uri(std::string_view uri) {
  return uri.find("://") != std::string_view::npos && !starts_with(uri, "file://") && !starts_with(uri, "v4l2://") &&
         !starts_with(uri, "testsrc://");
}

bool is_rtsp_uri(std::string_view uri) { return starts_with(uri, "rtsp://") || starts_with(uri, "rtsps://"); }

RtspUri parse_rtsp_uri(std::string_view uri) {
  RtspUri result;
  const auto question = uri.find('?');
  if (question == std::string_view::npos) {
    result.url = std::string(uri);
    return result;
  }
  // Keep every other parameter, in order; drop transport=... (the last one given wins).
  const auto hash = uri.find('#', question);
  const std::string_view query = uri.substr(question + 1, (hash == std::string_view::npos ? uri.size() : hash) -
                                                              question - 1);
  std::string kept;
  for (const QueryItem& item : query_items(query)) {
    if (item.key == "transport" && item.has_value) {
      if (item.value == "tcp")
        result.transport = RtspTransport::Tcp;
      else if (item.value == "udp")
        result.transport = RtspTransport::Udp;
      else
        throw std::invalid_argument("transport must be tcp or udp (got '" + std::string(item.value) + "')");
    } else if (!item.text.empty()) {
      if (!kept.empty()) kept.push_back('&');
      kept.append(item.text);
    }
  }
  result.url = std::string(uri.substr(0, question));
  if (!kept.empty()) result.url += "?" + kept;
  if (hash != std::string_view::npos) result.url += std::string(uri.substr(hash));
  return result;
}

std::string rtsp_uri_problem(std::string_view uri) {
  if (!is_rtsp_uri(uri)) return "";
  try {
    parse_rtsp_uri(uri);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace fp
