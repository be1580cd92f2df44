#include "core/interleaved_chroma.hpp"

#include <stdexcept>

namespace fp {

namespace {

void check_sizes(const Plane& uv, int width, int height) {
  if (uv.width != width || uv.height != height)
    throw std::invalid_argument("interleaved chroma: the planes' sizes differ");
}

}  // namespace

void deinterleave_chroma(const Plane& uv, ImageU8 u, ImageU8 v) {
  check_sizes(uv, u.width, u.height);
  check_sizes(uv, v.width, v.height);
  for (int y = 0; y < uv.height; ++y) {
    const std::uint8_t* pairs = uv.data + static_cast<std::ptrdiff_t>(y) * uv.pitch;
    std::uint8_t* u_row = u.row(y);
    std::uint8_t* v_row = v.row(y);
    for (int x = 0; x < uv.width; ++x) {
      u_row[x] = pairs[2 * x];
      v_row[x] = pairs[2 * x + 1];
    }
  }
}

void interleave_chroma(ConstImageU8 u, ConstImageU8 v, const Plane& uv) {
  check_sizes(uv, u.width, u.height);
  check_sizes(uv, v.width, v.height);
  for (int y = 0; y < uv.height; ++y) {
    std::uint8_t* pairs = uv.data + static_cast<std::ptrdiff_t>(y) * uv.pitch;
    const std::uint8_t* u_row = u.row(y);
    const std::uint8_t* v_row = v.row(y);
    for (int x = 0; x < uv.width; ++x) {
      pairs[2 * x] = u_row[x];
      pairs[2 * x + 1] = v_row[x];
    }
  }
}

}  // namespace fp
