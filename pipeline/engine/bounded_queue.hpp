// A blocking queue of bounded capacity between the executor's threads. close() ends it:
// producers stop at once, consumers drain what is left and then see the end. The items live
// in a ring of `capacity` places made once, so a frame passing through allocates nothing
// (a std::deque frees and makes a block as its ends move through it).
#pragma once
#if !defined(FRAMEPIPE_ROOM_ENGINE)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/engine/bounded_queue.hpp is private to pipeline/engine/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace fp {

template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity > 0 ? capacity : 1), ring_(capacity_) {}

  // What push() does when the queue is full: wait for room, discard the oldest queued item
  // to make room, or discard the item being pushed.
  enum class Overflow { Wait, DropOldest, DropNewest };

  // Returns false (dropping the item) once the queue is closed. A discarded item is counted
  // in dropped() and destroyed outside the lock.
  bool push(T item, Overflow overflow = Overflow::Wait) {
    std::optional<T> discarded;
    {
      std::unique_lock lock(mutex_);
      if (overflow == Overflow::Wait) not_full_.wait(lock, [&] { return closed_ || count_ < capacity_; });
      if (closed_) return false;
      if (count_ >= capacity_) {
        ++dropped_;
        if (overflow == Overflow::DropNewest) {
          discarded = std::move(item);
          return true;
        }
        discarded = take_front();
      }
      ring_[(head_ + count_) % capacity_] = std::move(item);
      ++count_;
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
    if (!not_empty_.wait_for(lock, timeout, [&] { return closed_ || count_ > 0; })) return PopStatus::Timeout;
    if (count_ == 0) return PopStatus::Closed;
    out = take_front();
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
    while (count_ > 0) take_front();
    not_full_.notify_all();
  }

 private:
  // The oldest item, its place left empty (an item holds a buffer of a pool: moved out, the
  // place keeps nothing alive). Called with the lock held and count_ > 0.
  T take_front() {
    T item = std::move(ring_[head_]);
    ring_[head_] = T{};
    head_ = (head_ + 1) % capacity_;
    --count_;
    return item;
  }

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::vector<T> ring_;     // capacity_ places; the items are count_ of them from head_ on
  std::size_t head_ = 0;
  std::size_t count_ = 0;
  bool closed_ = false;
  std::int64_t dropped_ = 0;
};

}  // namespace fp
