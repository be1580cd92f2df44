// cuda::luma_stats against cpu::luma_stats: bins and Otsu exactly, the mean within 1e-9
// relative, on the standard sizes, adversarial images, any pitch and alignment, repeated
// calls on one workspace and two streams at once.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/luma_histogram.hpp"
#include "cuda/device_image.hpp"
#include "cuda/luma_histogram.hpp"
#include "cuda/stream.hpp"
#include "tests/cuda/cuda_test_util.hpp"
#include "tests/cuda/gpu_test.hpp"

namespace fp::cuda {
namespace {

// Pinned host memory for the asynchronous read-back, as the pipeline does it.
struct PinnedFree {
  void operator()(void* p) const { cudaFreeHost(p); }
};
template <class T>
std::unique_ptr<T, PinnedFree> pinned() {
  void* p = nullptr;
  FP_CUDA_CHECK(cudaMallocHost(&p, sizeof(T)));
  return std::unique_ptr<T, PinnedFree>(static_cast<T*>(p));
}

// A workspace allocated and cleared once, as a stage does at set-up.
struct Workspace {
  DeviceArray<unsigned char> memory;
  explicit Workspace(int width, int height) : memory(luma_stats_workspace_bytes(width, height)) {
    init_luma_stats_workspace(memory.get(), memory.size(), nullptr);
    FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }
};

// Runs luma_stats on a device view and reads the result back asynchronously.
LumaStatsDevice run(ConstImageU8 device, cudaStream_t stream = nullptr) {
  Workspace workspace(device.width, device.height);
  DeviceArray<LumaStatsDevice> out(1);
  auto host = pinned<LumaStatsDevice>();
  luma_stats(device, out.get(), workspace.memory.get(), workspace.memory.size(), stream);
  FP_CUDA_CHECK(cudaMemcpyAsync(host.get(), out.get(), sizeof(LumaStatsDevice), cudaMemcpyDeviceToHost, stream));
  FP_CUDA_CHECK(cudaStreamSynchronize(stream));
  return *host;
}

void expect_matches_cpu(const LumaStatsDevice& got, const HostImageU8& image, const std::string& what) {
  const ops::LumaStats want = cpu::luma_stats(image.view());
  int wrong_bins = 0;
  for (int v = 0; v < 256; ++v) {
    if (got.bins[v] != want.bins[static_cast<std::size_t>(v)] && wrong_bins++ < 3)
      ADD_FAILURE() << what << ": bin " << v << " is " << got.bins[v] << ", cpu has "
                    << want.bins[static_cast<std::size_t>(v)];
  }
  EXPECT_EQ(wrong_bins, 0) << what;
  EXPECT_NEAR(got.mean, want.mean, 1e-9 * std::max(1.0, std::abs(want.mean))) << what;
  EXPECT_EQ(got.otsu, want.otsu) << what;
  EXPECT_EQ(got.reserved, 0u) << what;
}

HostImageU8 filled(int width, int height, std::uint8_t value, int pitch_extra = 0) {
  return HostImageU8(width, height, width + pitch_extra, value);
}

// Pixels drawn from `levels` with the given weights.
HostImageU8 levels_image(int width, int height, const std::vector<int>& levels, const std::vector<int>& weights,
                         std::uint32_t seed) {
  HostImageU8 image(width, height);
  std::mt19937 rng(seed);
  std::discrete_distribution<int> pick(weights.begin(), weights.end());
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) image(x, y) = static_cast<std::uint8_t>(levels[static_cast<std::size_t>(pick(rng))]);
  return image;
}

TEST(LumaStatsCuda, MatchesCpuOnTestSizes) {
  FP_REQUIRE_GPU();
  std::uint32_t seed = 1;
  for (const auto& size : test::kernel_test_sizes()) {
    const HostImageU8 image = test::random_image(size.width, size.height, seed++, size.pitch_extra);
    const auto device = test::to_device(image);
    expect_matches_cpu(run(device.view()), image,
                       std::to_string(size.width) + "x" + std::to_string(size.height));
  }
}

TEST(LumaStatsCuda, MatchesCpuOnAdversarialImages) {
  FP_REQUIRE_GPU();
  struct Case {
    std::string name;
    HostImageU8 image;
  };
  std::vector<Case> cases;
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {17, 13}, {1920, 1080}}) {
    const std::string size = std::to_string(w) + "x" + std::to_string(h) + " ";
    // Flat images: every pixel in one bin (the most contended shared-memory atomics), and
    // Otsu's single-bin rule (the answer is the value itself).
    for (int v : {0, 1, 127, 254, 255}) cases.push_back({size + "all " + std::to_string(v), filled(w, h, static_cast<std::uint8_t>(v), 3)});
    HostImageU8 bright = filled(w, h, 0);
    bright(w / 2, h / 3) = 255;
    cases.push_back({size + "one bright pixel", std::move(bright)});
    HostImageU8 dark = filled(w, h, 255);
    dark(w - 1, h - 1) = 0;
    cases.push_back({size + "one dark pixel", std::move(dark)});
    // Two gray levels: every t between them is an equal split (ties, smallest t wins).
    cases.push_back({size + "two levels 50/50", levels_image(w, h, {40, 200}, {1, 1}, 11)});
    cases.push_back({size + "two levels 1/9", levels_image(w, h, {0, 255}, {1, 9}, 12)});
    cases.push_back({size + "two adjacent levels", levels_image(w, h, {100, 101}, {3, 5}, 13)});
    // Three symmetric levels: the splits below and above the middle are mathematically equal.
    cases.push_back({size + "three symmetric levels", levels_image(w, h, {0, 100, 200}, {1, 2, 1}, 14)});
    HostImageU8 ramp(w, h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) ramp(x, y) = static_cast<std::uint8_t>((x + 3 * y) & 255);
    cases.push_back({size + "ramp", std::move(ramp)});
  }
  for (const auto& c : cases) {
    const auto device = test::to_device(c.image);
    expect_matches_cpu(run(device.view()), c.image, c.name);
  }
}

TEST(LumaStatsCuda, AnyPitchAndAlignment) {
  FP_REQUIRE_GPU();
  // Widths around the 16-byte chunk size; offsets that start rows anywhere in a 16-byte
  // block; pitches that move each row's alignment (odd) or keep it (multiples of 16).
  std::uint32_t seed = 100;
  for (int width : {1, 3, 15, 16, 17, 31, 32, 33, 100, 257, 1000})
    for (int offset : {0, 1, 5, 8, 15})
      for (int pitch_extra : {0, 1, 7, 16, 19}) {
        const int height = 1 + static_cast<int>(seed % 23);
        const HostImageU8 image = test::random_image(width, height, seed++);
        // Rows that start anywhere relative to 16-byte boundaries (cuda_test_util.hpp).
        test::PaddedDeviceImage<std::uint8_t> device(width, height, width + pitch_extra, offset);
        upload(image.view(), device.view, nullptr);
        FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
        expect_matches_cpu(run(device.view), image,
                           std::to_string(width) + "x" + std::to_string(height) + " offset " + std::to_string(offset) +
                               " pitch " + std::to_string(width + pitch_extra));
      }
}

TEST(LumaStatsCuda, EmptyImageGivesZeros) {
  FP_REQUIRE_GPU();
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{0, 0}, {0, 7}, {7, 0}}) {
    const LumaStatsDevice got = run(ConstImageU8{nullptr, w, h, 0});
    for (int v = 0; v < 256; ++v) EXPECT_EQ(got.bins[v], 0u);
    EXPECT_EQ(got.mean, 0.0);
    EXPECT_EQ(got.otsu, 0);
  }
}

// The last block clears the accumulator and the block counter: many calls back to back on
// one workspace, with sizes that change the grid, all without waiting in between.
TEST(LumaStatsCuda, RepeatedCallsReuseTheWorkspace) {
  FP_REQUIRE_GPU();
  const std::vector<std::pair<int, int>> sizes = {{1920, 1080}, {17, 13}, {3840, 2160}, {1, 1}, {640, 360}};
  std::vector<HostImageU8> images;
  std::vector<DeviceImage<std::uint8_t>> devices;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    images.push_back(test::random_image(sizes[i].first, sizes[i].second, static_cast<std::uint32_t>(40 + i)));
    devices.push_back(test::to_device(images.back()));
  }
  // Each image once flat, to make the repeated accumulations differ from call to call.
  images.push_back(filled(1920, 1080, 77));
  devices.push_back(test::to_device(images.back()));

  Workspace workspace(3840, 2160);
  constexpr int kRounds = 4;
  const std::size_t calls = kRounds * images.size();
  DeviceArray<LumaStatsDevice> out(calls);
  for (std::size_t k = 0; k < calls; ++k)
    luma_stats(devices[k % images.size()].view(), out.get() + k, workspace.memory.get(), workspace.memory.size(),
               nullptr);
  std::vector<LumaStatsDevice> got(calls);
  FP_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), calls * sizeof(LumaStatsDevice), cudaMemcpyDeviceToHost));
  for (std::size_t k = 0; k < calls; ++k) expect_matches_cpu(got[k], images[k % images.size()], "call " + std::to_string(k));
}

TEST(LumaStatsCuda, TwoStreamsConcurrently) {
  FP_REQUIRE_GPU();
  const HostImageU8 a = test::random_image(3840, 2160, 71);
  const HostImageU8 b = levels_image(1920, 1080, {30, 220}, {2, 1}, 72);
  const auto da = test::to_device(a);
  const auto db = test::to_device(b);
  Stream sa;
  Stream sb;
  Workspace wa(a.width(), a.height());
  Workspace wb(b.width(), b.height());
  constexpr int kCalls = 8;
  DeviceArray<LumaStatsDevice> oa(kCalls);
  DeviceArray<LumaStatsDevice> ob(kCalls);
  for (int k = 0; k < kCalls; ++k) {
    luma_stats(da.view(), oa.get() + k, wa.memory.get(), wa.memory.size(), sa.get());
    luma_stats(db.view(), ob.get() + k, wb.memory.get(), wb.memory.size(), sb.get());
  }
  std::vector<LumaStatsDevice> ga(kCalls);
  std::vector<LumaStatsDevice> gb(kCalls);
  FP_CUDA_CHECK(cudaMemcpyAsync(ga.data(), oa.get(), kCalls * sizeof(LumaStatsDevice), cudaMemcpyDeviceToHost, sa.get()));
  FP_CUDA_CHECK(cudaMemcpyAsync(gb.data(), ob.get(), kCalls * sizeof(LumaStatsDevice), cudaMemcpyDeviceToHost, sb.get()));
  sa.synchronize();
  sb.synchronize();
  for (int k = 0; k < kCalls; ++k) {
    expect_matches_cpu(ga[static_cast<std::size_t>(k)], a, "stream a call " + std::to_string(k));
    expect_matches_cpu(gb[static_cast<std::size_t>(k)], b, "stream b call " + std::to_string(k));
  }
}

// The workspace is only promised to be 4-byte aligned: at any such offset into an allocation
// it works, for calls in a row that reuse it (each leaves it cleared for the next).
TEST(LumaStatsCuda, WorkspaceNeedsOnlyFourByteAlignment) {
  FP_REQUIRE_GPU();
  const HostImageU8 random = test::random_image(1920, 1080, 91);
  const HostImageU8 flat = filled(333, 777, 42);
  const auto device_random = test::to_device(random);
  const auto device_flat = test::to_device(flat);
  const std::size_t bytes = luma_stats_workspace_bytes(1920, 1080);
  constexpr std::size_t kCalls = 4;
  for (std::size_t offset : {std::size_t{4}, std::size_t{8}, std::size_t{12}}) {
    DeviceArray<unsigned char> memory(bytes + offset);
    void* ws = memory.get() + offset;
    init_luma_stats_workspace(ws, bytes, nullptr);
    DeviceArray<LumaStatsDevice> out(kCalls);
    for (std::size_t k = 0; k < kCalls; ++k)
      luma_stats((k % 2 == 0 ? device_random : device_flat).view(), out.get() + k, ws, bytes, nullptr);
    std::vector<LumaStatsDevice> got(kCalls);
    FP_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), kCalls * sizeof(LumaStatsDevice), cudaMemcpyDeviceToHost));
    for (std::size_t k = 0; k < kCalls; ++k)
      expect_matches_cpu(got[k], k % 2 == 0 ? random : flat,
                         "offset " + std::to_string(offset) + " call " + std::to_string(k));
  }
}

// The mean is computed with the CPU's one division, so it is not just close but the same double.
TEST(LumaStatsCuda, MeanIsBitIdenticalToCpu) {
  FP_REQUIRE_GPU();
  std::vector<HostImageU8> images;
  images.push_back(test::random_image(1920, 1080, 81));
  images.push_back(test::random_image(333, 777, 82, 5));
  images.push_back(levels_image(1280, 720, {0, 37, 251}, {5, 3, 1}, 83));
  images.push_back(filled(17, 13, 0));
  images.push_back(filled(1, 1, 201));
  for (std::size_t k = 0; k < images.size(); ++k) {
    const auto device = test::to_device(images[k]);
    const LumaStatsDevice got = run(device.view());
    EXPECT_EQ(got.mean, cpu::luma_stats(images[k].view()).mean) << "image " << k;
  }
}

// Images whose pixel count could overflow the 32-bit bins are refused before anything is
// read: the view below points at a single byte.
TEST(LumaStatsCuda, RejectsImagesBeyondTheSizeLimit) {
  FP_REQUIRE_GPU();
  DeviceArray<std::uint8_t> byte(1);
  Workspace workspace(1, 1);
  DeviceArray<LumaStatsDevice> out(1);
  const ConstImageU8 huge{byte.get(), 65536, 65536, 65536};
  EXPECT_THROW(luma_stats(huge, out.get(), workspace.memory.get(), workspace.memory.size(), nullptr),
               std::invalid_argument);
}

TEST(LumaStatsCuda, RejectsBadArguments) {
  FP_REQUIRE_GPU();
  const auto device = test::to_device(test::random_image(16, 16, 5));
  Workspace workspace(16, 16);
  DeviceArray<LumaStatsDevice> out(1);
  void* ws = workspace.memory.get();
  const std::size_t bytes = workspace.memory.size();
  EXPECT_THROW(luma_stats(device.view(), nullptr, ws, bytes, nullptr), std::invalid_argument);
  EXPECT_THROW(luma_stats(device.view(), out.get(), nullptr, bytes, nullptr), std::invalid_argument);
  EXPECT_THROW(luma_stats(device.view(), out.get(), ws, bytes - 1, nullptr), std::invalid_argument);
  EXPECT_THROW(luma_stats(device.view(), out.get(), static_cast<unsigned char*>(ws) + 1, bytes, nullptr),
               std::invalid_argument);
  EXPECT_THROW(init_luma_stats_workspace(ws, bytes - 1, nullptr), std::invalid_argument);
  // None of the refused calls touched the workspace: a good call still gives the right answer.
  luma_stats(device.view(), out.get(), ws, bytes, nullptr);
  LumaStatsDevice got{};
  FP_CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
  expect_matches_cpu(got, test::to_host(device), "after refused calls");
}

}  // namespace
}  // namespace fp::cuda
