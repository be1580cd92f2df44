#include "media/output_target.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "media/stream_uri.hpp"
#include "media/uri_query.hpp"

namespace fp {

namespace {


std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// ".mp4" of "dir/a.MP4"; "" when the last path component has no dot.
std::string extension(std::string_view path) {
  const auto slash = path.find_last_of('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const auto dot = name.find_last_of('.');
  if (dot == std::string_view::npos || dot == 0) return "";
  return lower(name.substr(dot));
}

// host:port of scheme://host:port/... must name a port: FFmpeg would otherwise pick one the
// receiver does not listen on (udp, srt) or fail with a less clear message.
void require_port(std::string_view output, std::string_view scheme) {
  const std::string_view rest = output.substr(scheme.size());
  const auto end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) authority = authority.substr(at + 1);
  const auto colon = authority.rfind(':');
  const bool bracketed_v6 = !authority.empty() && authority.back() == ']';
  if (authority.empty() || colon == std::string_view::npos || bracketed_v6 || colon + 1 == authority.size())
    throw std::invalid_argument(std::string(scheme) + " output needs host:port (e.g. " + std::string(scheme) +
                                "127.0.0.1:5000)");
  for (char c : authority.substr(colon + 1))
    if (!std::isdigit(static_cast<unsigned char>(c)))
      throw std::invalid_argument("port of the " + std::string(scheme) + " output is not a number");
}

// Adds key=value to the URL's query unless the user gave that key.
std::string with_default_query(std::string url, std::string_view key, std::string_view value) {
  const auto question = url.find('?');
  if (question != std::string::npos)
    for (const QueryItem& item : query_items(std::string_view(url).substr(question + 1)))
      if (item.key == key && item.has_value) return url;
  url.push_back(question == std::string::npos ? '?' : '&');
  url.append(key).push_back('=');
  url.append(value);
  return url;
}

constexpr std::string_view kFileKinds = ".mp4, .mkv, .ts, .y4m, .m3u8, udp://, srt://, rtsp:// or null";

}  // namespace

OutputTarget parse_output_target(std::string_view output) {
  OutputTarget target;
  if (output.empty() || output == "null") return target;
  target.url = std::string(output);
  // MPEG-TS over datagrams: 7 TS packets (1316 bytes) per datagram fit any Ethernet MTU, so
  // no datagram is fragmented (a lost fragment loses all seven packets).
  if (output.starts_with("udp://")) {
    require_port(output, "udp://");
    target.kind = OutputKind::Udp;
    target.muxer = "mpegts";
    target.url = with_default_query(target.url, "pkt_size", "1316");
    return target;
  }
  if (output.starts_with("srt://")) {
    require_port(output, "srt://");
    target.kind = OutputKind::Srt;
    target.muxer = "mpegts";
    target.url = with_default_query(target.url, "pkt_size", "1316");
    // SRT's live mode drops what is still unsent when the socket closes: the last second of
    // the stream (x264's delayed frames, flushed at the end) would be lost. Closing waits up
    // to 3 s for the receiver to take it.
    target.url = with_default_query(target.url, "linger", "3");
    return target;
  }
  if (is_rtsp_uri(output)) {
    require_port(output, output.starts_with("rtsps://") ? "rtsps://" : "rtsp://");
    const RtspUri rtsp = parse_rtsp_uri(output);  // throws for a transport other than tcp|udp
    target.kind = OutputKind::Rtsp;
    target.muxer = "rtsp";
    target.url = rtsp.url;
    target.rtsp_over_udp = rtsp.transport == RtspTransport::Udp;
    return target;
  }
  if (const auto scheme = output.find("://"); scheme != std::string_view::npos)
    throw std::invalid_argument("unsupported output protocol '" + std::string(output.substr(0, scheme)) + "://' (use " +
                                std::string(kFileKinds) + ")");
  const std::string ext = extension(target.url);
  if (ext == ".mp4") {
    target.muxer = "mp4";
  } else if (ext == ".mkv") {
    target.muxer = "matroska";
  } else if (ext == ".ts") {
    target.muxer = "mpegts";
  } else if (ext == ".y4m") {
    target.muxer = "yuv4mpegpipe";
  } else if (ext == ".m3u8") {
    target.kind = OutputKind::Hls;
    target.muxer = "hls";
    return target;
  } else if (ext.empty()) {
    throw std::invalid_argument("output has no extension (use " + std::string(kFileKinds) + ")");
  } else {
    const auto dot = target.url.find_last_of('.');
    throw std::invalid_argument("unsupported output extension '" + target.url.substr(dot) + "' (use " +
                                std::string(kFileKinds) + ")");
  }
  target.kind = OutputKind::File;
  return target;
}

bool is_network_output(OutputKind kind) {
  return kind == OutputKind::Udp || kind == OutputKind::Srt || kind == OutputKind::Rtsp;
}

bool is_network_output(std::string_view output) {
  try {
    return is_network_output(parse_output_target(output).kind);
  } catch (const std::invalid_argument&) {
    return false;
  }
}

std::string output_target_problem(std::string_view output, std::string_view codec) {
  OutputTarget target;
  try {
    target = parse_output_target(output);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  if (target.kind == OutputKind::Null) return "";
  if (!codec.empty() && codec != "h264" && codec != "rawvideo" && codec != "auto" && codec != "h264_nvenc" &&
      codec != "hevc_nvenc")
    return "unsupported codec '" + std::string(codec) + "' (use h264, h264_nvenc, hevc_nvenc, auto or rawvideo)";
  // .y4m holds raw frames whatever codec is asked for; raw frames fit no other output.
  const bool raw = target.muxer == "yuv4mpegpipe";
  if (codec == "rawvideo" && !raw) return "codec rawvideo needs a .y4m output (this output takes h264)";
  return "";
}

}  // namespace fp
