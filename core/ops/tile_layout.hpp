// Where the `tile` stage puts each input (docs/stages.md, "tile"), shared by both backends:
// input i of n goes to column i % columns and row i / columns of a grid of cells the size
// of one input. In the half-size chroma planes a cell starts at half its luma position,
// rounded down, so that with odd sizes every column still lands where its luma is (give or
// take half a chroma sample) and the last one ends at the plane's edge.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <span>
#include <vector>

#include "core/frame.hpp"

namespace fp::ops {

constexpr int kMaxTileInputs = 16;

struct TileOrigin {
  int x = 0;
  int y = 0;
};

struct TileLayout {
  int columns = 1;
  int rows = 1;
  int width = 0;   // of the output's luma plane
  int height = 0;
  std::vector<TileOrigin> luma;    // one per input
  std::vector<TileOrigin> chroma;  // one per input
  bool covered = true;             // every output sample belongs to some input
};

// `columns` <= 0 puts every input in one row.
inline TileLayout tile_layout(int inputs, int columns, int cell_width, int cell_height) {
  TileLayout layout;
  layout.columns = columns <= 0 || columns > inputs ? inputs : columns;
  layout.rows = (inputs + layout.columns - 1) / layout.columns;
  layout.width = layout.columns * cell_width;
  layout.height = layout.rows * cell_height;
  for (int i = 0; i < inputs; ++i) {
    const int x = (i % layout.columns) * cell_width;
    const int y = (i / layout.columns) * cell_height;
    layout.luma.push_back({x, y});
    layout.chroma.push_back({x / 2, y / 2});
  }
  layout.covered = inputs == layout.columns * layout.rows;
  return layout;
}

// One source's part of a tile_plane call: where it goes in the destination and how much of
// it fits (both backends copy exactly these rectangles, in this order).
struct TileCopy {
  int x = 0;
  int y = 0;
  int width = 0;   // of the source's top-left part that lands inside the destination
  int height = 0;
};

// Throws std::invalid_argument on a negative origin; a source entirely outside gives an
// empty copy.
inline TileCopy clip_tile(int source_width, int source_height, TileOrigin at, int dst_width, int dst_height) {
  if (at.x < 0 || at.y < 0) throw std::invalid_argument("tile_plane: negative origin");
  return {at.x, at.y, std::max(0, std::min(source_width, dst_width - at.x)),
          std::max(0, std::min(source_height, dst_height - at.y))};
}

// What a plane's uncovered cells get (black, neutral chroma), or nothing when every sample
// belongs to an input.
inline std::optional<std::uint8_t> tile_fill(const TileLayout& layout, int plane) {
  if (layout.covered) return std::nullopt;
  return plane == 0 ? std::uint8_t{16} : std::uint8_t{128};
}

// For each plane of `out` (Y, U, V): copy_plane(the inputs' planes, their origins, the output
// plane, its fill) — what both backends' tile ops do with their tile_plane. At most
// kMaxTileInputs inputs; nothing is allocated per frame.
template <class CopyPlane>
void tile_frame(const TileLayout& layout, std::span<const Frame> inputs, Frame& out, CopyPlane copy_plane) {
  if (inputs.size() > static_cast<std::size_t>(kMaxTileInputs)) throw std::invalid_argument("tile: too many inputs");
  std::array<ConstImageU8, kMaxTileInputs> planes;
  for (int p = 0; p < 3; ++p) {
    for (std::size_t i = 0; i < inputs.size(); ++i) planes[i] = inputs[i].planes[p].cview();
    copy_plane(std::span<const ConstImageU8>(planes.data(), inputs.size()), p == 0 ? layout.luma : layout.chroma,
               out.planes[p].view(), tile_fill(layout, p));
  }
}

}  // namespace fp::ops
