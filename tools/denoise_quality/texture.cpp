#include "tools/denoise_quality/texture.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

namespace fp::quality {

namespace {

// A lattice value in [0, 1) from integer coordinates: a hash (splitmix64's finalizer), not
// a generator, so any cell is known without visiting the others.
double lattice(std::int64_t x, std::int64_t y, std::uint64_t salt) {
  std::uint64_t z = salt ^ (static_cast<std::uint64_t>(x) * 0x9E3779B97F4A7C15ull) ^
                    (static_cast<std::uint64_t>(y) * 0xC2B2AE3D27D4EB4Full);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

// Value noise with cells of `cell` pixels, smoothstep-interpolated: continuous, no grid
// corners visible.
double value_noise(double x, double y, double cell, std::uint64_t salt) {
  const double fx = x / cell;
  const double fy = y / cell;
  const double ix = std::floor(fx);
  const double iy = std::floor(fy);
  auto smooth = [](double t) { return t * t * (3 - 2 * t); };
  const double tx = smooth(fx - ix);
  const double ty = smooth(fy - iy);
  const auto cx = static_cast<std::int64_t>(ix);
  const auto cy = static_cast<std::int64_t>(iy);
  const double a = lattice(cx, cy, salt);
  const double b = lattice(cx + 1, cy, salt);
  const double c = lattice(cx, cy + 1, salt);
  const double d = lattice(cx + 1, cy + 1, salt);
  return (a + (b - a) * tx) * (1 - ty) + (c + (d - c) * tx) * ty;
}

// Octaves from 64 px cells down to 2 px, each 0.55 of the one before: soft shading with
// grain on top, as surfaces in a photograph have. Result in [0, 1].
double fbm(double x, double y, double scale, std::uint64_t salt) {
  double sum = 0;
  double weight = 0;
  double amplitude = 1;
  for (int octave = 0; octave < 6; ++octave) {
    const double cell = std::max(2.0, (64 >> octave) * scale);
    sum += amplitude * value_noise(x, y, cell, salt + 0x1000u * static_cast<std::uint64_t>(octave));
    weight += amplitude;
    amplitude *= 0.55;
  }
  return sum / weight;
}

// A shape by its signed distance (negative inside), painted with an anti-aliased edge.
struct Shape {
  enum Kind { Ellipse, Box, Stroke } kind;
  double cx, cy;      // centre (strokes: one end)
  double a, b;        // radii (strokes: the vector to the other end)
  double angle;       // rotation (ellipses, boxes)
  double half_width;  // strokes
  double gray;
  double grain;       // how strongly the shape's own fine noise modulates it

  double distance(double x, double y) const {
    const double px = x - cx;
    const double py = y - cy;
    if (kind == Stroke) {
      const double t = std::clamp((px * a + py * b) / (a * a + b * b), 0.0, 1.0);
      return std::hypot(px - t * a, py - t * b) - half_width;
    }
    const double c = std::cos(angle);
    const double s = std::sin(angle);
    const double u = c * px + s * py;
    const double v = -s * px + c * py;
    if (kind == Ellipse) return (std::hypot(u / a, v / b) - 1) * std::min(a, b);
    const double qx = std::abs(u) - a;
    const double qy = std::abs(v) - b;
    return std::hypot(std::max(qx, 0.0), std::max(qy, 0.0)) + std::min(std::max(qx, qy), 0.0);
  }
  double reach() const {  // half the side of a square around (cx, cy) holding the shape
    return kind == Stroke ? std::max(std::abs(a), std::abs(b)) + half_width + 1 : std::hypot(a, b) + 1;
  }
};

Shape random_shape(std::mt19937& rng, int width, int height, double scale) {
  std::uniform_real_distribution<double> unit(0, 1);
  Shape shape{};
  const double pick = unit(rng);
  shape.kind = pick < 0.45 ? Shape::Ellipse : pick < 0.8 ? Shape::Box : Shape::Stroke;
  shape.cx = unit(rng) * width;
  shape.cy = unit(rng) * height;
  shape.angle = unit(rng) * std::numbers::pi;
  if (shape.kind == Shape::Stroke) {
    const double length = (30 + 170 * unit(rng)) * scale;
    const double direction = unit(rng) * 2 * std::numbers::pi;
    shape.a = length * std::cos(direction);
    shape.b = length * std::sin(direction);
    shape.half_width = std::max(0.6, (0.75 + 1.5 * unit(rng)) * scale);
  } else {
    shape.a = std::max(1.5, (8 + 52 * unit(rng)) * scale);
    shape.b = shape.a * (0.35 + 0.65 * unit(rng));
  }
  shape.gray = 50 + 155 * unit(rng);
  shape.grain = 30 * unit(rng);
  return shape;
}

}  // namespace

float Texture::sample(double x, double y) const {
  x = std::clamp(x, 0.0, static_cast<double>(width_ - 1));
  y = std::clamp(y, 0.0, static_cast<double>(height_ - 1));
  const int x0 = std::min(static_cast<int>(x), width_ - 1);
  const int y0 = std::min(static_cast<int>(y), height_ - 1);
  const int x1 = std::min(x0 + 1, width_ - 1);
  const int y1 = std::min(y0 + 1, height_ - 1);
  const double tx = x - x0;
  const double ty = y - y0;
  const double top = at(x0, y0) + (at(x1, y0) - at(x0, y0)) * tx;
  const double bottom = at(x0, y1) + (at(x1, y1) - at(x0, y1)) * tx;
  return static_cast<float>(top + (bottom - top) * ty);
}

Texture make_texture(int width, int height, std::uint32_t seed, double scale) {
  Texture texture(width, height);
  const std::uint64_t salt = 0x7E57u + (static_cast<std::uint64_t>(seed) << 20);
  // Background: shading from the noise, stretched to most of the range.
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) texture.at(x, y) = static_cast<float>(30 + 200 * fbm(x, y, scale, salt));
  // Shapes over it, about one per 6000 px at scale 1, each with grain of its own.
  std::mt19937 rng(seed);
  const double area = static_cast<double>(width) * height / (scale * scale);
  const int count = std::max(3, static_cast<int>(area / 6000));
  for (int i = 0; i < count; ++i) {
    const Shape shape = random_shape(rng, width, height, scale);
    const std::uint64_t grain_salt = salt + 0x100000u * static_cast<std::uint64_t>(i + 1);
    const double reach = shape.reach();
    const int x0 = std::max(0, static_cast<int>(std::floor(shape.cx - reach)));
    const int x1 = std::min(width - 1, static_cast<int>(std::ceil(shape.cx + reach)));
    const int y0 = std::max(0, static_cast<int>(std::floor(shape.cy - reach)));
    const int y1 = std::min(height - 1, static_cast<int>(std::ceil(shape.cy + reach)));
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        const double cover = std::clamp(0.5 - shape.distance(x, y), 0.0, 1.0);
        if (cover <= 0) continue;
        const double grain = shape.grain * (value_noise(x, y, std::max(2.0, 3 * scale), grain_salt) - 0.5);
        float& pixel = texture.at(x, y);
        pixel = static_cast<float>(pixel + (shape.gray + grain - pixel) * cover);
      }
  }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) texture.at(x, y) = std::clamp(texture.at(x, y), kTextureMin, kTextureMax);
  return texture;
}

}  // namespace fp::quality
