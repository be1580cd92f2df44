#include "service/bounded_task_queue.hpp"

namespace fp::service {

BoundedTaskQueue::BoundedTaskQueue(std::size_t workers, std::size_t capacity, Overflow overflow)
    : capacity_(capacity), overflow_(std::move(overflow)) {
  for (std::size_t i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
}

BoundedTaskQueue::~BoundedTaskQueue() { shutdown(); }

void BoundedTaskQueue::enqueue(std::function<void()> fn) {
  {
    std::lock_guard lock(mutex_);
    if (jobs_.size() < capacity_ && !shutting_down_) {
      jobs_.push_back(std::move(fn));
      ready_.notify_one();
      return;
    }
  }
  overflow_(fn);  // on the listener's thread: it must be quick (a short answer, then close)
}

void BoundedTaskQueue::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (shutting_down_ && workers_.empty()) return;
    shutting_down_ = true;
  }
  ready_.notify_all();
  for (auto& worker : workers_)
    if (worker.joinable()) worker.join();
  workers_.clear();
}

void BoundedTaskQueue::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return shutting_down_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // shutting down, nothing left
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace fp::service
