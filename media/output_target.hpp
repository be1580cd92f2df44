// Where an encode stage's output goes, from its `output` text alone: a file whose extension
// picks the container, an HLS playlist, or a network stream whose scheme picks the protocol.
// Pure string work (no FFmpeg, no file system), so configuration checks and the executor
// use it as freely as the sink that opens it.
#pragma once

#include <string>
#include <string_view>

namespace fp {

enum class OutputKind {
  Null,  // "null" or "": frames are discarded
  File,  // .mp4, .mkv, .ts (H.264) or .y4m (raw frames)
  Hls,   // .m3u8: a playlist and MPEG-TS segments beside it, written while the run goes on
  Udp,   // udp://host:port — MPEG-TS in UDP datagrams (multicast addresses work too)
  Srt,   // srt://host:port?mode=caller|listener — MPEG-TS over SRT
  Rtsp,  // rtsp://host:port/path — published (ANNOUNCE + RECORD) to an RTSP server
};

struct OutputTarget {
  OutputKind kind = OutputKind::Null;
  std::string muxer;  // FFmpeg's muxer: mp4, matroska, mpegts, yuv4mpegpipe, hls, rtsp
  std::string url;    // what FFmpeg opens (framepipe's own query parameters removed)
  bool rtsp_over_udp = false;  // rtsp://...?transport=udp (TCP by default)
};

// Throws std::invalid_argument with the reason (without the text itself, which may hold a
// password) when the output is not one framepipe writes.
OutputTarget parse_output_target(std::string_view output);

// A stream sent over the network: no file is created, so there is no directory to check,
// and its connect and writes get deadlines.
bool is_network_output(OutputKind kind);
bool is_network_output(std::string_view output);

// "" when the output and codec go together, else the reason (for configuration checks).
std::string output_target_problem(std::string_view output, std::string_view codec);

}  // namespace fp
