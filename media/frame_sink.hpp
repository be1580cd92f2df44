// Where frames go: an encoded file (H.264 through libx264 into mp4/mkv/ts), an HLS
// playlist, a network stream (udp://, srt://, rtsp:// publish), raw .y4m, or nothing (the
// null sink). media/output_target.hpp tells them apart.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "core/frame.hpp"
#include "core/path_confinement.hpp"
#include "media/reconnect.hpp"
#include "media/video_info.hpp"

namespace fp {

struct SinkOptions {
  std::string path;          // output file or URL; "null" (or empty) for the null sink
  // h264 (libx264) | h264_nvenc | hevc_nvenc (the GPU's encoder; fails where there is none)
  // | auto (h264_nvenc where it opens, else libx264, saying why) | rawvideo (forced for .y4m)
  std::string codec = "h264";
  int crf = 18;              // libx264 constant rate factor, 0..51
  std::string preset = "veryfast";
  // libx264's threads; 0: a share of the process's cores among its encoders
  // (media/encoder_threads.hpp).
  int threads = 0;
  // Live outputs: x264 tune=zerolatency (no lookahead, sliced threads), no B-frames, periodic
  // intra refresh over one second instead of key frames, and every packet handed to the file
  // or network at once.
  bool low_latency = false;
  double hls_segment_seconds = 2;  // .m3u8: target length of a segment (each starts with a key frame)
  int hls_playlist_size = 5;       // .m3u8: segments the playlist lists (older ones deleted); 0: all
  // Network outputs: a connect, write or trailer that makes no progress for this long fails
  // the output (a receiver that stopped reading must not stall the run).
  int network_timeout_ms = 5000;
  const std::atomic<bool>* stop = nullptr;  // ends a connect at once (Ctrl-C); may be null
  // Network outputs: when the receiver goes away (a write fails), frames are not sent while
  // the output connects again with this backoff; the encoder restarts with a key frame.
  ReconnectPolicy reconnect;
  ReconnectListener on_reconnect;  // gaps as they happen (may be empty)
  // Set for a stream of `framepipe serve` (unset: `framepipe run` writes where it is told):
  // a file is created beneath `output_root` only (core/open_beneath.hpp); an HLS playlist,
  // which writes and deletes segments by name, is refused.
  std::optional<PathConfinement> confined;
};

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  // Encodes and muxes one frame (host memory, the size given at open). Throws MediaError.
  virtual void write(const Frame& frame) = 0;
  // Flushes the encoder and finalizes the container (trailer). Idempotent; the destructor
  // calls it too, so a file is finalized even when an error unwinds the stack.
  virtual void close() = 0;
  virtual std::string encoder_name() const = 0;  // e.g. "libx264", "rawvideo (y4m)", "null"
  virtual std::int64_t frames_written() const = 0;
  // Frames the encoder took by reference (no copy into its own picture; media/lent_planes).
  virtual std::int64_t frames_lent() const { return 0; }
  // Gaps of an output that reconnects, else null. Call from the writing thread, or once
  // writing is over.
  virtual const ReconnectStats* reconnect_stats() const { return nullptr; }
};

// The container follows the path's extension (.mp4, .mkv, .ts, .y4m, .m3u8) or the URL's
// scheme (udp://, srt://: MPEG-TS; rtsp://: RTSP publish). Throws MediaError naming the
// output (without its password) when it cannot be created, reached or is not supported;
// output_target_problem() says what would be refused without touching anything.
std::unique_ptr<FrameSink> open_sink(const SinkOptions& options, const VideoInfo& info);

}  // namespace fp
