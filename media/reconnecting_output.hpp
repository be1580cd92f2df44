// A network output that survives its receiver (private to media/): when a write fails, the
// muxer is let go while the encoder stays open, frames are skipped, and the output connects
// again with backoff (SinkOptions::reconnect) on later frames. The output side's twin of
// media/reconnecting_source.cpp; without a reconnect policy it passes failures on, as a
// file does.
#pragma once

#include <functional>
#include <string>

#include "media/muxed_output.hpp"
#include "media/stream_gaps.hpp"

namespace fp {

class ReconnectingOutput {
 public:
  ReconnectingOutput(std::string name, OutputTarget target, const SinkOptions& options);

  bool wants_global_header() const { return output_.wants_global_header(); }
  void open(const AVCodecContext& encoder) { output_.open(encoder); }
  bool is_open() const { return output_.is_open(); }
  // Connects again when the backoff has passed; true when the output is back (its stream
  // then restarts with a key frame). Throws when the attempts are used up.
  bool reconnect_when_due();

  // Runs `write_packets` (one frame's packets, from the encoder to write()). When the output
  // reconnects, a failure there is a lost receiver rather than an error: false, and the
  // frame does not count. After a stop request (Ctrl-C) the run simply ends in the gap: no
  // attempt is made then.
  bool write_frame(const std::function<void()>& write_packets);
  void write(AVPacket& packet) { output_.write(packet); }
  // MuxedOutput::finalize, unless the run ended while the receiver was away: then there is
  // nothing to finalize, and the gap is recorded as it stands.
  void finalize(const std::function<void()>& write_last_packets);
  void close() { output_.close(); }

  const ReconnectStats* stats() const { return gaps_.policy().enabled() ? &gaps_.stats() : nullptr; }

 private:
  void lose_receiver(const std::string& reason);
  void schedule_attempt();

  MuxedOutput output_;
  StreamGaps gaps_;  // the receivers lost
  IoDeadline::Clock::time_point next_attempt_at_{};
};

}  // namespace fp
