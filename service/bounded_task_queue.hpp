// httplib's worker pool, bounded both ways: a fixed number of threads, and a fixed number of
// accepted connections waiting for one. httplib's own ThreadPool queues without limit, so a
// client that opens connections faster than they are served grows the queue (memory, and a
// wait for everyone) without end; here a connection beyond the queue is handed to
// `overflow`, which answers 503 at once and closes it.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fp::service {

class BoundedTaskQueue : public httplib::TaskQueue {
 public:
  using Overflow = std::function<void(const std::function<void()>&)>;
  BoundedTaskQueue(std::size_t workers, std::size_t capacity, Overflow overflow);
  ~BoundedTaskQueue() override;
  BoundedTaskQueue(const BoundedTaskQueue&) = delete;
  BoundedTaskQueue& operator=(const BoundedTaskQueue&) = delete;

  void enqueue(std::function<void()> fn) override;
  // Runs what is queued (each job closes its connection), then joins the workers.
  void shutdown() override;

 private:
  void work();
  std::size_t capacity_;
  Overflow overflow_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  bool shutting_down_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace fp::service
