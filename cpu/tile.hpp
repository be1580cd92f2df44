// tile on the CPU: copies planes into one larger plane at given origins (core/ops/
// tile_layout.hpp says where), each clipped to the destination; with `fill`, every sample
// first gets that value (for the cells no input covers). The CUDA twin is cuda/tile.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "core/image_view.hpp"
#include "core/ops/tile_layout.hpp"

namespace fp::cpu {

void tile_plane(std::span<const ConstImageU8> sources, std::span<const ops::TileOrigin> origins, ImageU8 dst,
                std::optional<std::uint8_t> fill);

}  // namespace fp::cpu
