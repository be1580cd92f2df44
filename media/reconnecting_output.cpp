#include "media/reconnecting_output.hpp"

#include "media/ffmpeg_common.hpp"
#include "media/media_error.hpp"

namespace fp {

ReconnectingOutput::ReconnectingOutput(std::string name, OutputTarget target, const SinkOptions& options)
    : output_(std::move(name), std::move(target), options), gaps_(options.reconnect, options.on_reconnect) {}

bool ReconnectingOutput::write_frame(const std::function<void()>& write_packets) {
  try {
    write_packets();
  } catch (const MediaError& e) {
    if (!gaps_.policy().enabled()) throw;
    lose_receiver(e.what());
    return false;
  }
  if (gaps_.policy().enabled()) gaps_.frame_passed(IoDeadline::Clock::now());
  return true;
}

void ReconnectingOutput::finalize(const std::function<void()>& write_last_packets) {
  if (!output_.is_open()) {
    gaps_.end();
    return;
  }
  output_.finalize(write_last_packets);
}

// The receiver went away: the muxer is let go (MuxedOutput::abandon) and the first attempt
// is scheduled.
void ReconnectingOutput::lose_receiver(const std::string& reason) {
  output_.abandon();
  gaps_.lost(reason);
  schedule_attempt();
}

void ReconnectingOutput::schedule_attempt() {
  if (!gaps_.next_attempt()) {
    const int attempts = gaps_.policy().attempts;
    ff::fail(output_.name(), "the receiver went away (" + gaps_.gap().reason + ") and could not be reached again in " +
                                 std::to_string(attempts) + " attempt" + (attempts == 1 ? "" : "s") +
                                 (gaps_.last_error().empty() ? "" : "; the last: " + gaps_.last_error()));
  }
  next_attempt_at_ = IoDeadline::Clock::now() + gaps_.delay_before_attempt();
}

bool ReconnectingOutput::reconnect_when_due() {
  if (output_.stop_requested() || IoDeadline::Clock::now() < next_attempt_at_) return false;
  try {
    output_.reopen();
  } catch (const MediaError& e) {
    if (output_.stop_requested()) return false;
    gaps_.attempt_failed(e.what());
    schedule_attempt();
    return false;
  }
  gaps_.back();
  return true;
}

}  // namespace fp
