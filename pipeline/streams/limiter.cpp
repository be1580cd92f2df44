#include "pipeline/streams/limiter.hpp"

#include <algorithm>

namespace fp {

StreamLimiter::StreamLimiter(std::size_t cap) : cap_(std::max<std::size_t>(cap, 1)) {}

void StreamLimiter::take_place() {
  ++running_;
  peak_ = std::max(peak_, running_);
}

bool StreamLimiter::try_admit() {
  std::lock_guard lock(mutex_);
  if (running_ >= cap_) return false;
  take_place();
  return true;
}

bool StreamLimiter::admit_within(std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  if (!freed_.wait_for(lock, wait, [this] { return running_ < cap_; })) return false;
  take_place();
  return true;
}

void StreamLimiter::admit_anyway() {
  std::lock_guard lock(mutex_);
  take_place();
}

void StreamLimiter::release() {
  {
    std::lock_guard lock(mutex_);
    if (running_ > 0) --running_;
  }
  freed_.notify_one();
}

std::size_t StreamLimiter::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

std::size_t StreamLimiter::peak() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

}  // namespace fp
