// Damaged input: what a source does about it (skip or stop) and what it counts. A damaged
// packet (lost data in the container, or bytes the decoder rejects) or a frame decoded
// with concealed errors must not end a live stream or a long file, as in FFmpeg; `Stop`
// is for users who would rather fail fast.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/frame.hpp"

namespace fp {

enum class OnDecodeError {
  Skip,  // count it, warn, go on with the next packet (frames with concealed errors are kept)
  Stop,  // end the stream with a MediaError naming the file and the position
};

// Where one damage was found. Positions a source does not know are -1 / kNoPts.
struct DecodeErrorPosition {
  std::int64_t packet = -1;  // index among the video stream's packets (0-based)
  std::int64_t frame = -1;   // index among the frames decoded (0-based), for damaged frames
  std::int64_t pts = kNoPts;  // of the packet or frame, in time_base units
  Rational time_base{1, 1};
  std::string reason;  // e.g. FFmpeg's "Invalid data found when processing input"

  bool has_time() const { return pts != kNoPts && time_base.den != 0; }
  double seconds() const { return static_cast<double>(pts) * time_base.value(); }  // pts in seconds
  // "packet 42 (1.680 s)", "frame 40 (1.600 s)", "packet 7": for messages.
  std::string where() const;
};

struct DecodeErrors {
  static constexpr std::size_t kPositionsKept = 5;

  std::int64_t packets = 0;  // damaged packets: flagged corrupt by the demuxer, or rejected by the decoder
  std::int64_t frames = 0;   // frames delivered with errors concealed by the decoder
  std::vector<DecodeErrorPosition> first;  // the first kPositionsKept, in the order found
  DecodeErrorPosition last;                 // the latest (when total() > 0)

  std::int64_t total() const { return packets + frames; }
  void add_packet(DecodeErrorPosition position);
  void add_frame(DecodeErrorPosition position);
  // Adds the counts and positions of another session of the same input (a reconnect).
  void merge(const DecodeErrors& other);
  // "3 damaged packets, 1 frame with concealed errors" ("" when there are none).
  std::string summary() const;

 private:
  void keep(DecodeErrorPosition position);
};

}  // namespace fp
