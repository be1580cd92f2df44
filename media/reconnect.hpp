// Reconnecting a live input: the policy (exponential backoff), what happened (gaps), and
// the events a caller logs. A stream that stops (the server went away, a read failed or
// timed out, a live stream ended) is opened again after initial_ms, 2x initial_ms, ...
// up to max_ms between attempts, `attempts` times in a row per gap (or forever).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fp {

struct ReconnectPolicy {
  static constexpr int kForever = -1;
  int attempts = 0;  // per gap; 0: off (the end of the stream ends the run); kForever
  int initial_ms = 500;
  int max_ms = 10000;
  // A first open that fails is tried again too, with the same waits, until it opens or the
  // run stops: `reconnect.attempts: forever` said so (a camera that is still booting). Else
  // a first open fails at once: nothing says the input will ever be there.
  bool retry_first_open = false;
  bool enabled() const { return attempts != 0; }
};

// A refusal that waiting does not change: the credentials are wrong (401) or the user may
// not read this stream (403). Retrying would only hammer the camera (some lock the account).
// Everything else is retried: a server that is down, a path not there yet (a camera that
// is booting, or a relay such as mediamtx before its publisher connects, answers 404).
bool is_final_refusal(int av_error);

// Waits `delay`, looking at `stopped` every 10 ms so that Ctrl-C during a long backoff ends
// the wait at once; false when it was stopped.
bool sleep_unless_stopped(std::chrono::milliseconds delay, const std::function<bool()>& stopped);

// The wait before attempt `attempt` (1-based) of a gap: initial_ms * 2^(attempt-1), at most max_ms.
std::chrono::milliseconds backoff_delay(const ReconnectPolicy& policy, int attempt);

// One interruption of the stream.
struct StreamGap {
  double lost_at_s = 0;     // when the loss was noticed, seconds since the input was opened
  double gap_ms = 0;        // the hole in the video: last frame before -> first frame after
  double reconnect_ms = 0;  // loss noticed -> first frame after (the time spent reconnecting)
  int attempts = 0;         // opens tried, the successful one included
  bool back = false;        // false: the run ended (or gave up) before the stream came back
  std::string reason;       // why it was lost (names the input with its password masked)
};

struct ReconnectStats {
  static constexpr std::size_t kGapsKept = 16;  // a camera may drop out for weeks: bounded

  std::int64_t reconnects = 0;       // gaps that ended with the stream back
  std::int64_t failed_attempts = 0;  // opens that failed, over all gaps
  double total_gap_ms = 0;
  double longest_gap_ms = 0;
  std::int64_t gaps_total = 0;    // all gaps, also those no longer in `gaps`
  std::vector<StreamGap> gaps;    // the latest kGapsKept, oldest first
};

struct ReconnectEvent {
  enum class Kind {
    OpenFailed,     // the first open failed (retry_first_open): `reason`; again after `delay`
    Opened,         // the first open succeeded at attempt `attempt` (> 1), `delay` after the first
    Lost,           // the stream stopped: `reason`; the first attempt follows after `delay`
    AttemptFailed,  // attempt `attempt` failed with `reason`; the next one after `delay`
    Back,           // frames again after `gap` (`attempt` opens); `decoder` in use
  };
  Kind kind = Kind::Lost;
  std::string reason;
  int attempt = 0;
  std::chrono::milliseconds delay{0};
  StreamGap gap;
  std::string decoder;
};

using ReconnectListener = std::function<void(const ReconnectEvent&)>;

}  // namespace fp
