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
// Buckets added beyond a new value when the range grows: 32 is a factor of 1.38 in latency.
constexpr std::size_t kMargin = 32;

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

void LatencyHistogram::cover(std::size_t bucket) {
  const std::size_t end = first_ + counts_.size();
  if (!counts_.empty() && bucket >= first_ && bucket < end) return;
  std::size_t lowest = counts_.empty() ? bucket : std::min(first_, bucket);
  std::size_t past = counts_.empty() ? bucket + 1 : std::max(end, bucket + 1);
  if (bucket < first_ || counts_.empty()) lowest = lowest > kMargin ? lowest - kMargin : 0;
  if (bucket >= end || counts_.empty()) past = std::min(past + kMargin, kBuckets);
  std::vector<std::uint64_t> grown(past - lowest, 0);
  std::copy(counts_.begin(), counts_.end(), grown.begin() + static_cast<std::ptrdiff_t>(first_ - lowest));
  counts_ = std::move(grown);
  first_ = lowest;
}

std::uint64_t LatencyHistogram::count_in(std::size_t bucket) const {
  return bucket >= first_ && bucket - first_ < counts_.size() ? counts_[bucket - first_] : 0;
}

void LatencyHistogram::add(double ms) {
  const std::size_t bucket = bucket_of(ms);
  cover(bucket);
  ++counts_[bucket - first_];
  min_ = count_ == 0 ? ms : std::min(min_, ms);
  max_ = count_ == 0 ? ms : std::max(max_, ms);
  ++count_;
  sum_ += ms;
}

void LatencyHistogram::expect(double low_ms, double high_ms) {
  cover(bucket_of(high_ms));
  cover(bucket_of(low_ms));
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  // Its values lie in the buckets of its min and max and between (a sink's range held by
  // expect() is far wider: a run's stats keep only what was seen).
  const std::size_t lowest = bucket_of(other.min_);
  const std::size_t highest = bucket_of(other.max_);
  cover(lowest);
  cover(highest);
  for (std::size_t i = lowest; i <= highest; ++i) counts_[i - first_] += other.count_in(i);
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
  for (std::size_t i = first_; i <= last; ++i) seen += count_in(i);
  return static_cast<std::int64_t>(seen);
}

LatencyHistogram LatencyHistogram::since(const LatencyHistogram& earlier) const {
  LatencyHistogram window;
  std::size_t lowest = kBuckets;
  std::size_t highest = 0;
  for (std::size_t i = first_; i < first_ + counts_.size(); ++i) {
    const std::uint64_t now = counts_[i - first_];
    const std::uint64_t added = now - std::min(now, earlier.count_in(i));
    if (added == 0) continue;
    lowest = std::min(lowest, i);
    highest = i;
  }
  if (lowest > highest) return window;
  window.first_ = lowest;
  window.counts_.resize(highest - lowest + 1);
  for (std::size_t i = lowest; i <= highest; ++i) {
    const std::uint64_t added = counts_[i - first_] - std::min(counts_[i - first_], earlier.count_in(i));
    window.counts_[i - lowest] = added;
    window.count_ += static_cast<std::int64_t>(added);
  }
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
    if (seen >= wanted) return std::clamp(middle_of(first_ + i), min_, max_);
  }
  return max_;
}

}  // namespace fp
