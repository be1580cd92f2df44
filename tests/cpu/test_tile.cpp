// tile on the CPU: the layout rule of docs/stages.md and every sample of every input landing
// where it says, against a naive per-sample loop; clipping and the fill of empty cells.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <stdexcept>
#include <vector>

#include "core/frame.hpp"
#include "core/ops/tile_layout.hpp"
#include "cpu/tile.hpp"
#include "tests/cpu/test_images.hpp"
#include "tests/cpu/tile_cases.hpp"

namespace fp::test {
namespace {

TEST(TileLayout, OneRowByDefaultAGridWithColumns) {
  const auto row = ops::tile_layout(3, 0, 161, 97);
  EXPECT_EQ(row.width, 483);
  EXPECT_EQ(row.height, 97);
  EXPECT_TRUE(row.covered);
  ASSERT_EQ(row.luma.size(), 3U);
  EXPECT_EQ(row.luma[2].x, 322);
  EXPECT_EQ(row.chroma[1].x, 80);  // half of 161, rounded down
  EXPECT_EQ(row.chroma[2].x, 161);

  const auto grid = ops::tile_layout(3, 2, 10, 6);
  EXPECT_EQ(grid.columns, 2);
  EXPECT_EQ(grid.rows, 2);
  EXPECT_EQ(grid.width, 20);
  EXPECT_EQ(grid.height, 12);
  EXPECT_FALSE(grid.covered);  // the fourth cell is empty
  EXPECT_EQ(grid.luma[2].x, 0);
  EXPECT_EQ(grid.luma[2].y, 6);
  EXPECT_EQ(grid.chroma[2].y, 3);

  EXPECT_EQ(ops::tile_layout(2, 5, 4, 4).columns, 2);  // never more columns than inputs
}

// The naive definition: fill, then each source in order, clipped to the destination.
HostImageU8 expected_tile(const std::vector<HostImageU8>& sources, const std::vector<ops::TileOrigin>& origins, int width,
                          int height, int fill) {
  HostImageU8 out(width, height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) out(x, y) = static_cast<std::uint8_t>(fill);
  for (std::size_t i = 0; i < sources.size(); ++i)
    for (int y = 0; y < sources[i].height(); ++y)
      for (int x = 0; x < sources[i].width(); ++x) {
        const int ox = origins[i].x + x;
        const int oy = origins[i].y + y;
        if (ox < width && oy < height) out(ox, oy) = sources[i](x, y);
      }
  return out;
}

TEST(Tile, EverySampleLandsAtItsOriginInLumaAndChroma) {
  for (const TileCase& c : kTileCases) {
    const auto layout = ops::tile_layout(c.inputs, c.columns, c.width, c.height);
    for (const bool chroma : {false, true}) {
      const auto size = tile_plane_sizes(c, layout, chroma);
      std::vector<HostImageU8> sources;
      std::vector<ConstImageU8> views;
      for (int i = 0; i < c.inputs; ++i)
        sources.push_back(random_image(size.source_width, size.source_height, 100u + i + (chroma ? 50u : 0u)));
      for (const auto& s : sources) views.push_back(s.view());
      const auto& origins = chroma ? layout.chroma : layout.luma;
      HostImageU8 out = pitched_image(size.width, size.height);
      const auto fill = ops::tile_fill(layout, chroma ? 1 : 0);
      cpu::tile_plane(views, origins, out.view(), fill);
      const HostImageU8 expected = expected_tile(sources, origins, size.width, size.height, fill.value_or(0));
      for (int y = 0; y < size.height; ++y)
        for (int x = 0; x < size.width; ++x)
          ASSERT_EQ(out(x, y), expected(x, y)) << c.width << "x" << c.height << " n=" << c.inputs
                                              << (chroma ? " chroma" : " luma") << " at " << x << "," << y;
    }
  }
}

TEST(Tile, RefusesAnOriginPerSourceMismatch) {
  HostImageU8 out(4, 4);
  const HostImageU8 src(2, 2);
  const std::vector<ConstImageU8> views = {src.view()};
  EXPECT_THROW(cpu::tile_plane(views, {}, out.view(), std::nullopt), std::invalid_argument);
}

}  // namespace
}  // namespace fp::test
