// A blocking queue of bounded capacity between the executor's threads. close() ends it:
// producers stop at once, consumers drain what is left and then see the end.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

namespace fp {

template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity > 0 ? capacity : 1) {}

  // What push() does when the queue is full: wait for room, discard the oldest queued item
  // to make room, or discard the item being pushed.
  enum class Overflow { Wait, DropOldest, DropNewest };

  // Returns false (dropping the item) once the queue is closed. A discarded item is counted
  // in dropped() and destroyed outside the lock.
  bool push(T item, Overflow overflow = Overflow::Wait) {
    std::optional<T> discarded;
    {
      std::unique_lock lock(mutex_);
      if (overflow == Overflow::Wait) not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
      if (closed_) return false;
      if (items_.size() >= capacity_) {
        ++dropped_;
        if (overflow == Overflow::DropNewest) {
          discarded = std::move(item);
          return true;
        }
        discarded = std::move(items_.front());
        items_.pop_front();
      }
      items_.push_back(std::move(item));
      not_empty_.notify_one();
    }
    return true;
  }

  // Items discarded by push() so far.
  std::int64_t dropped() const {
    std::lock_guard lock(mutex_);
    return dropped_;
  }

  enum class PopStatus { Item, Timeout, Closed };

  // Waits up to `timeout` for an item. Closed only once the queue is closed and empty.
  PopStatus pop(T& out, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    if (!not_empty_.wait_for(lock, timeout, [&] { return closed_ || !items_.empty(); })) return PopStatus::Timeout;
    if (items_.empty()) return PopStatus::Closed;
    out = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return PopStatus::Item;
  }

  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    not_full_.notify_all();
    not_empty_.notify_all();
  }

  // Drops whatever is queued (on abort, so buffers return to their pools).
  void clear() {
    std::lock_guard lock(mutex_);
    items_.clear();
    not_full_.notify_all();
  }

 private:
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<T> items_;
  bool closed_ = false;
  std::int64_t dropped_ = 0;
};

}  // namespace fp
