// The layouts the tile tests check on both backends (one row, a grid with an empty cell,
// odd sizes whose chroma cells meet at half samples), and the sizes of one plane of each.
#pragma once

#include <vector>

#include "core/frame.hpp"
#include "core/ops/tile_layout.hpp"

namespace fp::test {

struct TileCase {
  int width;  // of each input's luma
  int height;
  int inputs;
  int columns;
};

inline const std::vector<TileCase> kTileCases = {
    {1, 1, 1, 0}, {17, 13, 3, 0}, {17, 13, 3, 2}, {64, 48, 4, 2}, {161, 97, 3, 0}, {640, 360, 4, 3}};

// One plane of a case: the inputs' size and the output's.
struct TilePlaneSizes {
  int source_width;
  int source_height;
  int width;
  int height;
};

inline TilePlaneSizes tile_plane_sizes(const TileCase& c, const ops::TileLayout& layout, bool chroma) {
  if (!chroma) return {c.width, c.height, layout.width, layout.height};
  return {chroma_width(c.width), chroma_height(c.height), chroma_width(layout.width), chroma_height(layout.height)};
}

}  // namespace fp::test
