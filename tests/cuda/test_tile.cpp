// tile on the GPU against cpu::tile_plane: the same bytes for every layout (one row, a grid
// with an empty cell filled, odd sizes whose chroma cells meet at half samples), sources and
// destination with pitch != width.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "core/frame.hpp"
#include "core/ops/tile_layout.hpp"
#include "cpu/tile.hpp"
#include "cuda/tile.hpp"
#include "tests/cpu/tile_cases.hpp"
#include "tests/cuda/cuda_test_util.hpp"
#include "tests/cuda/gpu_test.hpp"

namespace fp::test {
namespace {

TEST(TileCuda, MatchesTheCpuForEveryLayout) {
  FP_REQUIRE_GPU();
  for (const TileCase& c : kTileCases) {
    const auto layout = ops::tile_layout(c.inputs, c.columns, c.width, c.height);
    for (const bool chroma : {false, true}) {
      const auto size = tile_plane_sizes(c, layout, chroma);
      const auto& origins = chroma ? layout.chroma : layout.luma;
      const auto fill = ops::tile_fill(layout, chroma ? 1 : 0);
      std::vector<HostImageU8> sources;
      std::vector<cuda::DeviceImage<std::uint8_t>> device_sources;
      std::vector<ConstImageU8> host_views;
      std::vector<ConstImageU8> device_views;
      for (int i = 0; i < c.inputs; ++i) {
        sources.push_back(random_image(size.source_width, size.source_height, 300u + i, 3));
        device_sources.push_back(to_device(sources.back()));
      }
      for (int i = 0; i < c.inputs; ++i) {
        host_views.push_back(sources[i].view());
        device_views.push_back(device_sources[i].view());
      }
      // Both destinations start from the same random bytes, so an uncovered sample shows.
      HostImageU8 expected = random_image(size.width, size.height, 999u, 5);
      auto device_out = to_device(expected);
      cpu::tile_plane(host_views, origins, expected.view(), fill);
      cuda::tile_plane(device_views, origins, device_out.view(), fill, nullptr);
      FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
      std::string where;
      EXPECT_EQ(max_abs_difference(to_host(device_out), expected, &where), 0)
          << c.width << "x" << c.height << " n=" << c.inputs << " columns=" << c.columns
          << (chroma ? " chroma " : " luma ") << where;
    }
  }
}

}  // namespace
}  // namespace fp::test
