// Where frames come from: a file or network stream decoded by FFmpeg, a camera, or the
// built-in synthetic test source. Frames are I420 in host memory.
//
// URIs:
//   testsrc://WxH@FPS?noise=SIGMA&frames=N&loop=K   deterministic synthetic video
//                                            (frames=0: endless; loop: repeat the first K)
//   v4l2:///dev/video0?size=WxH&fps=F&format=mjpeg  a V4L2 camera (libavdevice); each
//                                            parameter optional (the camera's current mode)
//   rtsp://..., http://..., a file path      anything FFmpeg's demuxers read (mp4, mkv, ts, y4m...)
//   rtsp://user:pass@host/path?transport=udp  RTSP over UDP (TCP by default)
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/frame.hpp"
#include "core/path_confinement.hpp"
#include "core/frame_pool.hpp"
#include "media/decode_errors.hpp"
#include "media/reconnect.hpp"
#include "media/video_info.hpp"

namespace fp {

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  virtual const VideoInfo& info() const = 0;
  // The next frame, or nullopt at the end of the stream. Throws MediaError on failure.
  virtual std::optional<Frame> read() = 0;
  // Name of the decoder in use, e.g. "h264 (nvdec)", "h264 (software)" or "testsrc"; where
  // NVDEC was asked for (auto) but not used, why: "h264 (software; NVDEC: ...)".
  virtual std::string decoder_name() const = 0;
  // Asks a blocking read() to give up soon (live sources); safe from another thread.
  virtual void interrupt() {}
  // Damage found so far (skipped under OnDecodeError::Skip). Call from the reading thread,
  // or once reading is over.
  virtual const DecodeErrors& decode_errors() const {
    static const DecodeErrors none;
    return none;
  }
  // Gaps and reconnects of a source that reconnects, else null. Same threading as decode_errors().
  virtual const ReconnectStats* reconnect_stats() const { return nullptr; }
  // A live input: the frames already waiting when reading begins (what opening it buffered,
  // and what came in while the pipeline was set up; after a reconnect, the new session's)
  // are decoded but not handed out, so that the first frame read is a current one. Call
  // before the first read(); files and the test source ignore it.
  virtual void start_at_live_edge() {}
  // Frames skipped so; same threading as decode_errors().
  virtual std::int64_t frames_skipped_to_live() const { return 0; }
};

// Where FFmpeg inputs are decoded. Nvdec: on the GPU (FFmpeg's CUDA hwaccel), frames stay
// in device memory as NV12 (see Frame::layout); an input NVDEC cannot decode fails. Auto:
// NVDEC where it can, else software, saying why (decoder_name()). Software: on the CPU.
enum class DecodeMode { Auto, Nvdec, Software };

struct SourceOptions {
  PlaneMemory memory;  // where frames are made (see open_source)
  DecodeMode decode = DecodeMode::Software;
  int cuda_device = -1;  // the GPU that NVDEC decodes on (Auto and Nvdec)
  // Decoded frames the caller may hold at once (queued and in flight): NVDEC's decoder
  // keeps a surface for each, beside those its own reference frames need.
  int frames_held = 8;
  OnDecodeError on_error = OnDecodeError::Skip;
  const std::atomic<bool>* stop = nullptr;  // see open_source
  // Network inputs: a read that delivers nothing for this long fails (the stream is lost);
  // an open gets twice as long in all.
  int network_timeout_ms = 5000;
  // Used only when enabled: the first open is never retried (a wrong URI, password or host
  // is reported at once); a stream that stops after it opened is opened again.
  ReconnectPolicy reconnect;
  ReconnectListener on_reconnect;  // gaps and reconnects as they happen (may be empty)
  // Set for a stream of `framepipe serve` (unset: FFmpeg's defaults, as `framepipe run` has
  // them). A file or camera is opened beneath one of `input_roots` only, and a file's
  // demuxer may open nothing else; a network input may use only the protocols its scheme
  // needs (served_protocols.hpp), never a file.
  std::optional<PathConfinement> confined;
};

// Opens a source; throws MediaError naming the URI and the reason. Frames are made in
// `memory` (page-locked memory when they will be uploaded to a GPU, so that the upload is
// asynchronous). `on_error` says what a damaged packet or frame does (see decode_errors.hpp).
// `stop` (may be null) is polled by every blocking open and read: once it is set they give
// up at once (an open then throws, a read ends the stream).
std::unique_ptr<FrameSource> open_source(const std::string& uri, const PlaneMemory& memory = {},
                                         OnDecodeError on_error = OnDecodeError::Skip,
                                         const std::atomic<bool>* stop = nullptr);
std::unique_ptr<FrameSource> open_source(const std::string& uri, const SourceOptions& options);

}  // namespace fp
