// CudaFrameSlots with an NVDEC frame (NV12 on the device): its chroma stays NV12, in place,
// when no stage reads it, and comes down as it is in one copy; a stage that reads chroma
// gets it split into I420 planes.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "core/frame_pool.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/frame_slots.hpp"
#include "cuda/plane_memory.hpp"
#include "tests/cuda/gpu_test.hpp"

namespace fp::test {
namespace {

std::uint8_t pair_byte(int x, int y) { return static_cast<std::uint8_t>(7 * x + 13 * y); }

TEST(CudaFrameSlots, AnNvdecFramesChromaStaysNv12UnlessAStageReadsIt) {
  FP_REQUIRE_GPU();
  for (const auto& [width, height] : {std::pair{64, 36}, std::pair{63, 35}}) {
    const int cw = chroma_width(width);
    const int ch = chroma_height(height);
    auto slots = cuda::make_frame_slots(0, 2, 1);
    FramePool device(width, height, cuda::device_plane_memory(0));
    Frame nvdec = device.acquire();
    nvdec.layout = PlaneLayout::NV12;
    nvdec.planes[1] = device.acquire_interleaved_chroma();
    nvdec.planes[2] = Plane{};
    std::vector<std::uint8_t> pairs(static_cast<std::size_t>(2 * cw * ch));
    for (int y = 0; y < ch; ++y)
      for (int x = 0; x < 2 * cw; ++x) pairs[static_cast<std::size_t>(y * 2 * cw + x)] = pair_byte(x, y);
    FP_CUDA_CHECK(cudaMemcpy2D(nvdec.planes[1].data, nvdec.planes[1].pitch, pairs.data(), 2 * cw, 2 * cw, ch,
                               cudaMemcpyHostToDevice));

    const Frame kept = slots->to_device(nvdec, 0, false);
    EXPECT_EQ(kept.layout, PlaneLayout::NV12);
    EXPECT_EQ(kept.planes[0].data, nvdec.planes[0].data);
    EXPECT_EQ(kept.planes[1].data, nvdec.planes[1].data);  // not split, not copied
    const Frame split = slots->to_device(nvdec, 1, true);
    EXPECT_EQ(split.layout, PlaneLayout::I420);
    EXPECT_EQ(split.planes[0].data, nvdec.planes[0].data);

    const Plane down = slots->plane_to_host(kept, 1, 0);
    const Plane u = slots->plane_to_host(split, 1, 1);
    const Plane v = slots->plane_to_host(split, 2, 1);
    std::vector<double> stage_ms(1);
    for (int slot = 0; slot < 2; ++slot) {
      slots->submit(slot);
      slots->wait(slot, stage_ms);
    }
    EXPECT_EQ(slots->bytes_downloaded(), 4LL * cw * ch);  // the pairs, then U and V
    ASSERT_EQ(down.width, cw);
    ASSERT_EQ(u.width, cw);
    for (int y = 0; y < ch; ++y)
      for (int x = 0; x < cw; ++x) {
        ASSERT_EQ(down.data[y * down.pitch + 2 * x], pair_byte(2 * x, y)) << width << ": " << x << "," << y;
        ASSERT_EQ(down.data[y * down.pitch + 2 * x + 1], pair_byte(2 * x + 1, y)) << width << ": " << x << "," << y;
        ASSERT_EQ(u.data[y * u.pitch + x], pair_byte(2 * x, y)) << width << ": " << x << "," << y;
        ASSERT_EQ(v.data[y * v.pitch + x], pair_byte(2 * x + 1, y)) << width << ": " << x << "," << y;
      }
  }
}

}  // namespace
}  // namespace fp::test
