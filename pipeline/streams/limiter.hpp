// Admits streams up to a cap: a stream asks for a place before it starts and gives it back
// when it ends, so that a folder of a few hundred files holds the memory (and the GPU's
// decoders) of `cap` streams, not of all of them. Used by the many-stream runner; built to be
// shared by anything else that starts streams (the service's stream cap).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace fp {

class StreamLimiter {
 public:
  explicit StreamLimiter(std::size_t cap);  // cap >= 1 (0 is taken as 1)

  // A place now; false when `cap` streams are running.
  bool try_admit();
  // Waits up to `wait` for a place (a stream's end wakes it at once); false when none came.
  // Callers wait in short steps and look at their own stop flags in between.
  bool admit_within(std::chrono::milliseconds wait);
  // A place even when the cap is reached: for a stream that must start whatever is running
  // (an endless live input, which would never give a place back to one queued behind it).
  void admit_anyway();
  // The stream's place is free again (call once per admission).
  void release();

  std::size_t cap() const { return cap_; }
  std::size_t running() const;
  std::size_t peak() const;  // the most streams that ran at once so far

 private:
  void take_place();  // mutex_ held

  const std::size_t cap_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::size_t running_ = 0;
  std::size_t peak_ = 0;
};

}  // namespace fp
