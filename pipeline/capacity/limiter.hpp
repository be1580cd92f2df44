// Admits streams up to a cap and within a budget: a stream asks for a place before it starts
// and gives it back when it ends, so that a folder of a few hundred files holds the memory
// (and the GPU's decoders) of `cap` streams, not of all of them; and, where its pipeline's
// cost is known (capacity.hpp, from `framepipe bench --pipeline`), a place is taken with the
// stream's load — cores, GPU time, memory — and refused when the budget would be overdrawn,
// so that the streams running keep their frames. Used by the stream manager (run and serve).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>

#include "pipeline/capacity/capacity.hpp"

namespace fp {

class StreamLimiter {
 public:
  // cap >= 1 (0 is taken as 1); the budget's `streams` is the cap.
  explicit StreamLimiter(std::size_t cap, CapacityBudget budget = {});

  // A place now with `load`, or (nullopt taken as success) the resource that refused it.
  std::optional<CapacityResource> admit(const CapacityLoad& load);
  // The same as a yes or no: false at the cap or when the budget cannot take the load.
  bool try_admit(const CapacityLoad& load = {}) { return !admit(load); }
  // What refuses a place to `load` now, with `extra` (places and loads promised but not yet
  // taken) counted as taken; nullopt when it would get one. The first stream of all gets
  // one whatever its load.
  std::optional<CapacityResource> short_of(const CapacityLoad& load, const CapacityLoad& extra = {}) const;
  // Waits up to `wait` for a place (a stream's end wakes it at once); false when none came.
  // Callers wait in short steps and look at their own stop flags in between.
  bool admit_within(std::chrono::milliseconds wait);
  // A place even when the cap is reached: for a stream that must start whatever is running
  // (an endless live input, which would never give a place back to one queued behind it).
  void admit_anyway(const CapacityLoad& load = {});
  // The stream's place is free again (call once per admission, with the load it took).
  void release(const CapacityLoad& load = {});
  // A place handed from one stream to its replacement: the load it holds becomes `to`.
  void transfer(const CapacityLoad& from, const CapacityLoad& to);
  // A place's load grown from `from` to `to` (a stream whose input, once open, is larger than
  // its URI said), or the resource that cannot take the difference (nothing changes then).
  // A stream running alone always grows, as the first stream always gets a place.
  std::optional<CapacityResource> grow(const CapacityLoad& from, const CapacityLoad& to);
  // What would refuse a place holding `from` the load `to` (a stream replaced by another
  // spec, which is admitted on what it will cost, not on what it replaces), with `extra`
  // promised; nullopt when it fits. Nothing changes.
  std::optional<CapacityResource> short_replacing(const CapacityLoad& from, const CapacityLoad& to,
                                                  const CapacityLoad& extra = {}) const;
  // The process's CPU time, as measured (cores busy): the cores in use are the larger of it
  // and the sum of the admitted streams' loads, so that what a pipeline without a known cost
  // burns still counts.
  void set_measured_cpu(double cores);

  std::size_t cap() const { return cap_; }
  std::size_t running() const;
  std::size_t peak() const;  // the most streams that ran at once so far
  const CapacityBudget& budget() const { return budget_; }
  CapacityLoad used() const;  // the loads admitted (cpu: the larger of them and the measure)
  double measured_cpu() const;

 private:
  void take_place(const CapacityLoad& load);  // mutex_ held
  CapacityLoad used_locked() const;             // mutex_ held
  std::optional<CapacityResource> short_locked(const CapacityLoad& load, const CapacityLoad& extra) const;
  std::optional<CapacityResource> short_changing(const CapacityLoad& from, const CapacityLoad& to,
                                                 const CapacityLoad& extra) const;  // mutex_ held

  const std::size_t cap_;
  CapacityBudget budget_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::size_t running_ = 0;
  std::size_t peak_ = 0;
  CapacityLoad load_;
  double measured_cpu_ = 0;
};

}  // namespace fp
