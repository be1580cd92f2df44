#include "media/served_protocols.hpp"

#include <array>

#include "media/url_protocol.hpp"

namespace fp {

namespace {

struct ServedProtocol {
  std::string_view scheme;
  std::string_view whitelist;  // what FFmpeg may open for it, itself first
};

// RTSP talks over tcp (or tls for rtsps), receives RTP over udp (or srtp), and may tunnel
// through http. RTMP over tcp or tls. HTTP may be redirected to https, may go through a
// proxy (httpproxy), and an HLS playlist's encrypted segments are opened as crypto+http.
constexpr std::string_view kRtsp = "rtsp,rtsps,rtp,srtp,udp,tcp,tls,http,https,httpproxy";
constexpr std::string_view kRtmp = "rtmp,rtmps,tcp,tls";
constexpr std::string_view kHttp = "http,https,tcp,tls,crypto,httpproxy";

constexpr std::array<ServedProtocol, 9> kServed = {{
    {"rtsp", kRtsp},
    {"rtsps", kRtsp},
    {"rtmp", kRtmp},
    {"rtmps", kRtmp},
    {"udp", "udp"},
    {"rtp", "rtp,udp"},
    {"srt", "srt"},
    {"http", kHttp},
    {"https", kHttp},
}};

}  // namespace

std::vector<std::string> served_network_schemes() {
  std::vector<std::string> schemes;
  for (const auto& served : kServed) schemes.push_back(std::string(served.scheme) + "://");
  return schemes;
}

std::optional<std::string> served_protocol_whitelist(std::string_view url) {
  const UrlProtocol protocol = url_protocol(url);
  if (url.substr(protocol.name.size(), 3) != "://") return std::nullopt;
  for (const auto& served : kServed)
    if (protocol.name == served.scheme) return std::string(served.whitelist);
  return std::nullopt;
}

}  // namespace fp
