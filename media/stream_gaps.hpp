// The bookkeeping of a stream that is lost and comes back: the current gap, its attempts
// and their backoff, the statistics, and the events for the log. Shared by an input that
// reconnects (media/reconnecting_source.cpp) and a network output that does
// (media/reconnecting_output.cpp); each decides itself when to try.
#pragma once

#include <chrono>
#include <string>

#include "media/reconnect.hpp"

namespace fp {

class StreamGaps {
 public:
  using Clock = std::chrono::steady_clock;

  StreamGaps(ReconnectPolicy policy, ReconnectListener listener);

  const ReconnectPolicy& policy() const { return policy_; }
  const ReconnectStats& stats() const { return stats_; }
  bool in_gap() const { return in_gap_; }
  int attempt() const { return attempt_; }             // of the current gap
  const StreamGap& gap() const { return gap_; }
  const std::string& last_error() const { return last_error_; }  // of the latest failed attempt

  void frame_passed(Clock::time_point now) { last_frame_at_ = now; }
  // The stream stopped: a gap starts; the first attempt is due after backoff_delay(1).
  void lost(std::string reason);
  // Counts the next attempt of this gap; false (the gap recorded) when the policy's
  // attempts are used up.
  bool next_attempt();
  std::chrono::milliseconds delay_before_attempt() const { return backoff_delay(policy_, attempt_); }
  void attempt_failed(std::string error);
  // The stream is back; `detail` (e.g. the decoder in use) goes into the event.
  void back(std::string detail = {});
  // The run ends (or gives up) during a gap: the gap is recorded as it stands.
  void end();

 private:
  void record(Clock::time_point now);
  void notify(const ReconnectEvent& event) const {
    if (listener_) listener_(event);
  }

  ReconnectPolicy policy_;
  ReconnectListener listener_;
  Clock::time_point opened_at_ = Clock::now();
  Clock::time_point last_frame_at_{};
  Clock::time_point lost_at_{};
  bool in_gap_ = false;
  int attempt_ = 0;
  StreamGap gap_;
  std::string last_error_;
  ReconnectStats stats_;
};

}  // namespace fp
