// The threads of the process's x264 encoders, drawn from one budget: the cores the process
// may use (core/usable_cores.hpp) shared by the encoders open now. x264 left to itself takes
// 1.5 threads a core for each encoder: sixteen 1080p outputs on 16 cores ran ~400 threads,
// each holding frames (~777 MB a stream) for no more speed than a few threads each. An
// encoder takes its share when it opens — x264's own 1.5 threads a core, shared: 1.5 x cores
// / encoders open (itself counted), rounded, at least 1 — and keeps it while it runs. Not one
// thread a core: x264's frame threads wait on each other's reference rows, and sixteen
// single-threaded 1080p encoders on 16 cores of an H200 machine left cores idle (130 fps, 11
// of 16 cores busy, against 157 fps at x264's own count). While it runs: when streams come and go, the encoders opened after take the new
// share (x264 cannot change its thread count once open). x264 sizes what follows from its
// thread count itself: its frame threads' frames, its sync lookahead (threads + B-frames)
// and its lookahead threads, so that fewer threads hold fewer frames.
#pragma once

#include <mutex>

namespace fp {

// x264's threads for one of `encoders` sharing `cores`: 1.5 a core shared, rounded, at least 1.
int x264_thread_share(double cores, int encoders);

class EncoderThreadBudget {
 public:
  static constexpr double kThreadsPerCore = 1.5;
  explicit EncoderThreadBudget(double cores);
  // The process's: usable_cores() when first asked.
  static EncoderThreadBudget& process();

  // One open encoder's place in the budget; given back when it is destroyed.
  class Lease {
   public:
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();
    int threads() const { return threads_; }

   private:
    friend class EncoderThreadBudget;
    Lease(EncoderThreadBudget* budget, int threads) : budget_(budget), threads_(threads) {}
    EncoderThreadBudget* budget_;
    int threads_;
  };

  // `requested` > 0: that many threads (an encode stage's `threads:`), counted as an encoder
  // all the same; 0: this encoder's share of the budget.
  Lease lease(int requested = 0);

  double cores() const { return cores_; }
  int encoders() const;

 private:
  void give_back();

  const double cores_;
  mutable std::mutex mutex_;
  int encoders_ = 0;
};

}  // namespace fp
