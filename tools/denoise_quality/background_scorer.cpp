#include "tools/denoise_quality/background_scorer.hpp"

#include <utility>

namespace fp::quality {

BackgroundScorer::BackgroundScorer(FrameRange range, std::size_t max_pending)
    : range_(range), max_pending_(max_pending), thread_([this] { work(); }) {}

BackgroundScorer::~BackgroundScorer() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void BackgroundScorer::submit(std::shared_ptr<const GrayVideo> clean, GrayVideo test,
                              std::function<void(const Score&)> done) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return jobs_.size() < max_pending_ || failure_; });
  if (failure_) std::rethrow_exception(failure_);
  jobs_.push_back({std::move(clean), std::move(test), std::move(done)});
  changed_.notify_all();
}

void BackgroundScorer::finish() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return (jobs_.empty() && !busy_) || failure_; });
  if (failure_) std::rethrow_exception(failure_);
}

void BackgroundScorer::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
    if (stop_) return;  // what is still queued is dropped: finish() was not called, or failed
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    busy_ = true;
    changed_.notify_all();  // room for another submit
    lock.unlock();
    std::exception_ptr failure;
    try {
      job.done(score(*job.clean, job.test, range_));
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    busy_ = false;
    if (failure && !failure_) failure_ = failure;
    changed_.notify_all();
  }
}

}  // namespace fp::quality
