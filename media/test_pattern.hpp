// The picture behind testsrc://: a moving scene with edges, thin lines, text-like detail
// and optional Gaussian luma noise. Frame n depends only on (size, sigma, n), and is the
// same byte for byte on every machine: geometry is integer arithmetic and the noise comes
// from our own PRNG and Gaussian table, never from the standard library's distributions
// (whose output is implementation-defined) or libm (whose last bits vary by CPU).
#pragma once

#include <cstdint>
#include <vector>

#include "core/image_view.hpp"

namespace fp {

class TestPattern {
 public:
  TestPattern(int width, int height, double noise_sigma);

  // Draws frame `index` into the three I420 planes (luma width x height, chroma rounded up).
  void render(std::int64_t index, ImageU8 y, ImageU8 u, ImageU8 v) const;

 private:
  void draw_background(std::int64_t index, ImageU8 y, ImageU8 u, ImageU8 v) const;
  void draw_text(std::int64_t index, ImageU8 y, ImageU8 u, ImageU8 v) const;
  void draw_lines(std::int64_t index, ImageU8 y) const;
  void draw_shapes(std::int64_t index, ImageU8 y, ImageU8 u, ImageU8 v) const;
  void add_noise(std::int64_t index, ImageU8 y) const;

  int width_;
  int height_;
  bool noisy_;
  std::vector<std::uint8_t> ramp_;        // horizontal background ramp, 2*width entries (a triangle wave)
  std::vector<std::int16_t> noise_lut_;   // round(sigma * g) for the Gaussian table g
};

}  // namespace fp
