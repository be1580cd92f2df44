// tile on the GPU against cpu::tile_plane: the same bytes for every layout (one row, a grid
// with an empty cell filled, odd sizes whose chroma cells meet at half samples), sources and
// destination with pitch != width.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
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

// Sources and destination in device memory whose pitch is no multiple of the width nor of
// any alignment (odd extras) and whose rows start at odd addresses: the same bytes as the
// CPU's, and nothing written into the destination's pitch padding or around it.
TEST(TileCuda, OddDevicePitchesAndUnalignedRows) {
  FP_REQUIRE_GPU();
  struct Padding {
    int pitch_extra;
    int offset;
  };
  const std::vector<Padding> paddings = {{1, 1}, {3, 7}, {13, 5}, {33, 3}};
  int round = 0;
  for (const TileCase& c : kTileCases) {
    const auto layout = ops::tile_layout(c.inputs, c.columns, c.width, c.height);
    for (const bool chroma : {false, true}) {
      const Padding& pad = paddings[static_cast<std::size_t>(round++) % paddings.size()];
      const auto size = tile_plane_sizes(c, layout, chroma);
      const auto& origins = chroma ? layout.chroma : layout.luma;
      const auto fill = ops::tile_fill(layout, chroma ? 1 : 0);
      std::vector<HostImageU8> sources;
      std::vector<std::unique_ptr<PaddedDeviceImage<std::uint8_t>>> device_sources;
      std::vector<ConstImageU8> host_views;
      std::vector<ConstImageU8> device_views;
      for (int i = 0; i < c.inputs; ++i) {
        sources.push_back(random_image(size.source_width, size.source_height, 500u + i));
        // Each source its own padding: pitches differ between the inputs too.
        const Padding& own = paddings[static_cast<std::size_t>(round + i) % paddings.size()];
        device_sources.push_back(std::make_unique<PaddedDeviceImage<std::uint8_t>>(
            size.source_width, size.source_height, size.source_width + own.pitch_extra, own.offset));
        cuda::upload(ConstImageU8(sources.back().view()), device_sources.back()->view, nullptr);
      }
      for (int i = 0; i < c.inputs; ++i) {
        host_views.push_back(sources[i].view());
        device_views.push_back(device_sources[i]->view);
      }
      HostImageU8 expected = random_image(size.width, size.height, 998u);
      PaddedDeviceImage<std::uint8_t> device_out(size.width, size.height, size.width + pad.pitch_extra, pad.offset);
      cuda::upload(ConstImageU8(expected.view()), device_out.view, nullptr);
      cpu::tile_plane(host_views, origins, expected.view(), fill);
      cuda::tile_plane(device_views, origins, device_out.view, fill, nullptr);
      FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
      std::string where;
      const std::string what = std::to_string(c.width) + "x" + std::to_string(c.height) + " n=" +
                               std::to_string(c.inputs) + " columns=" + std::to_string(c.columns) +
                               (chroma ? " chroma" : " luma") + " pitch +" + std::to_string(pad.pitch_extra) +
                               " offset " + std::to_string(pad.offset);
      EXPECT_EQ(max_abs_difference(to_host(ConstImageU8(device_out.view)), expected, &where), 0) << what << " " << where;
      EXPECT_EQ(device_out.bytes_outside_changed(), 0) << what << ": written outside the plane";
    }
  }
}

}  // namespace
}  // namespace fp::test
