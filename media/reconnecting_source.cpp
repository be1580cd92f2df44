// A live input that survives its server: when the stream stops, the session is dropped
// and the input opened again with exponential backoff, while the caller's outputs stay
// open. The frames it hands out look like one stream: the first session's size and time
// base, and pts that never go backwards.
#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "media/media_error.hpp"
#include "media/reconnect.hpp"
#include "media/sources.hpp"
#include "media/stream_gaps.hpp"

extern "C" {
#include <libavutil/error.h>
#include <libavutil/mathematics.h>
}

namespace fp {

std::chrono::milliseconds backoff_delay(const ReconnectPolicy& policy, int attempt) {
  const std::int64_t max_ms = std::max(policy.max_ms, 1);
  std::int64_t delay = std::max(policy.initial_ms, 1);
  for (int i = 1; i < attempt && delay < max_ms; ++i) delay *= 2;
  return std::chrono::milliseconds(std::min(delay, max_ms));
}

bool sleep_unless_stopped(std::chrono::milliseconds delay, const std::function<bool()>& stopped) {
  constexpr auto kPoll = std::chrono::milliseconds(10);
  const auto until = std::chrono::steady_clock::now() + delay;
  while (!stopped()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return true;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(kPoll, until - now));
  }
  return false;
}

bool is_final_refusal(int av_error) {
  return av_error == AVERROR_HTTP_UNAUTHORIZED || av_error == AVERROR_HTTP_FORBIDDEN;
}

namespace {

using Clock = std::chrono::steady_clock;

class ReconnectingSource final : public FrameSource {
 public:
  ReconnectingSource(std::string name, std::unique_ptr<FrameSource> first,
                     std::function<std::unique_ptr<FrameSource>()> open_session,
                     std::shared_ptr<std::atomic<bool>> halt, const SourceOptions& options)
      : name_(std::move(name)),
        open_session_(std::move(open_session)),
        halt_(std::move(halt)),
        stop_(options.stop),
        gaps_(options.reconnect, options.on_reconnect),
        session_(std::move(first)),
        info_(session_->info()),
        decoder_(session_->decoder_name()) {
    frame_duration_ = nominal_frame_duration();
    session_starting_ = true;
  }

  const VideoInfo& info() const override { return info_; }
  std::string decoder_name() const override { return decoder_; }
  void interrupt() override { halt_->store(true); }
  const DecodeErrors& decode_errors() const override {
    all_errors_ = past_errors_;
    if (session_) all_errors_.merge(session_->decode_errors());
    return all_errors_;
  }
  const ReconnectStats* reconnect_stats() const override { return &gaps_.stats(); }
  void start_at_live_edge() override {
    live_edge_ = true;
    if (session_) session_->start_at_live_edge();
  }
  std::int64_t frames_skipped_to_live() const override {
    return past_skipped_ + (session_ ? session_->frames_skipped_to_live() : 0);
  }

  std::optional<Frame> read() override {
    for (;;) {
      if (stopped()) return end_in_gap();
      if (!session_ && !reconnect()) return end_in_gap();
      if (!session_) continue;  // that attempt failed; the next one after its backoff
      std::string reason = "the stream ended";
      try {
        if (auto frame = session_->read()) return deliver(std::move(*frame));
      } catch (const StreamLost& e) {
        reason = e.what();
      }
      if (stopped()) return end_in_gap();
      lose(std::move(reason));
    }
  }

 private:
  bool stopped() const { return halt_->load() || (stop_ != nullptr && stop_->load()); }

  // One frame time in the first session's time base (the pts step), or 1 when unknown.
  std::int64_t nominal_frame_duration() const {
    const Rational tb = info_.time_base;
    const Rational fps = info_.frame_rate;
    if (tb.num <= 0 || tb.den <= 0 || fps.num <= 0 || fps.den <= 0) return 1;
    const std::int64_t duration =
        av_rescale_q(1, AVRational{fps.den, fps.num}, AVRational{tb.num, tb.den});
    return std::max<std::int64_t>(duration, 1);
  }

  // The first session's clock, continued: a later session starts one frame after the last
  // frame handed out, whatever its own pts say (an RTSP session's clock starts anew).
  Frame deliver(Frame frame) {
    const auto now = Clock::now();
    // A later session's first frame: what came before it is the other side of a gap.
    frame.follows_gap = std::exchange(after_gap_, false);
    if (frame.pts != kNoPts && (frame.time_base.num != info_.time_base.num || frame.time_base.den != info_.time_base.den))
      frame.pts = av_rescale_q(frame.pts, AVRational{frame.time_base.num, frame.time_base.den},
                               AVRational{info_.time_base.num, info_.time_base.den});
    frame.time_base = info_.time_base;
    if (frame.pts == kNoPts) {
      frame.pts = has_last_ ? last_pts_ + frame_duration_ : 0;
    } else {
      if (session_starting_) pts_offset_ = has_last_ ? last_pts_ + frame_duration_ - frame.pts : 0;
      session_starting_ = false;
      frame.pts += pts_offset_;
    }
    if (has_last_ && frame.pts <= last_pts_) frame.pts = last_pts_ + 1;  // never backwards
    last_pts_ = frame.pts;
    has_last_ = true;
    if (gaps_.in_gap()) {
      if (session_) decoder_ = session_->decoder_name();
      gaps_.back(decoder_);
    }
    gaps_.frame_passed(now);
    return frame;
  }

  void lose(std::string reason) {
    past_errors_.merge(session_->decode_errors());
    past_skipped_ += session_->frames_skipped_to_live();
    session_.reset();  // closes the connection now: the server sees us go
    gaps_.lost(std::move(reason));
  }

  // Waits out the backoff and tries one open. False when stopped meanwhile; throws when
  // the attempts are used up, the server refuses for good, or the stream is not the same.
  bool reconnect() {
    if (!gaps_.next_attempt()) {
      const int attempts = gaps_.policy().attempts;
      throw MediaError(name_ + ": the stream was lost (" + gaps_.gap().reason + ") and did not come back after " +
                       std::to_string(attempts) + " reconnect attempt" + (attempts == 1 ? "" : "s") +
                       (gaps_.last_error().empty() ? "" : "; the last: " + gaps_.last_error()));
    }
    if (!sleep_unless_stopped(gaps_.delay_before_attempt(), [this] { return stopped(); })) return false;
    std::unique_ptr<FrameSource> fresh;
    try {
      fresh = open_session_();
    } catch (const MediaError& e) {
      if (stopped()) return false;
      if (is_final_refusal(e.av_error())) {
        gaps_.end();
        throw MediaError(std::string(e.what()) + " (while reconnecting; not retried: waiting does not change this)",
                         e.av_error());
      }
      gaps_.attempt_failed(e.what());
      return true;
    }
    check_same_stream(*fresh);
    session_ = std::move(fresh);
    if (live_edge_) session_->start_at_live_edge();  // what the new session buffered is old
    session_starting_ = true;
    after_gap_ = true;
    return true;
  }

  // Stages and encoders were prepared for the first session's size: a frame of another
  // size must never reach them. The run ends with the frames it has (exit 1); a new run
  // picks up the new size. Another codec or pixel format is fine: frames are I420 anyway.
  void check_same_stream(const FrameSource& fresh) {
    const VideoInfo& now = fresh.info();
    if (now.width == info_.width && now.height == info_.height) return;
    gaps_.end();
    throw MediaError(name_ + ": after reconnecting, the frame size is " + std::to_string(now.width) + "x" +
                     std::to_string(now.height) + " instead of " + std::to_string(info_.width) + "x" +
                     std::to_string(info_.height) + "; a run handles one size (start a new run for the new size)");
  }

  // The run ends in a gap (a stop, or the caller gave up): the gap is recorded as it stands.
  std::optional<Frame> end_in_gap() {
    gaps_.end();
    return std::nullopt;
  }

  std::string name_;
  std::function<std::unique_ptr<FrameSource>()> open_session_;
  std::shared_ptr<std::atomic<bool>> halt_;  // set by interrupt(); every session polls it
  const std::atomic<bool>* stop_;
  StreamGaps gaps_;
  std::unique_ptr<FrameSource> session_;  // null during a gap
  VideoInfo info_;                        // the first session's: what the pipeline was set up for
  std::string decoder_;

  std::int64_t frame_duration_ = 1;
  std::int64_t pts_offset_ = 0;  // added to the current session's pts
  std::int64_t last_pts_ = 0;
  bool has_last_ = false;
  bool session_starting_ = false;
  bool after_gap_ = false;  // a session opened after a loss has not handed out a frame yet

  DecodeErrors past_errors_;  // of the sessions already closed
  std::int64_t past_skipped_ = 0;  // their frames skipped to the live edge
  bool live_edge_ = false;  // start_at_live_edge(): every session starts at the live edge
  mutable DecodeErrors all_errors_;
};

}  // namespace

std::unique_ptr<FrameSource> make_reconnecting_source(std::string name, std::unique_ptr<FrameSource> first,
                                                      std::function<std::unique_ptr<FrameSource>()> open_session,
                                                      std::shared_ptr<std::atomic<bool>> halt,
                                                      const SourceOptions& options) {
  return std::make_unique<ReconnectingSource>(std::move(name), std::move(first), std::move(open_session),
                                              std::move(halt), options);
}

}  // namespace fp
