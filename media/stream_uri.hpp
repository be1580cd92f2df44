// What a network URI says beyond its address: credentials that must never be printed, the
// RTSP transport chosen in the query, and whether it is a live feed.
#pragma once

#include <string>
#include <string_view>

namespace fp {

// The URI with the password of its user info replaced: rtsp://user:***@host/path. User
// info without a password (which may be a token) becomes ***. Anything else is unchanged.
// Every message, log line and statistic that names an input uses this form.
std::string mask_credentials(std::string_view uri);

// A protocol that delivers a live feed (rtsp, rtsps, rtmp, rtmps, udp, rtp, srt): frames
// arrive in real time, and its end means the sender went away rather than the end of the
// video, so such inputs reconnect by default. http(s) is not among them: an HTTP URL is
// usually a file, whose end is the end.
bool is_live_uri(std::string_view uri);

// An input that never ends by itself: a live feed (above), a camera (v4l2://) or an endless
// testsrc (frames=0). A run on many streams starts these whatever its --jobs cap, since a
// stream queued behind one would wait forever.
bool is_endless_uri(const std::string& uri);

// An input read from a server (scheme://, but not file:// or a v4l2:// device): it gets
// timeouts, since a server may stop answering.
bool is_network_uri(std::string_view uri);

enum class RtspTransport { Tcp, Udp };

// An rtsp:// URI split into what FFmpeg opens and framepipe's own query parameter
// `transport=tcp|udp` (default tcp), which FFmpeg would otherwise send to the server as
// part of the path. Other query parameters stay in the URL.
struct RtspUri {
  std::string url;
  RtspTransport transport = RtspTransport::Tcp;
};

// Throws std::invalid_argument (its text without the URI) for a transport other than tcp|udp.
RtspUri parse_rtsp_uri(std::string_view uri);

// "" when the URI is acceptable, else the problem (for configuration checks).
std::string rtsp_uri_problem(std::string_view uri);

bool is_rtsp_uri(std::string_view uri);

}  // namespace fp
