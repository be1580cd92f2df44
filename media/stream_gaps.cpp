#include "media/stream_gaps.hpp"

#include <algorithm>

namespace fp {

namespace {

double ms_between(StreamGaps::Clock::time_point from, StreamGaps::Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

}  // namespace

StreamGaps::StreamGaps(ReconnectPolicy policy, ReconnectListener listener)
    : policy_(policy), listener_(std::move(listener)) {}

void StreamGaps::lost(std::string reason) {
  in_gap_ = true;
  attempt_ = 0;
  lost_at_ = Clock::now();
  gap_ = StreamGap{.lost_at_s = ms_between(opened_at_, lost_at_) / 1000.0, .reason = std::move(reason)};
  ++stats_.gaps_total;
  notify({.kind = ReconnectEvent::Kind::Lost, .reason = gap_.reason, .delay = backoff_delay(policy_, 1)});
}

bool StreamGaps::next_attempt() {
  ++attempt_;
  if (policy_.attempts == ReconnectPolicy::kForever || attempt_ <= policy_.attempts) return true;
  gap_.attempts = attempt_ - 1;
  in_gap_ = false;
  record(Clock::now());
  return false;
}

void StreamGaps::attempt_failed(std::string error) {
  last_error_ = std::move(error);
  ++stats_.failed_attempts;
  notify({.kind = ReconnectEvent::Kind::AttemptFailed, .reason = last_error_, .attempt = attempt_,
          .delay = backoff_delay(policy_, attempt_ + 1)});
}

void StreamGaps::back(std::string detail) {
  const auto now = Clock::now();
  in_gap_ = false;
  gap_.attempts = attempt_;
  gap_.back = true;
  ++stats_.reconnects;
  record(now);
  notify({.kind = ReconnectEvent::Kind::Back, .attempt = attempt_, .gap = gap_, .decoder = std::move(detail)});
  last_error_.clear();
}

void StreamGaps::end() {
  if (!in_gap_) return;
  in_gap_ = false;
  gap_.attempts = attempt_;
  record(Clock::now());
}

void StreamGaps::record(Clock::time_point now) {
  gap_.reconnect_ms = ms_between(lost_at_, now);
  gap_.gap_ms = ms_between(last_frame_at_ == Clock::time_point{} ? lost_at_ : last_frame_at_, now);
  stats_.total_gap_ms += gap_.gap_ms;
  stats_.longest_gap_ms = std::max(stats_.longest_gap_ms, gap_.gap_ms);
  if (stats_.gaps.size() == ReconnectStats::kGapsKept) stats_.gaps.erase(stats_.gaps.begin());
  stats_.gaps.push_back(gap_);
}

}  // namespace fp
