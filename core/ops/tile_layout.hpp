// Where the `tile` stage puts each input (docs/stages.md, "tile"), shared by both backends:
// input i of n goes to column i % columns and row i / columns of a grid of cells the size
// of one input. In the half-size chroma planes a cell starts at half its luma position,
// rounded down, so that with odd sizes every column still lands where its luma is (give or
// take half a chroma sample) and the last one ends at the plane's edge.
#pragma once

#include <vector>

namespace fp::ops {

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

}  // namespace fp::ops
