#include "pipeline/engine/latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace fp {

namespace {
constexpr double kLowestMs = 1e-3;
constexpr double kHighestMs = 1e7;
constexpr double kGrowth = 1.01;
const double kLogGrowth = std::log(kGrowth);
const auto kBuckets = static_cast<std::size_t>(std::ceil(std::log(kHighestMs / kLowestMs) / kLogGrowth)) + 2;

// Bucket 0 holds everything below kLowestMs; bucket i >= 1 holds [lowest * g^(i-1), lowest * g^i).
std::size_t bucket_of(double ms) {
  if (!(ms >= kLowestMs)) return 0;  // also NaN
  const auto i = static_cast<std::size_t>(std::log(ms / kLowestMs) / kLogGrowth) + 1;
  return std::min(i, kBuckets - 1);
}

// The geometric middle of a bucket: at most half a step (0.5%) from any value in it.
double middle_of(std::size_t bucket) {
  if (bucket == 0) return 0.0;
  return kLowestMs * std::pow(kGrowth, static_cast<double>(bucket) - 0.5);
}
}  // namespace

LatencyHistogram::LatencyHistogram() : counts_(kBuckets, 0) {}

void LatencyHistogram::add(double ms) {
  ++counts_[bucket_of(ms)];
  min_ = count_ == 0 ? ms : std::min(min_, ms);
  max_ = count_ == 0 ? ms : std::max(max_, ms);
  ++count_;
  sum_ += ms;
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = count_ == 0 ? other.max_ : std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
}

std::int64_t LatencyHistogram::count_at_most(double bound_ms) const {
  if (count_ == 0 || !(bound_ms >= min_)) return 0;  // NaN too
  if (bound_ms >= max_) return count_;
  // Whole buckets up to the one holding the bound: its other values lie within 1% above it.
  const std::size_t last = bucket_of(bound_ms);
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i <= last; ++i) seen += counts_[i];
  return static_cast<std::int64_t>(seen);
}

LatencyHistogram LatencyHistogram::since(const LatencyHistogram& earlier) const {
  LatencyHistogram window;
  std::size_t lowest = counts_.size();
  std::size_t highest = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    const std::uint64_t added = counts_[i] - std::min(counts_[i], earlier.counts_[i]);
    window.counts_[i] = added;
    window.count_ += static_cast<std::int64_t>(added);
    if (added == 0) continue;
    lowest = std::min(lowest, i);
    highest = i;
  }
  if (window.count_ == 0) return window;
  window.sum_ = std::max(0.0, sum_ - earlier.sum_);
  window.min_ = std::clamp(middle_of(lowest), min_, max_);
  window.max_ = std::clamp(middle_of(highest), min_, max_);
  return window;
}

double LatencyHistogram::percentile(double p) const {
  if (count_ == 0) return 0.0;
  const double rank = std::ceil(std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(count_));
  const auto wanted = static_cast<std::uint64_t>(std::max(rank, 1.0));
  if (wanted <= 1) return min_;
  if (wanted >= static_cast<std::uint64_t>(count_)) return max_;
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= wanted) return std::clamp(middle_of(i), min_, max_);
  }
  return max_;
}

}  // namespace fp
