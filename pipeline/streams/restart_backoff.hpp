// How long a live stream that failed waits before the stream manager starts it again: the
// first wait, then twice the last one after each further failure, up to the longest; a run
// that had been running for `healthy_after` before it failed starts over from the first wait
// (a camera that drops once a day is not made to wait minutes). As Kubernetes restarts a
// crashing pod. Plain arithmetic on the durations it is given, so it is tested without clocks.
#pragma once

#include <chrono>

namespace fp {

struct RestartPolicy {
  std::chrono::milliseconds first{5000};       // serve --restart-wait
  std::chrono::milliseconds longest{300000};   // serve --restart-wait-max
  std::chrono::milliseconds healthy_after{60000};
};

class RestartBackoff {
 public:
  explicit RestartBackoff(RestartPolicy policy = {}) : policy_(policy) {}

  // The wait before the next start, for a run that failed after running (frames flowing)
  // for `ran` (zero: it never ran, e.g. its camera did not answer).
  std::chrono::milliseconds after_failure(std::chrono::steady_clock::duration ran);
  std::chrono::milliseconds last_wait() const { return wait_; }  // 0 before the first failure

 private:
  RestartPolicy policy_;
  std::chrono::milliseconds wait_{0};
};

}  // namespace fp
