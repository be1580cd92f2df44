// What a network URI says beyond its address: credentials that must never be printed, the
// RTSP transport chosen in the query, and whether it is a live feed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fp {

// The URI with its secrets replaced by ***, the one form in which any message, log line,
// statistic or summary names an input or output:
//  - user info: rtsp://user:***@host/path; user info without a ':' (a token) becomes ***.
//    The password may hold '/', '@', ':', '?' unescaped: user info ends at the LAST '@'
//    before the query's first key=value (so an e-mail address in a query is no user info,
//    but a path holding '@' is taken for one: masking too much is the safe mistake).
//  - the values of secret-looking query keys (is_secret_query_key): srt://h:9000?passphrase=***.
// Text without "://" is returned unchanged.
std::string mask_credentials(std::string_view uri);

// A query key whose value is a secret, case-insensitive: passphrase, password, passwd, pass,
// pwd, token, key, secret, auth, authorization, sig, signature, apikey, credential(s),
// session, sessionid as the whole key or as one of its words (api_key, stream-key,
// X-Amz-Signature), or a key ending in token, secret, password, passphrase, signature,
// credential(s) or apikey (accessToken). pbkeylen or keyint are no secrets.
bool is_secret_query_key(std::string_view key);

// Free text (an error message, a log line, a configuration value) with every URI in it
// (scheme:// up to the next white space) masked by mask_credentials.
std::string mask_uris_in_text(std::string_view text);

// A protocol that delivers a live feed (rtsp, rtsps, rtmp, rtmps, udp, rtp, srt): frames
// arrive in real time, and its end means the sender went away rather than the end of the
// video, so such inputs reconnect by default. http(s) is not among them: an HTTP URL is
// usually a file, whose end is the end.
bool is_live_uri(std::string_view uri);

// An input that never ends by itself: a live feed (above), a camera (v4l2://) or an endless
// testsrc (frames=0). A run on many streams starts these whatever its --jobs cap, since a
// stream queued behind one would wait forever.
bool is_endless_uri(const std::string& uri);
// A stream that never ends by itself: it has inputs and every one is endless. The one rule
// for `run`'s streams (definition_streams) and serve's (template): a pipeline without a source
// ends at once, whichever front end runs it.
bool endless_inputs(const std::vector<std::string>& uris);

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
