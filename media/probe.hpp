// `framepipe probe`: what a URI holds and how framepipe would decode it.
#pragma once

#include <atomic>
#include <string>
#include <vector>

namespace fp {

struct StreamDescription {
  int index = 0;
  std::string type;     // video, audio, subtitle, data
  std::string codec;    // e.g. h264
  std::string details;  // e.g. "1920x1080 yuv420p 30 fps, 300 frames"
  int width = 0;        // video: the frame size (0 when unknown)
  int height = 0;
  double frame_rate = 0;  // video: nominal frames a second (0 when unknown)
  std::string decoder;  // for video: the decoder framepipe would use (on the CPU)
  // For video on a GPU (decode: auto): "h264 (nvdec)", or software and why not NVDEC. Whether
  // the GPU itself takes the profile shows only when decoding starts.
  std::string gpu_decoder;
};

struct ProbeResult {
  std::string uri;
  std::string format;  // container, e.g. "mov,mp4,m4a,3gp,3g2,mj2"
  double duration_seconds = -1;
  std::vector<StreamDescription> streams;
};

// `stop` (may be null) is polled while the URI is opened and read: once it is set, a wait
// (a server that accepts and never answers) ends at once with a MediaError.
ProbeResult probe(const std::string& uri, const std::atomic<bool>* stop = nullptr);  // throws MediaError

}  // namespace fp
