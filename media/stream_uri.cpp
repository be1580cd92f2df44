#include "media/stream_uri.hpp"

#include "media/testsrc_uri.hpp"
#include "media/uri_query.hpp"
#include "media/v4l2_uri.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

namespace fp {

namespace {


}  // namespace

bool is_secret_query_key(std::string_view key) {
  static constexpr std::array<std::string_view, 17> kSecretWords = {
      "passphrase", "password", "passwd", "pass",      "pwd",        "token",       "key",     "secret",   "auth",
      "authorization", "sig", "signature", "apikey", "credential", "credentials", "session", "sessionid"};
  static constexpr std::array<std::string_view, 8> kSecretEndings = {
      "token", "secret", "password", "passphrase", "signature", "credential", "credentials", "apikey"};
  std::string whole;  // the key lower-cased, without separators: accessToken -> accesstoken
  std::string word;
  bool secret_word = false;
  const auto end_word = [&] {
    for (auto w : kSecretWords) secret_word = secret_word || word == w;
    word.clear();
  };
  for (const char c : key) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      whole.push_back(lower);
      word.push_back(lower);
    } else {
      end_word();
    }
  }
  end_word();
  if (secret_word) return true;
  for (auto ending : kSecretEndings)
    if (whole.size() >= ending.size() && whole.compare(whole.size() - ending.size(), ending.size(), ending) == 0)
      return true;
  return false;
}

namespace {

// Where the user info of the URI whose authority starts at `start` ends (its last '@'), or
// npos. The search stops at the query's first '=' or '&': a query value may hold an '@'
// (?email=a@b), but a password may hold '?' (u:pa?ss@host), so a '?' alone does not stop it.
std::size_t user_info_end(std::string_view uri, std::size_t start) {
  auto limit = uri.find_first_of("?#", start);
  if (limit != std::string_view::npos) limit = uri.find_first_of("=&", limit);
  if (limit == std::string_view::npos) limit = uri.size();
  const auto at = uri.substr(0, limit).rfind('@');
  return at == std::string_view::npos || at < start ? std::string_view::npos : at;
}

// The query (from its '?' to the end, fragment included: a passphrase may hold '#') with
// the values of secret keys replaced by ***.
std::string mask_query(std::string_view query) {
  std::string out;
  std::size_t begin = 0;
  while (begin <= query.size()) {
    auto end = query.find_first_of("&;", begin);
    if (end == std::string_view::npos) end = query.size();
    const std::string_view item = query.substr(begin, end - begin);
    const auto equals = item.find('=');
    if (equals != std::string_view::npos && is_secret_query_key(item.substr(0, equals)))
      out.append(item.substr(0, equals + 1)).append("***");
    else
      out.append(item);
    if (end < query.size()) out.push_back(query[end]);
    begin = end + 1;
  }
  return out;
}

}  // namespace

std::string mask_credentials(std::string_view uri) {
  const auto scheme_end = uri.find("://");
  if (scheme_end == std::string_view::npos) return std::string(uri);
  const auto authority_start = scheme_end + 3;
  std::string out(uri.substr(0, authority_start));
  std::size_t rest = authority_start;
  // Empty user info (udp://@:1234, a multicast listener) hides nothing, and local sources
  // have none: testsrc://64x48@30 is a size and a rate.
  const bool local = !is_network_uri(uri);
  if (const auto at = local ? std::string_view::npos : user_info_end(uri, authority_start);
      at != std::string_view::npos && at > authority_start) {
    const std::string_view user_info = uri.substr(authority_start, at - authority_start);
    const auto colon = user_info.find(':');
    if (colon != std::string_view::npos) out.append(user_info.substr(0, colon + 1));
    out += "***";
    rest = at;
  }
  const auto question = uri.find('?', rest);
  out += uri.substr(rest, question == std::string_view::npos ? std::string_view::npos : question - rest);
  if (question != std::string_view::npos) {
    out.push_back('?');
    out += mask_query(uri.substr(question + 1));
  }
  return out;
}

std::string mask_uris_in_text(std::string_view text) {
  const auto is_scheme_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  };
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::string out;
  std::size_t copied = 0;
  for (auto mark = text.find("://"); mark != std::string_view::npos; mark = text.find("://", mark + 3)) {
    if (mark < copied) continue;
    std::size_t start = mark;
    while (start > copied && is_scheme_char(text[start - 1])) --start;
    if (start == mark) continue;  // "://" without a scheme before it
    std::size_t end = mark + 3;
    while (end < text.size() && !is_space(text[end])) ++end;
    // The quote or bracket that closes a quoted URI in a message, or the punctuation after
    // it ("URI: cannot connect"), is not part of it.
    std::size_t uri_end = end;
    while (uri_end > mark + 3 && std::string_view("'\"`)]>:,;.").find(text[uri_end - 1]) != std::string_view::npos)
      --uri_end;
    out.append(text.substr(copied, start - copied));
    out += mask_credentials(text.substr(start, uri_end - start));
    out.append(text.substr(uri_end, end - uri_end));
    copied = end;
  }
  out.append(text.substr(copied));
  return out;
}

bool is_live_uri(std::string_view uri) {
  constexpr std::array<std::string_view, 7> kLive = {"rtsp://", "rtsps://", "rtmp://", "rtmps://",
                                                     "udp://",  "rtp://",   "srt://"};
  for (auto prefix : kLive)
    if (uri.starts_with(prefix)) return true;
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

bool endless_inputs(const std::vector<std::string>& uris) {
  return !uris.empty() && std::all_of(uris.begin(), uris.end(), [](const std::string& uri) { return is_endless_uri(uri); });
}

bool is_network_uri(std::string_view uri) {
  return uri.find("://") != std::string_view::npos && !uri.starts_with("file://") && !uri.starts_with("v4l2://") &&
         !uri.starts_with("testsrc://");
}

bool is_rtsp_uri(std::string_view uri) { return uri.starts_with("rtsp://") || uri.starts_with("rtsps://"); }

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
