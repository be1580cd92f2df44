#include "pipeline/capacity/limiter.hpp"

#include <algorithm>

namespace fp {

StreamLimiter::StreamLimiter(std::size_t cap, CapacityBudget budget)
    : cap_(std::max<std::size_t>(cap, 1)), budget_(budget) {
  budget_.streams = static_cast<double>(cap_);
}

void StreamLimiter::take_place(const CapacityLoad& load) {
  ++running_;
  peak_ = std::max(peak_, running_);
  load_ += load;
}

CapacityLoad StreamLimiter::used_locked() const {
  CapacityLoad used = load_;
  used.streams = static_cast<double>(running_);
  used.cpu_cores = std::max(used.cpu_cores, measured_cpu_);
  return used;
}

std::optional<CapacityResource> StreamLimiter::short_locked(const CapacityLoad& load, const CapacityLoad& extra) const {
  CapacityLoad used = used_locked();
  used += extra;
  // One stream always runs, whatever its cost (as --jobs is at least 1): a pipeline that
  // costs more than the whole budget still runs alone, and its measure then says so.
  CapacityLoad wanted = used.streams == 0 ? CapacityLoad{} : load;
  wanted.streams = 1;
  return first_short(budget_, used, wanted);
}

std::optional<CapacityResource> StreamLimiter::short_of(const CapacityLoad& load, const CapacityLoad& extra) const {
  std::lock_guard lock(mutex_);
  return short_locked(load, extra);
}

std::optional<CapacityResource> StreamLimiter::admit(const CapacityLoad& load) {
  std::lock_guard lock(mutex_);
  if (const auto refused = short_locked(load, {})) return refused;
  take_place(load);
  return std::nullopt;
}

bool StreamLimiter::admit_within(std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  if (!freed_.wait_for(lock, wait, [this] { return running_ < cap_; })) return false;
  take_place({});
  return true;
}

void StreamLimiter::admit_anyway(const CapacityLoad& load) {
  std::lock_guard lock(mutex_);
  take_place(load);
}

void StreamLimiter::release(const CapacityLoad& load) {
  {
    std::lock_guard lock(mutex_);
    if (running_ > 0) --running_;
    load_ -= load;
  }
  freed_.notify_one();
}

void StreamLimiter::transfer(const CapacityLoad& from, const CapacityLoad& to) {
  std::lock_guard lock(mutex_);
  load_ -= from;
  load_ += to;
}

std::optional<CapacityResource> StreamLimiter::short_changing(const CapacityLoad& from, const CapacityLoad& to,
                                                             const CapacityLoad& extra) const {
  if (running_ <= 1) return std::nullopt;  // alone, as the first stream always gets a place
  CapacityLoad others = used_locked();
  others -= from;
  others += extra;
  // Only what grows is checked: a resource already overdrawn by others (the measured CPU)
  // that this stream does not take more of is no reason to refuse it.
  const auto grown = [](double before, double after) { return after > before ? after : 0.0; };
  const CapacityLoad wanted{.streams = 0,
                            .cpu_cores = grown(from.cpu_cores, to.cpu_cores),
                            .gpus = grown(from.gpus, to.gpus),
                            .host_bytes = grown(from.host_bytes, to.host_bytes),
                            .device_bytes = grown(from.device_bytes, to.device_bytes)};
  return first_short(budget_, others, wanted);
}

std::optional<CapacityResource> StreamLimiter::short_replacing(const CapacityLoad& from, const CapacityLoad& to,
                                                               const CapacityLoad& extra) const {
  std::lock_guard lock(mutex_);
  return short_changing(from, to, extra);
}

std::optional<CapacityResource> StreamLimiter::grow(const CapacityLoad& from, const CapacityLoad& to) {
  std::lock_guard lock(mutex_);
  if (const auto short_of = short_changing(from, to, {})) return short_of;
  load_ -= from;
  load_ += to;
  return std::nullopt;
}

void StreamLimiter::set_measured_cpu(double cores) {
  std::lock_guard lock(mutex_);
  measured_cpu_ = std::max(0.0, cores);
}

std::size_t StreamLimiter::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

std::size_t StreamLimiter::peak() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

CapacityLoad StreamLimiter::used() const {
  std::lock_guard lock(mutex_);
  return used_locked();
}

double StreamLimiter::measured_cpu() const {
  std::lock_guard lock(mutex_);
  return measured_cpu_;
}

}  // namespace fp
