#include "cpu/mean_smooth.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/parallel.hpp"
#include "cpu/scratch.hpp"

namespace fp::cpu {
namespace {

// Up to this radius every window sum, 255 * (2r+1)^2 plus the rounding term, fits in 32 bits
// and the division can be a multiply and a shift; larger radii take 64-bit sums and a real
// division (slower, still exact).
constexpr int kFastRadius = 1024;
// Beyond this radius 255 * (2r+1)^2 no longer fits in 64 bits.
constexpr long long kMaxRadius = 100'000'000;

// Exact floor(x / n) for every x < 256 * n, as (x * m) >> s with m = ceil(2^s / n) and
// 2^s >= 256 * n^2: x * m / 2^s exceeds x / n by x * (m * n - 2^s) / (n * 2^s) < x / 2^s <= 1 / n,
// too little to carry x / n past the next integer. For n <= (2 * kFastRadius + 1)^2, m stays
// below 2^32, so x * m is a 32 x 32 -> 64-bit product, which vectorizes; a real division
// per pixel would cost more than all the summing.
struct Reciprocal {
  std::uint32_t m;
  int s;
  explicit Reciprocal(std::uint64_t n) {
    s = 0;
    while ((std::uint64_t{1} << s) < 256 * n * n) ++s;
    m = static_cast<std::uint32_t>(((std::uint64_t{1} << s) + n - 1) / n);
  }
  std::uint8_t divide(std::uint32_t x) const {
    return static_cast<std::uint8_t>((static_cast<std::uint64_t>(x) * m) >> s);
  }
};

// Radii above kFastRadius: plain 64-bit division.
struct PlainDivision {
  std::uint64_t n;
  explicit PlainDivision(std::uint64_t divisor) : n(divisor) {}
  std::uint8_t divide(std::uint64_t x) const { return static_cast<std::uint8_t>(x / n); }
};

// Each worker's sums in one block: the vertical sum of each column over rows y-r .. y+r
// (replicated), then the full (2r+1)^2 sum of each pixel of the current row. Each part is
// rounded up to whole cache lines, so that no two workers write to one line.
template <class Sum>
class WorkerSums {
 public:
  WorkerSums(std::vector<Sum>& storage, int width)
      : stride_(whole_cache_lines<Sum>(static_cast<std::size_t>(width))),
        base_(at_least(storage, 2 * stride_ * static_cast<std::size_t>(worker_count()))) {}
  Sum* column(int worker) const { return base_ + 2 * stride_ * static_cast<std::size_t>(worker); }
  Sum* window(int worker) const { return column(worker) + stride_; }

 private:
  std::size_t stride_;
  Sum* base_;
};

// Column sums for row y: rows above the image repeat row 0 and rows below repeat row h-1, so
// those are counted with a multiplicity instead of r times, which keeps the cost at most one
// pass over the image whatever r is.
template <class Sum>
void init_column_sums(ConstImageU8 src, int y, long long r, Sum* column) {
  const int w = src.width;
  const long long h = src.height;
  const long long first = y - r;
  const long long last = y + r;
  const Sum above = static_cast<Sum>(first < 0 ? -first : 0);
  const Sum below = static_cast<Sum>(last > h - 1 ? last - (h - 1) : 0);
  const int inner_first = static_cast<int>(std::max<long long>(first, 0));
  const int inner_last = static_cast<int>(std::min<long long>(last, h - 1));
  const std::uint8_t* top = src.row(0);
  const std::uint8_t* bottom = src.row(src.height - 1);
  for (int x = 0; x < w; ++x) column[x] = above * top[x] + below * bottom[x];
  for (int yy = inner_first; yy <= inner_last; ++yy) {
    const std::uint8_t* row = src.row(yy);
    for (int x = 0; x < w; ++x) column[x] += row[x];
  }
}

// Horizontal running sum of the column sums along one row, with the columns left of 0 and
// right of w-1 replicated.
template <class Sum>
void row_window_sums(const Sum* column, int w, long long r, Sum* window) {
  const long long last = w - 1;
  const Sum left_extra = static_cast<Sum>(r);  // columns -r .. -1 all repeat column 0
  Sum sum = (left_extra + 1) * column[0];
  const long long right_end = std::min<long long>(r, last);
  for (long long x = 1; x <= right_end; ++x) sum += column[x];
  if (r > last) sum += static_cast<Sum>(r - last) * column[last];
  window[0] = sum;
  for (int x = 0; x + 1 < w; ++x) {
    // Moving from x to x+1 adds column x+1+r and drops column x-r, both clamped to the image.
    const long long enter = std::min<long long>(x + 1 + r, last);
    const long long leave = std::max<long long>(x - r, 0);
    sum += column[enter] - column[leave];
    window[x + 1] = sum;
  }
}

// Rows [y_begin, y_end), with `column` and `window` (w sums each) as the band's scratch.
template <class Sum>
void smooth_band(ConstImageU8 src, ImageU8 dst, long long r, int y_begin, int y_end, Sum* column, Sum* window) {
  const int w = src.width;
  const int h = src.height;
  const std::uint64_t side = static_cast<std::uint64_t>(2 * r + 1);
  const std::uint64_t n = side * side;
  const Sum half = static_cast<Sum>(n / 2);

  using Division = std::conditional_t<sizeof(Sum) == 4, Reciprocal, PlainDivision>;
  const Division division(n);
  init_column_sums(src, y_begin, r, column);
  for (int y = y_begin; y < y_end; ++y) {
    if (y > y_begin) {
      const std::uint8_t* enter = src.row(static_cast<int>(std::min<long long>(y + r, h - 1)));
      const std::uint8_t* leave = src.row(static_cast<int>(std::max<long long>(y - 1 - r, 0)));
      for (int x = 0; x < w; ++x) column[x] += static_cast<Sum>(enter[x]) - static_cast<Sum>(leave[x]);
    }
    row_window_sums(column, w, r, window);
    std::uint8_t* out = dst.row(y);
    for (int x = 0; x < w; ++x) out[x] = division.divide(window[x] + half);
  }
}

// `bands` bands of rows in parallel, each on its worker's sums in `storage`.
template <class Sum>
void smooth_bands(ConstImageU8 src, ImageU8 dst, int radius, int bands, std::vector<Sum>& storage) {
  const WorkerSums<Sum> sums(storage, src.width);
  parallel_rows_on_workers(bands, [&](int worker, int band_begin, int band_end) {
    for (int band = band_begin; band < band_end; ++band) {
      const int y_begin = static_cast<int>(static_cast<long long>(src.height) * band / bands);
      const int y_end = static_cast<int>(static_cast<long long>(src.height) * (band + 1) / bands);
      smooth_band<Sum>(src, dst, radius, y_begin, y_end, sums.column(worker), sums.window(worker));
    }
  });
}

void copy_plane(ConstImageU8 src, ImageU8 dst) {
  for (int y = 0; y < src.height; ++y)
    std::memcpy(dst.row(y), src.row(y), static_cast<std::size_t>(src.width));
}

}  // namespace

void mean_smooth(ConstImageU8 src, ImageU8 dst, int radius, MeanSmoothScratch& scratch) {
  if (src.width != dst.width || src.height != dst.height)
    throw std::invalid_argument("mean_smooth: source and destination sizes differ");
  if (radius < 0) throw std::invalid_argument("mean_smooth: radius must be >= 0, got " + std::to_string(radius));
  if (radius > kMaxRadius)
    throw std::invalid_argument("mean_smooth: radius " + std::to_string(radius) + " is above the supported " +
                                std::to_string(kMaxRadius));
  if (src.empty()) return;
  if (radius == 0) {
    copy_plane(src, dst);
    return;
  }

  // Each band starts by summing up to 2r+1 rows; bands of at least half that height keep
  // this start-up below the band's own work, and a few bands per worker balance the load.
  const long long window_rows = std::min<long long>(2LL * radius + 1, src.height);
  const long long min_band = std::max<long long>(16, window_rows / 2);
  const int bands = static_cast<int>(
      std::clamp<long long>(src.height / min_band, 1, static_cast<long long>(worker_count()) * 4));
  if (radius <= kFastRadius)
    smooth_bands(src, dst, radius, bands, scratch.sums32);
  else
    smooth_bands(src, dst, radius, bands, scratch.sums64);
}

void mean_smooth(ConstImageU8 src, ImageU8 dst, int radius) {
  // One per calling thread: a caller that smooths frame after frame without a scratch of its
  // own (tests, the CUDA twin's checks) still allocates only on its first frame.
  thread_local MeanSmoothScratch scratch;
  mean_smooth(src, dst, radius, scratch);
}

}  // namespace fp::cpu
