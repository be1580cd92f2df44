// Scores runs on a thread of its own while the caller makes the next run: in `matrix` the
// GPU denoises while the CPU computes SSIM, the slower of the two, over all cores.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "tools/denoise_quality/gray_video.hpp"
#include "tools/denoise_quality/metrics.hpp"

namespace fp::quality {

class BackgroundScorer {
 public:
  // At most `max_pending` runs wait (each a whole video in memory): submit() blocks beyond.
  explicit BackgroundScorer(FrameRange range, std::size_t max_pending = 4);
  ~BackgroundScorer();
  BackgroundScorer(const BackgroundScorer&) = delete;
  BackgroundScorer& operator=(const BackgroundScorer&) = delete;

  // Scores `test` against `clean` and calls `done` with the score, on the scorer's thread.
  void submit(std::shared_ptr<const GrayVideo> clean, GrayVideo test, std::function<void(const Score&)> done);
  // Waits until every run submitted is scored; rethrows the first failure.
  void finish();

 private:
  struct Job {
    std::shared_ptr<const GrayVideo> clean;
    GrayVideo test;
    std::function<void(const Score&)> done;
  };
  void work();

  FrameRange range_;
  std::size_t max_pending_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> jobs_;
  bool busy_ = false;
  bool stop_ = false;
  std::exception_ptr failure_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace fp::quality
