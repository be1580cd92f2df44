#include "service/browser_guard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace fp::service {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Client text, safe to put in an answer: printable ASCII, at most 100 characters.
std::string shown(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 100)) out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  return text.size() > 100 ? out + "..." : out;
}

bool is_ipv4_loopback(std::string_view host) {
  // 127.0.0.0/8 written as a dotted quad: four numbers 0-255, the first 127.
  int parts = 0;
  std::size_t at = 0;
  while (at <= host.size()) {
    const auto dot = std::min(host.find('.', at), host.size());
    const auto part = host.substr(at, dot - at);
    if (part.empty() || part.size() > 3 || !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    const int value = std::stoi(std::string(part));
    if (value > 255 || (parts == 0 && value != 127)) return false;
    ++parts;
    at = dot + 1;
  }
  return parts == 4;
}

bool is_loopback_name(std::string_view host) { return host == "localhost" || host == "::1" || is_ipv4_loopback(host); }

}  // namespace

std::string host_name_of(std::string_view authority) {
  std::string_view host = authority;
  if (!host.empty() && host.front() == '[') {
    const auto close = host.find(']');
    if (close == std::string_view::npos) return "";
    const auto rest = host.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return "";
    host = host.substr(1, close - 1);
  } else if (const auto colon = host.find(':'); colon != std::string_view::npos) {
    if (host.find(':', colon + 1) != std::string_view::npos) return "";  // an IPv6 address needs brackets
    host = host.substr(0, colon);
  }
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  const bool well_formed = !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == ':';
  });
  return well_formed ? lower(host) : "";
}

BrowserGuard::BrowserGuard(ListenAddress listen, std::vector<std::string> allowed_hosts) : listen_(std::move(listen)) {
  for (const auto& host : allowed_hosts) {
    const std::string name = host_name_of(host);
    allowed_hosts_.push_back(name.empty() ? lower(host) : name);
  }
}

bool BrowserGuard::allowed(std::string_view host) const {
  if (host.empty()) return false;
  if (is_loopback_name(host) || host == lower(listen_.host)) return true;
  return std::find(allowed_hosts_.begin(), allowed_hosts_.end(), host) != allowed_hosts_.end();
}

std::optional<std::string> BrowserGuard::host_problem(std::string_view host_header) const {
  if (host_header.empty()) return "no Host header";
  if (allowed(host_name_of(host_header))) return std::nullopt;
  return fmt::format("Host '{}' is not a name of this service (a loopback name, {}, or serve --allow-host NAME)",
                     shown(host_header), listen_.host);
}

std::optional<std::string> BrowserGuard::origin_problem(std::string_view origin_header) const {
  if (origin_header.empty()) return std::nullopt;
  // scheme "://" authority, nothing after: what browsers send ("null" for opaque origins).
  const auto scheme_end = origin_header.find("://");
  const std::string scheme = scheme_end == std::string_view::npos ? "" : lower(origin_header.substr(0, scheme_end));
  if ((scheme == "http" || scheme == "https") && allowed(host_name_of(origin_header.substr(scheme_end + 3))))
    return std::nullopt;
  return fmt::format("Origin '{}' is another site's: a web page may not use this service", shown(origin_header));
}

bool is_json_content_type(std::string_view content_type) {
  const auto end = content_type.find(';');
  std::string_view media = content_type.substr(0, end);
  while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.remove_suffix(1);
  while (!media.empty() && (media.front() == ' ' || media.front() == '\t')) media.remove_prefix(1);
  return lower(media) == "application/json";
}

}  // namespace fp::service
