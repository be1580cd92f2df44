#include "cpu/luma_histogram.hpp"

#include <cstddef>
#include <mutex>

#include "cpu/parallel.hpp"

namespace fp::cpu {
namespace {

// Counts rows [begin, end) into four interleaved sub-histograms: runs of equal pixels would
// otherwise make every increment wait for the previous store to the same bin.
ops::Histogram256 count_rows(ConstImageU8 src, int begin, int end) {
  std::uint32_t sub[4][256] = {};
  for (int y = begin; y < end; ++y) {
    const std::uint8_t* row = src.row(y);
    int x = 0;
    for (; x + 4 <= src.width; x += 4) {
      ++sub[0][row[x]];
      ++sub[1][row[x + 1]];
      ++sub[2][row[x + 2]];
      ++sub[3][row[x + 3]];
    }
    for (; x < src.width; ++x) ++sub[0][row[x]];
  }
  ops::Histogram256 bins{};
  for (std::size_t v = 0; v < 256; ++v) bins[v] = sub[0][v] + sub[1][v] + sub[2][v] + sub[3][v];
  return bins;
}

}  // namespace

ops::Histogram256 histogram(ConstImageU8 src) {
  ops::Histogram256 total{};
  if (src.empty()) return total;
  std::mutex merge;
  parallel_rows(src.height, [&](int begin, int end) {
    const ops::Histogram256 part = count_rows(src, begin, end);
    std::lock_guard lock(merge);
    for (std::size_t v = 0; v < 256; ++v) total[v] += part[v];
  });
  return total;
}

int otsu_threshold(const ops::Histogram256& bins) {
  // Integer class counts and sums are exact, so equal splits (t inside a run of empty bins)
  // give bit-identical variances and the smallest t wins the tie as documented.
  std::uint64_t total_count = 0;
  std::uint64_t total_sum = 0;
  for (std::size_t v = 0; v < 256; ++v) {
    total_count += bins[v];
    total_sum += static_cast<std::uint64_t>(bins[v]) * v;
  }
  if (total_count == 0) return 0;

  const double n = static_cast<double>(total_count);
  int best_t = 0;
  double best = -1.0;
  std::uint64_t count0 = 0;
  std::uint64_t sum0 = 0;
  for (int t = 0; t < 256; ++t) {
    count0 += bins[static_cast<std::size_t>(t)];
    sum0 += static_cast<std::uint64_t>(bins[static_cast<std::size_t>(t)]) * static_cast<std::uint64_t>(t);
    // With class 0 empty the split is not a split at all; skipping it is what makes a
    // single occupied bin v answer v (the first t that puts everything in class 0).
    if (count0 == 0) continue;
    const std::uint64_t count1 = total_count - count0;
    double variance = 0.0;
    if (count1 != 0) {
      const double w0 = static_cast<double>(count0) / n;
      const double w1 = static_cast<double>(count1) / n;
      const double mu0 = static_cast<double>(sum0) / static_cast<double>(count0);
      const double mu1 = static_cast<double>(total_sum - sum0) / static_cast<double>(count1);
      variance = w0 * w1 * (mu0 - mu1) * (mu0 - mu1);
    }
    if (variance > best) {
      best = variance;
      best_t = t;
    }
  }
  return best_t;
}

ops::LumaStats luma_stats(ConstImageU8 src) {
  ops::LumaStats stats;
  stats.bins = histogram(src);
  std::uint64_t count = 0;
  std::uint64_t sum = 0;
  for (std::size_t v = 0; v < 256; ++v) {
    count += stats.bins[v];
    sum += static_cast<std::uint64_t>(stats.bins[v]) * v;
  }
  stats.mean = count == 0 ? 0.0 : static_cast<double>(sum) / static_cast<double>(count);
  stats.otsu = otsu_threshold(stats.bins);
  return stats;
}

}  // namespace fp::cpu
