#include "cpu/tile.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace fp::cpu {

void tile_plane(std::span<const ConstImageU8> sources, std::span<const ops::TileOrigin> origins, ImageU8 dst,
                std::optional<std::uint8_t> fill) {
  if (sources.size() != origins.size()) throw std::invalid_argument("tile_plane: one origin per source");
  if (fill)
    for (int y = 0; y < dst.height; ++y) std::memset(dst.row(y), *fill, static_cast<std::size_t>(dst.width));
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const ConstImageU8& src = sources[i];
    const ops::TileOrigin at = origins[i];
    if (at.x < 0 || at.y < 0) throw std::invalid_argument("tile_plane: negative origin");
    const int width = std::min(src.width, dst.width - at.x);
    const int height = std::min(src.height, dst.height - at.y);
    if (width <= 0 || height <= 0) continue;
    for (int y = 0; y < height; ++y) std::memcpy(dst.row(at.y + y) + at.x, src.row(y), static_cast<std::size_t>(width));
  }
}

}  // namespace fp::cpu
