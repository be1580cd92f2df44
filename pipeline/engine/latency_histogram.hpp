// Latency of every frame of a run in bounded memory: a run on a live camera may last for
// weeks, so per-frame values are not kept. Buckets grow geometrically by 1% from 1 µs to
// 10^7 ms, so a percentile is within 1% of the true value; min and max are exact, and so is
// the sum (a Prometheus histogram's _sum). One histogram per thread; merge() after the
// threads are joined.
// Only the buckets between the lowest and the highest value seen are kept (with a margin), not
// all 2,300 (19 KB): a run's latencies span a few hundred at most, and every finished stream
// of a `run --jobs` over thousands of files keeps its stats (and every copy of them) to the end.
// The range grows by whole margins, so that a warm run rarely allocates: only when a latency
// falls outside every one seen so far by more than the margin.
#pragma once

#include <cstdint>
#include <vector>

namespace fp {

class LatencyHistogram {
 public:
  void add(double ms);
  // Holds the buckets from low_ms to high_ms now, so that adding a latency in that range
  // never allocates (a sink's, during its run: allocation-free once warm, DESIGN.md).
  void expect(double low_ms, double high_ms);
  // Adds another's values; only the buckets its values lie in are held (not all it holds).
  void merge(const LatencyHistogram& other);

  std::int64_t count() const { return count_; }
  double min() const { return count_ > 0 ? min_ : 0.0; }
  double max() const { return count_ > 0 ? max_ : 0.0; }
  // The sum of every value added (ms): with count(), the mean, and a Prometheus _sum.
  double sum() const { return sum_; }
  // How many values are <= bound_ms, as a Prometheus histogram's cumulative bucket: every
  // value <= bound_ms is counted, none above bound_ms * 1.01 (the bucket that holds the bound
  // is counted whole; below 1 µs, all values under 1 µs are one bucket); 0 below min(), count()
  // from max() on. Never decreases as the bound grows.
  std::int64_t count_at_most(double bound_ms) const;
  // Nearest-rank percentile, p in [0, 100]; 0 when empty. Within 1% of the exact value, and
  // never outside [min, max].
  double percentile(double p) const;
  // The values added since `earlier`, an earlier copy of this same histogram: the latency of
  // a recent window (a service shows the last seconds, not a camera's whole week). Its min
  // and max are those of the buckets that hold them (within 1%), kept inside this one's.
  LatencyHistogram since(const LatencyHistogram& earlier) const;
  // How many buckets it holds now: those between its lowest and highest value, and margins.
  std::size_t buckets_held() const { return counts_.size(); }

 private:
  // Holds `bucket` (and a margin beyond it, when it must grow).
  void cover(std::size_t bucket);
  std::uint64_t count_in(std::size_t bucket) const;

  std::vector<std::uint64_t> counts_;  // buckets first_ .. first_ + counts_.size() - 1
  std::size_t first_ = 0;
  std::int64_t count_ = 0;
  double min_ = 0;
  double max_ = 0;
  double sum_ = 0;
};

}  // namespace fp
