#include "cpu/tile.hpp"

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
    const ops::TileCopy copy = ops::clip_tile(src.width, src.height, origins[i], dst.width, dst.height);
    for (int y = 0; y < copy.height; ++y)
      std::memcpy(dst.row(copy.y + y) + copy.x, src.row(y), static_cast<std::size_t>(copy.width));
  }
}

}  // namespace fp::cpu
