// Built with -ffp-contract=off (media/CMakeLists.txt): the few floating-point steps below
// must round the same way on every compiler and CPU, so no fused multiply-adds.
#include "media/test_pattern.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdlib>

namespace fp {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kLn2 = 0.69314718055994530942;
constexpr std::size_t kGaussianTableSize = 1 << 16;  // indexed by 16 random bits
constexpr std::int64_t kOne = 1 << 16;               // fixed point (Q16) for sines and cosines

// The splitmix64 generator: tiny, fast, and fully specified, so every machine draws the
// same numbers.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
};

std::uint64_t mix(std::uint64_t a, std::uint64_t b) { return SplitMix64{a * 0x9E3779B97F4A7C15ULL + b}.next(); }

// ln(x) for x > 0 from + - * / alone (libm's log may differ in the last bit between CPUs):
// x = m * 2^e exactly, then ln m = 2 atanh((m-1)/(m+1)) as a short, fast-converging series.
double portable_log(double x) {
  int e = 0;
  double m = std::frexp(x, &e);
  if (m < 0.70710678118654752440) {
    m *= 2;
    --e;
  }
  const double s = (m - 1) / (m + 1);  // |s| < 0.172: 13 terms reach double precision
  const double s2 = s * s;
  double term = s;
  double sum = 0;
  for (int k = 1; k <= 25; k += 2) {
    sum += term / k;
    term *= s2;
  }
  return 2 * sum + e * kLn2;
}

// sin and cos of 2*pi*turns for turns in [0, 1), by quadrant and a Taylor series.
void portable_sincos(double turns, double& sine, double& cosine) {
  const double quarter_turns = turns * 4;
  const int quadrant = static_cast<int>(quarter_turns);
  const double a = (quarter_turns - quadrant) * (kPi / 2);  // [0, pi/2)
  const double a2 = a * a;
  double s = 0, c = 0, ts = a, tc = 1;
  for (int k = 0; k < 12; ++k) {
    s += ts;
    c += tc;
    ts *= -a2 / ((2 * k + 2) * (2 * k + 3));
    tc *= -a2 / ((2 * k + 1) * (2 * k + 2));
  }
  switch (quadrant & 3) {
    case 0: sine = s; cosine = c; break;
    case 1: sine = c; cosine = -s; break;
    case 2: sine = -s; cosine = -c; break;
    default: sine = -c; cosine = s; break;
  }
}

// 65536 standard normal samples (Box-Muller on splitmix64), shifted and scaled to a mean of
// exactly 0 and a deviation of exactly 1. Per pixel, noise is one lookup with 16 random
// bits: Gaussian in distribution and several times cheaper than Box-Muller per pixel.
const std::vector<double>& gaussian_table() {
  static const std::vector<double> table = [] {
    std::vector<double> g(kGaussianTableSize);
    SplitMix64 rng{0x7E57'5EED'0000'0001ULL};
    for (std::size_t i = 0; i < g.size(); i += 2) {
      const double u1 = static_cast<double>((rng.next() >> 11) + 1) * 0x1.0p-53;  // (0, 1]
      const double u2 = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;        // [0, 1)
      const double r = std::sqrt(-2 * portable_log(u1));  // sqrt is exactly rounded (IEEE)
      double s = 0, c = 0;
      portable_sincos(u2, s, c);
      g[i] = r * c;
      g[i + 1] = r * s;
    }
    double mean = 0;
    for (double x : g) mean += x;
    mean /= static_cast<double>(g.size());
    double var = 0;
    for (double x : g) var += (x - mean) * (x - mean);
    const double sd = std::sqrt(var / static_cast<double>(g.size()));
    for (double& x : g) x = (x - mean) / sd;
    return g;
  }();
  return table;
}

// (sin, cos) of 2*pi*step/period in Q16 fixed point: the per-pixel geometry stays integer.
std::array<std::int64_t, 2> rotation(std::int64_t step, std::int64_t period) {
  double s = 0, c = 0;
  portable_sincos(static_cast<double>(step % period) / static_cast<double>(period), s, c);
  return {std::llround(s * kOne), std::llround(c * kOne)};
}

// 0, 1, ..., span, span-1, ..., 1, 0, 1, ...: back-and-forth motion.
std::int64_t triangle(std::int64_t t, std::int64_t span) {
  if (span <= 0) return 0;
  const std::int64_t p = t % (2 * span);
  return p <= span ? p : 2 * span - p;
}

std::uint8_t clamp_u8(int v) { return static_cast<std::uint8_t>(std::clamp(v, 0, 255)); }

// A rectangle in luma coordinates, half-open.
struct Box {
  int x0, y0, x1, y1;
};

// Sets the samples of one plane whose luma position (sample * scale) is inside a shape.
// scale is 1 for luma and 2 for chroma, so one shape test serves all three planes.
template <class Inside>
void fill(ImageU8 plane, int scale, Box box, std::uint8_t value, Inside&& inside) {
  const int x0 = std::max(0, (std::max(box.x0, 0) + scale - 1) / scale);
  const int y0 = std::max(0, (std::max(box.y0, 0) + scale - 1) / scale);
  const int x1 = std::min(plane.width, (std::max(box.x1, 0) + scale - 1) / scale);
  const int y1 = std::min(plane.height, (std::max(box.y1, 0) + scale - 1) / scale);
  for (int y = y0; y < y1; ++y) {
    std::uint8_t* row = plane.row(y);
    for (int x = x0; x < x1; ++x)
      if (inside(x * scale, y * scale)) row[x] = value;
  }
}

template <class Inside>
void fill_all(ImageU8 y, ImageU8 u, ImageU8 v, Box box, std::array<std::uint8_t, 3> yuv, Inside&& inside) {
  fill(y, 1, box, yuv[0], inside);
  fill(u, 2, box, yuv[1], inside);
  fill(v, 2, box, yuv[2], inside);
}

void fill_rect(ImageU8 plane, int scale, Box box, std::uint8_t value) {
  fill(plane, scale, box, value, [](int, int) { return true; });
}

// Glyphs are 5x7 dots, one 5-bit row mask per dot row (bit 4 is the leftmost dot).
using Glyph = std::array<std::uint8_t, 7>;

constexpr std::array<Glyph, 10> kDigits = {{
    {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E},  // 0
    {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},  // 1
    {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F},  // 2
    {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},  // 3
    {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02},  // 4
    {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},  // 5
    {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E},  // 6
    {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},  // 7
    {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E},  // 8
    {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},  // 9
}};

// Letter-like glyphs: the union of a few strokes chosen by a hash, or a blank (word gap).
Glyph pseudo_glyph(std::uint64_t hash) {
  static constexpr std::array<Glyph, 8> kStrokes = {{
      {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10},  // left stem
      {0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01},  // right stem
      {0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04},  // middle stem
      {0x1F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},  // top bar
      {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00},  // middle bar
      {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F},  // bottom bar
      {0x10, 0x10, 0x08, 0x04, 0x02, 0x01, 0x01},  // diagonal
      {0x1E, 0x11, 0x11, 0x1E, 0x00, 0x00, 0x00},  // bowl
  }};
  Glyph glyph{};
  if (hash % 7 == 0) return glyph;
  unsigned mask = static_cast<unsigned>(hash >> 8) & 0xFF;
  if ((mask & (mask - 1)) == 0) mask |= 0x21;  // at least two strokes
  for (std::size_t s = 0; s < kStrokes.size(); ++s)
    if ((mask >> s) & 1U)
      for (std::size_t r = 0; r < 7; ++r) glyph[r] = static_cast<std::uint8_t>(glyph[r] | kStrokes[s][r]);
  return glyph;
}

bool glyph_dot(const Glyph& glyph, int gx, int gy) { return ((glyph[gy] >> (4 - gx)) & 1U) != 0; }

}  // namespace

TestPattern::TestPattern(int width, int height, double noise_sigma)
    : width_(width), height_(height), noisy_(noise_sigma > 0) {
  ramp_.resize(static_cast<std::size_t>(2) * width_);
  const std::int64_t span = std::max(width_ - 1, 1);
  for (int p = 0; p < 2 * width_; ++p) {
    const std::int64_t t = p < width_ ? p : 2 * width_ - 1 - p;
    ramp_[p] = static_cast<std::uint8_t>(40 + t * 110 / span);
  }
  if (noisy_) {
    const auto& g = gaussian_table();
    noise_lut_.resize(g.size());
    for (std::size_t i = 0; i < g.size(); ++i)
      noise_lut_[i] = static_cast<std::int16_t>(std::clamp<long long>(std::llround(noise_sigma * g[i]), -1024, 1024));
  }
}

void TestPattern::render(std::int64_t index, ImageU8 y, ImageU8 u, ImageU8 v) const {
  draw_background(index, y, u, v);
  draw_text(index, y, u, v);
  draw_lines(index, y);
  draw_shapes(index, y, u, v);
  if (noisy_) add_noise(index, y);
}

// A smooth gradient: a horizontal triangle-wave ramp drifting 2 px per frame plus a vertical
// ramp on the luma; chroma varies with position so color conversions have work to do.
void TestPattern::draw_background(std::int64_t index, ImageU8 y, ImageU8 u, ImageU8 v) const {
  // Row 0 is the ramp shifted (two copies, no per-pixel wrap test); the other rows add
  // their vertical term to row 0 (row 0's own term is 0), a loop the compiler vectorizes.
  const std::size_t shift = static_cast<std::size_t>(2 * (index % width_));
  const std::size_t head = std::min(static_cast<std::size_t>(width_), ramp_.size() - shift);
  std::uint8_t* top = y.row(0);
  std::copy_n(ramp_.begin() + static_cast<std::ptrdiff_t>(shift), head, top);
  std::copy_n(ramp_.begin(), static_cast<std::size_t>(width_) - head, top + head);
  const std::int64_t vspan = std::max(height_ - 1, 1);
  for (int r = 1; r < height_; ++r) {
    const auto row_term = static_cast<std::uint8_t>(r * 60 / vspan);
    std::uint8_t* out = y.row(r);
    for (int x = 0; x < width_; ++x) out[x] = static_cast<std::uint8_t>(top[x] + row_term);
  }
  // U varies along x, V along y.
  const std::int64_t uspan = std::max(u.width - 1, 1);
  const std::int64_t cspan = std::max(u.height - 1, 1);
  std::uint8_t* u_top = u.row(0);
  for (int x = 0; x < u.width; ++x) u_top[x] = static_cast<std::uint8_t>(88 + x * 80 / uspan);
  for (int r = 0; r < u.height; ++r) {
    if (r > 0) std::copy_n(u_top, u.width, u.row(r));
    std::fill_n(v.row(r), v.width, static_cast<std::uint8_t>(88 + r * 80 / cspan));
  }
}

// A light panel of dark glyph rows (the first row shows the frame number), and a dark
// ticker band whose light glyphs scroll left by one dot per frame.
void TestPattern::draw_text(std::int64_t index, ImageU8 y, ImageU8 u, ImageU8 v) const {
  const int k = std::max(1, std::min(width_, height_) / 180);  // size of one glyph dot
  const int cell_w = 6 * k;
  const int cell_h = 9 * k;

  const Box panel{width_ / 20, height_ / 20, width_ * 11 / 20, height_ * 7 / 20};
  fill_rect(y, 1, panel, 224);
  fill_rect(u, 2, panel, 128);
  fill_rect(v, 2, panel, 128);
  const int cols = (panel.x1 - panel.x0 - k) / cell_w;
  const int rows = (panel.y1 - panel.y0 - k) / cell_h;
  std::array<int, 20> digits{};
  int ndigits = 0;
  for (std::int64_t n = index; ndigits == 0 || n > 0; n /= 10) digits[ndigits++] = static_cast<int>(n % 10);
  for (int row = 0; row < rows; ++row) {
    for (int col = 0; col < cols; ++col) {
      const Glyph glyph = row == 0 ? (col < ndigits ? kDigits[digits[ndigits - 1 - col]] : Glyph{})
                                   : pseudo_glyph(mix(static_cast<std::uint64_t>(row), static_cast<std::uint64_t>(col)));
      const int x0 = panel.x0 + k + col * cell_w;
      const int y0 = panel.y0 + k + row * cell_h;
      for (int gy = 0; gy < 7 * k; ++gy) {
        std::uint8_t* out = y.row(y0 + gy);
        for (int gx = 0; gx < 5 * k; ++gx)
          if (glyph_dot(glyph, gx / k, gy / k)) out[x0 + gx] = 24;
      }
    }
  }

  const Box band{0, height_ * 3 / 4, width_, std::min(height_, height_ * 3 / 4 + cell_h + k)};
  fill_rect(y, 1, band, 28);
  fill_rect(u, 2, band, 128);
  fill_rect(v, 2, band, 128);
  const std::int64_t scroll = index * k;
  for (int r = band.y0 + k; r < band.y1; ++r) {
    const int gy = (r - band.y0 - k) / k;
    if (gy >= 7) break;
    std::uint8_t* out = y.row(r);
    std::int64_t cell = -1;
    Glyph glyph{};
    for (int x = 0; x < width_; ++x) {
      const std::int64_t pos = x + scroll;
      const int gx = static_cast<int>(pos % cell_w) / k;
      if (gx >= 5) continue;
      if (pos / cell_w != cell) {  // a new glyph every cell_w pixels, not every pixel
        cell = pos / cell_w;
        glyph = pseudo_glyph(mix(1000003, static_cast<std::uint64_t>(cell)));
      }
      if (glyph_dot(glyph, gx, gy)) out[x] = 230;
    }
  }
}

// One-pixel lines, the hardest case for smoothing and thinning: a fixed horizontal and
// diagonal line, and a vertical line sweeping 3 px per frame.
void TestPattern::draw_lines(std::int64_t index, ImageU8 y) const {
  std::uint8_t* hline = y.row(height_ * 17 / 20);
  for (int x = 0; x < width_; ++x) hline[x] = 250;
  const int vx = static_cast<int>((3 * (index % width_)) % width_);
  for (int r = 0; r < height_; ++r) y.row(r)[vx] = 16;
  if (width_ >= height_) {
    for (int x = 0; x < width_; ++x)
      y.row(static_cast<int>(std::int64_t{x} * (height_ - 1) / std::max(width_ - 1, 1)))[x] = 235;
  } else {
    for (int r = 0; r < height_; ++r)
      y.row(r)[static_cast<int>(std::int64_t{r} * (width_ - 1) / std::max(height_ - 1, 1))] = 235;
  }
}

// Colored objects with hard edges: a rectangle sliding back and forth, a rectangle turning
// once every 120 frames, and a disk circling once every 90 frames.
void TestPattern::draw_shapes(std::int64_t index, ImageU8 y, ImageU8 u, ImageU8 v) const {
  const int side = std::min(width_, height_);

  const int rw = std::max(1, width_ / 6);
  const int rh = std::max(1, height_ / 5);
  const int rx = static_cast<int>(triangle(index * std::max(1, width_ / 160), width_ - rw));
  const int ry = height_ * 11 / 20;
  fill_all(y, u, v, {rx, ry, rx + rw, ry + rh}, {235, 90, 200}, [](int, int) { return true; });

  const std::int64_t half_a = std::max(1, side / 7);
  const std::int64_t half_b = std::max(1, side / 20);
  const int cx = width_ * 4 / 5;
  const int cy = height_ * 3 / 10;
  const auto turn = rotation(index, 120);
  const std::int64_t s = turn[0];
  const std::int64_t c = turn[1];
  const int reach = static_cast<int>(half_a + half_b);
  fill_all(y, u, v, {cx - reach, cy - reach, cx + reach + 1, cy + reach + 1}, {200, 200, 110}, [&](int x, int yy) {
    const std::int64_t dx = x - cx;
    const std::int64_t dy = yy - cy;
    const std::int64_t along = dx * c + dy * s;
    const std::int64_t across = dy * c - dx * s;
    return std::abs(along) <= half_a * kOne && std::abs(across) <= half_b * kOne;
  });

  const std::int64_t orbit = side / 6;
  const auto orbit_turn = rotation(index, 90);
  const std::int64_t ds = orbit_turn[0];
  const std::int64_t dc = orbit_turn[1];
  const int dx0 = width_ * 7 / 20 + static_cast<int>((orbit * dc + kOne / 2) >> 16);
  const int dy0 = height_ * 13 / 20 + static_cast<int>((orbit * ds + kOne / 2) >> 16);
  const std::int64_t radius = std::max(1, side / 9);
  const int r = static_cast<int>(radius);
  fill_all(y, u, v, {dx0 - r, dy0 - r, dx0 + r + 1, dy0 + r + 1}, {170, 70, 60}, [&](int x, int yy) {
    const std::int64_t dx = x - dx0;
    const std::int64_t dy = yy - dy0;
    return dx * dx + dy * dy <= radius * radius;
  });
}

// Independent noise per pixel; each frame has its own seed, so frame n is the same however
// it is reached (and an endless source never repeats a cycle of noise).
void TestPattern::add_noise(std::int64_t index, ImageU8 y) const {
  SplitMix64 rng{mix(0x6E6F697365ULL, static_cast<std::uint64_t>(index))};
  std::uint64_t bits = 0;
  int left = 0;
  for (int r = 0; r < height_; ++r) {
    std::uint8_t* out = y.row(r);
    for (int x = 0; x < width_; ++x) {
      if (left == 0) {
        bits = rng.next();
        left = 4;
      }
      out[x] = clamp_u8(out[x] + noise_lut_[bits & 0xFFFF]);
      bits >>= 16;
      --left;
    }
  }
}

}  // namespace fp
