// Procedural, natural-looking still images that the synthetic sequences are cut from:
// multi-octave value noise (soft shading down to fine grain) under random shapes and strokes
// with anti-aliased edges (the structure that NL-means finds again and motion search locks
// onto). Deterministic for a seed. Values stay inside [kTextureMin, kTextureMax], so that
// noise of sigma 30 is rarely clipped at 0 or 255 and the noise added is what was asked.
#pragma once

#include <cstdint>
#include <vector>

namespace fp::quality {

inline constexpr float kTextureMin = 40.0f;
inline constexpr float kTextureMax = 215.0f;

class Texture {
 public:
  Texture(int width, int height) : width_(width), height_(height), pixels_(static_cast<std::size_t>(width) * height) {}
  int width() const { return width_; }
  int height() const { return height_; }
  float& at(int x, int y) { return pixels_[static_cast<std::size_t>(y) * width_ + x]; }
  float at(int x, int y) const { return pixels_[static_cast<std::size_t>(y) * width_ + x]; }
  // Bilinear interpolation at a real position (pixel centres on integers), the edge
  // repeated outside: what moves content by fractions of a pixel.
  float sample(double x, double y) const;

 private:
  int width_;
  int height_;
  std::vector<float> pixels_;
};

// A width x height texture. `scale` sizes its features: 1 for a 540-line frame (noise cells
// from 64 px down to 2 px, shapes 8..60 px), proportionally less for smaller frames.
Texture make_texture(int width, int height, std::uint32_t seed, double scale);

}  // namespace fp::quality
