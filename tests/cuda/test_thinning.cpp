// cuda::thinning against cpu::thinning: the same pixels, bit for bit, and the same number
// of passes (cpu::zhang_suen's return value), on random images at several thresholds,
// shapes, extreme thresholds, the Otsu threshold read from device memory, planes with
// unaligned odd pitches, in place, a reused workspace, a 1920x1080 frame like the
// default pipeline's (noise and shapes, mean_smooth r=2, Otsu), frames of hundreds of
// passes, and frames large enough that a block thins several tiles.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/host_image.hpp"
#include "cpu/luma_histogram.hpp"
#include "cpu/mean_smooth.hpp"
#include "cpu/thinning.hpp"
#include "cuda/device_image.hpp"
#include "cuda/stream.hpp"
#include "cuda/thinning.hpp"
#include "tests/cuda/cuda_test_util.hpp"
#include "tests/cuda/gpu_test.hpp"

namespace fp::test {
namespace {

constexpr std::uint8_t kPad = 0xA5;  // the bytes around a plane, to show stray writes

// A device plane inside a larger allocation: pitch = width + extra (odd values included)
// and the first pixel `offset` bytes in, so that neither the rows nor the plane are
// aligned. Every byte outside the plane is kPad.
class LoosePlane {
 public:
  LoosePlane(int width, int height, int extra, int offset)
      : width_(width),
        height_(height),
        pitch_(width + extra),
        offset_(offset),
        storage_(static_cast<std::size_t>(offset) + static_cast<std::size_t>(width + extra) * height + 16) {
    FP_CUDA_CHECK(cudaMemset(storage_.get(), kPad, storage_.size()));
  }

  ImageU8 view() const { return {storage_.get() + offset_, width_, height_, pitch_}; }

  void upload(const HostImageU8& host) {
    cuda::upload(host.view(), view(), nullptr);
    FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }

  HostImageU8 download() const {
    HostImageU8 host(width_, height_);
    cuda::download(ConstImageU8(view()), host.view(), nullptr);
    FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    return host;
  }

  // The number of bytes outside the plane that are no longer kPad.
  int stray_writes() const {
    std::vector<std::uint8_t> bytes(storage_.size());
    FP_CUDA_CHECK(cudaMemcpy(bytes.data(), storage_.get(), bytes.size(), cudaMemcpyDeviceToHost));
    int stray = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const auto at = static_cast<std::ptrdiff_t>(i) - offset_;
      const bool inside = at >= 0 && at < pitch_ * height_ && at % pitch_ < width_;
      if (!inside && bytes[i] != kPad) ++stray;
    }
    return stray;
  }

 private:
  int width_;
  int height_;
  std::ptrdiff_t pitch_;
  std::ptrdiff_t offset_;
  cuda::DeviceArray<std::uint8_t> storage_;
};

struct Output {
  HostImageU8 image;
  int passes = 0;
};

Output cpu_thinning(const HostImageU8& src, int threshold) {
  Output out{HostImageU8(src.width(), src.height()), 0};
  out.passes = cpu::thinning(src.view(), out.image.view(), threshold);
  return out;
}

struct Options {
  bool threshold_on_device = false;
  int extra = 0;   // pitch - width of both device planes
  int offset = 0;  // bytes before the first pixel of both device planes
  bool in_place = false;
};

// cuda::thinning of `src` through planes laid out as `options` says, with a workspace of
// exactly the size asked for, prefilled with garbage (it needs no initialization).
Output gpu_thinning(const HostImageU8& src, int threshold, const Options& options = {}) {
  const int w = src.width();
  const int h = src.height();
  LoosePlane in(w, h, options.extra, options.offset);
  LoosePlane out(w, h, options.extra + 3, options.offset + 1);
  in.upload(src);
  const std::size_t workspace_bytes = cuda::thinning_workspace_bytes(w, h);
  cuda::DeviceArray<unsigned char> workspace(workspace_bytes);
  FP_CUDA_CHECK(cudaMemset(workspace.get(), 0xFF, workspace_bytes));
  cuda::DeviceArray<int> device_ints(2);  // [0] threshold, [1] passes
  FP_CUDA_CHECK(cudaMemset(device_ints.get(), 0xFF, 2 * sizeof(int)));
  FP_CUDA_CHECK(cudaMemcpy(device_ints.get(), &threshold, sizeof(int), cudaMemcpyHostToDevice));

  cuda::Stream stream;
  const ImageU8 dst = options.in_place ? in.view() : out.view();
  if (options.threshold_on_device)
    cuda::thinning(in.view(), dst, static_cast<const int*>(device_ints.get()), workspace.get(), stream.get(),
                   device_ints.get() + 1);
  else
    cuda::thinning(in.view(), dst, threshold, workspace.get(), stream.get(), device_ints.get() + 1);
  stream.synchronize();

  Output result;
  FP_CUDA_CHECK(cudaMemcpy(&result.passes, device_ints.get() + 1, sizeof(int), cudaMemcpyDeviceToHost));
  if (options.in_place) {
    result.image = in.download();
    EXPECT_EQ(in.stray_writes(), 0) << "bytes written outside the plane";
  } else {
    result.image = out.download();
    EXPECT_EQ(out.stray_writes(), 0) << "bytes written outside the destination plane";
    EXPECT_EQ(in.stray_writes(), 0);
    std::string where;
    EXPECT_EQ(max_abs_difference(in.download(), src, &where), 0) << "the source changed at " << where;
  }
  return result;
}

void expect_same(const Output& got, const Output& want) {
  std::string where;
  EXPECT_EQ(max_abs_difference(got.image, want.image, &where), 0) << "first difference at " << where;
  EXPECT_EQ(got.passes, want.passes);
}

void expect_matches_cpu(const HostImageU8& src, int threshold, const Options& options = {}) {
  SCOPED_TRACE(std::to_string(src.width()) + "x" + std::to_string(src.height()) + ", threshold " +
               std::to_string(threshold) + (options.threshold_on_device ? " (on the device)" : "") + ", pitch +" +
               std::to_string(options.extra) + ", offset " + std::to_string(options.offset) +
               (options.in_place ? ", in place" : ""));
  expect_same(gpu_thinning(src, threshold, options), cpu_thinning(src, threshold));
}

int otsu_of(const HostImageU8& image) { return cpu::otsu_threshold(cpu::histogram(image.view())); }

// Shapes at value 200 on 20 (threshold 128 separates them).
enum class Shape { kAllForeground, kAllBackground, kRectangle, kDisc, kRing, kUnion, kDiagonals, kCheckerboard, kFrame };

HostImageU8 shape_image(int w, int h, Shape shape, std::uint32_t seed) {
  HostImageU8 image(w, h, w + 2, 20);
  std::mt19937 rng(seed);
  auto below = [&rng](int n) { return static_cast<int>(rng() % static_cast<std::uint32_t>(std::max(n, 1))); };
  auto disc = [&](int cx, int cy, int r, int hole) {
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int d = (x - cx) * (x - cx) + (y - cy) * (y - cy);
        if (d <= r * r && d >= hole * hole) image(x, y) = 200;
      }
  };
  auto rectangle = [&](int x0, int y0, int x1, int y1) {
    for (int y = std::max(y0, 0); y < std::min(y1, h); ++y)
      for (int x = std::max(x0, 0); x < std::min(x1, w); ++x) image(x, y) = 200;
  };
  const int m = std::min(w, h);
  switch (shape) {
    case Shape::kAllForeground: rectangle(0, 0, w, h); break;
    case Shape::kAllBackground: break;
    case Shape::kRectangle: rectangle(w / 5, h / 4, w - w / 6, h - h / 3); break;
    case Shape::kDisc: disc(w / 2, h / 2, m / 2, 0); break;
    case Shape::kRing: disc(w / 2, h / 2, m / 2, m / 4); break;
    case Shape::kUnion:
      for (int i = 0; i < 12; ++i) {
        if (i % 2 == 0)
          disc(below(w), below(h), 1 + below(m / 3), 0);
        else
          rectangle(below(w), below(h), below(w) + w / 3, below(h) + h / 4);
      }
      break;
    case Shape::kDiagonals:  // lines 1 to 4 pixels thick: the 2-thick ones erode from their ends
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const int t = ((x + y) % 23 + 23) % 23;
          const int u = ((x - 2 * y) % 31 + 31) % 31;
          if (t < 1 + (x / 8) % 4 || u < 2) image(x, y) = 200;
        }
      break;
    case Shape::kCheckerboard:
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          if ((x / 3 + y / 2) % 2 == 0) image(x, y) = 200;
      break;
    case Shape::kFrame:  // a 3-pixel frame along the image's border
      rectangle(0, 0, w, h);
      for (int y = 3; y < h - 3; ++y)
        for (int x = 3; x < w - 3; ++x) image(x, y) = 20;
      break;
  }
  return image;
}

// A frame like the default pipeline's thinning input: a ramp, many overlapping rectangles,
// discs and rings up to ~1/14 of the height thick, thin diagonal lines, rows of text-like
// dots, noise of deviation ~16, then mean_smooth with radius 2. At 1920x1080 and its Otsu
// threshold, 20% of it is foreground and Zhang-Suen takes ~40 passes, like the real one.
HostImageU8 pipeline_like_frame(int width, int height, std::uint32_t seed) {
  HostImageU8 frame(width, height);
  std::mt19937 rng(seed);
  auto below = [&rng](int n) { return static_cast<int>(rng() % static_cast<std::uint32_t>(std::max(n, 1))); };
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) frame(x, y) = static_cast<std::uint8_t>(30 + 80 * x / std::max(width - 1, 1));
  auto paint = [&](int x0, int y0, int x1, int y1, auto inside, int value) {
    for (int y = std::max(y0, 0); y < std::min(y1, height); ++y)
      for (int x = std::max(x0, 0); x < std::min(x1, width); ++x)
        if (inside(x, y)) frame(x, y) = static_cast<std::uint8_t>(value);
  };
  const int scale = std::max(1, std::min(width, height) / 14);
  for (int i = 0; i < 200; ++i) {
    const int cx = below(width);
    const int cy = below(height);
    const int value = 170 + below(60);
    const int a = 1 + below(scale);
    const int b = 1 + below(2 * scale);
    auto everywhere = [](int, int) { return true; };
    auto in_disc = [&](int x, int y) { return 4 * ((x - cx) * (x - cx) + (y - cy) * (y - cy)) <= a * a; };
    auto in_ring = [&](int x, int y) {
      const int d = (x - cx) * (x - cx) + (y - cy) * (y - cy);
      return d <= a * a && 4 * d >= a * a;
    };
    auto on_line = [&](int x, int y) {
      const int t = (x - cx) - (y - cy);
      return t >= 0 && t < 1 + 2 * (i % 8 / 4);
    };
    switch (i % 4) {
      case 0: paint(cx, cy, cx + b, cy + a, everywhere, value); break;
      case 1: paint(cx - a, cy - a, cx + a + 1, cy + a + 1, in_disc, value); break;
      case 2: paint(cx - a, cy - a, cx + a + 1, cy + a + 1, in_ring, value); break;
      default: paint(cx, cy, cx + 3 * b, cy + 3 * b, on_line, value); break;
    }
  }
  for (int line = 0; line < 6; ++line) {
    const int x0 = below(width);
    const int y0 = below(height);
    for (int glyph = 0; glyph < 30; ++glyph) {
      const std::uint32_t dots = static_cast<std::uint32_t>(rng());
      for (int k = 0; k < 35; ++k)
        if (((dots >> (k % 32)) & 1U) != 0) {
          const int x = x0 + 12 * glyph + 2 * (k % 5);
          const int y = y0 + 2 * (k / 5);
          paint(x, y, x + 2, y + 2, [](int, int) { return true; }, 220);
        }
    }
  }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const int noise = static_cast<int>((rng() >> 27) + (rng() >> 27) + (rng() >> 27)) - 46;
      frame(x, y) = static_cast<std::uint8_t>(std::clamp(frame(x, y) + noise, 0, 255));
    }
  HostImageU8 smoothed(width, height);
  cpu::mean_smooth(frame.view(), smoothed.view(), 2);
  return smoothed;
}

TEST(CudaThinning, RandomImagesMatchCpuOnEveryTestSize) {
  FP_REQUIRE_GPU();
  std::uint32_t seed = 11;
  for (const TestSize& size : kernel_test_sizes()) {
    const HostImageU8 src = random_image(size.width, size.height, seed++, size.pitch_extra);
    for (const int threshold : {40, 128, 230}) {
      Options options;
      options.extra = 2 * size.pitch_extra + 1;  // odd pitches
      options.offset = size.pitch_extra % 4;
      expect_matches_cpu(src, threshold, options);
    }
  }
}

TEST(CudaThinning, SmoothedImagesMatchCpuOnEveryTestSize) {
  FP_REQUIRE_GPU();
  // Random noise thins in a few passes; smoothed noise has wide shapes that take many.
  std::uint32_t seed = 21;
  for (const TestSize& size : kernel_test_sizes()) {
    const HostImageU8 noise = random_image(size.width, size.height, seed++);
    HostImageU8 smoothed(size.width, size.height);
    cpu::mean_smooth(noise.view(), smoothed.view(), 4);
    const int otsu = otsu_of(smoothed);
    for (const int threshold : {otsu - 3, otsu, otsu + 3}) expect_matches_cpu(smoothed, threshold);
  }
}

TEST(CudaThinning, ShapesMatchCpu) {
  FP_REQUIRE_GPU();
  const std::vector<std::pair<int, int>> sizes = {{1, 1},   {2, 2},   {3, 3},   {1, 9},   {9, 1},    {17, 13},
                                                  {31, 33}, {32, 32}, {33, 7},  {64, 48}, {97, 65},  {257, 129},
                                                  {640, 360}};
  const Shape shapes[] = {Shape::kAllForeground, Shape::kAllBackground, Shape::kRectangle,
                          Shape::kDisc,          Shape::kRing,          Shape::kUnion,
                          Shape::kDiagonals,     Shape::kCheckerboard,  Shape::kFrame};
  std::uint32_t seed = 31;
  for (const auto& [w, h] : sizes)
    for (const Shape shape : shapes) {
      SCOPED_TRACE("shape " + std::to_string(static_cast<int>(shape)));
      expect_matches_cpu(shape_image(w, h, shape, seed++), 128);
    }
}

TEST(CudaThinning, ExtremeThresholds) {
  FP_REQUIRE_GPU();
  const HostImageU8 src = random_image(67, 45, 41);
  for (const int threshold : {INT_MIN, -1000, -1, 0, 1, 254, 255, 256, INT_MAX}) expect_matches_cpu(src, threshold);
}

TEST(CudaThinning, OtsuThresholdFromDeviceMemory) {
  FP_REQUIRE_GPU();
  std::uint32_t seed = 51;
  for (const TestSize& size : kernel_test_sizes()) {
    const HostImageU8 noise = random_image(size.width, size.height, seed++);
    HostImageU8 smoothed(size.width, size.height);
    cpu::mean_smooth(noise.view(), smoothed.view(), 3);
    Options options;
    options.threshold_on_device = true;
    options.extra = size.pitch_extra;
    options.offset = 3;
    expect_matches_cpu(smoothed, otsu_of(smoothed), options);
  }
}

TEST(CudaThinning, PassCountIsZhangSuensReturnValue) {
  FP_REQUIRE_GPU();
  // A solid 90x50 rectangle thins from both sides one layer per pass: many passes.
  const HostImageU8 src = shape_image(120, 80, Shape::kRectangle, 61);
  HostImageU8 binary(src.width(), src.height());
  cpu::binarize(src.view(), binary.view(), 128);
  const int want = cpu::zhang_suen(binary.view());
  EXPECT_GT(want, 10);
  EXPECT_EQ(gpu_thinning(src, 128).passes, want);
  Options options;
  options.threshold_on_device = true;
  EXPECT_EQ(gpu_thinning(src, 128, options).passes, want);
}

TEST(CudaThinning, ManyPassFramesMatchCpu) {
  FP_REQUIRE_GPU();
  // Large filled shapes thin one layer per pass: hundreds of passes, so many rounds of
  // several passes each, and the pass that converges falls anywhere in a round.
  std::uint32_t seed = 101;
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1920, 1080}, {1001, 999}, {333, 517}})
    for (const Shape shape : {Shape::kAllForeground, Shape::kDisc, Shape::kRing, Shape::kUnion}) {
      SCOPED_TRACE("shape " + std::to_string(static_cast<int>(shape)));
      expect_matches_cpu(shape_image(w, h, shape, seed++), 128);
    }
}

TEST(CudaThinning, FramesOfSeveralTilesPerBlockMatchCpu) {
  FP_REQUIRE_GPU();
  // Too large for one tile per block even with 132 multiprocessors. Skipped for
  // compute-sanitizer (FRAMEPIPE_SMALL_SIZES), which would take too long at this size.
  if (std::getenv("FRAMEPIPE_SMALL_SIZES") != nullptr) GTEST_SKIP() << "large frames";
  const HostImageU8 frame = pipeline_like_frame(4096, 4096, 111);
  expect_matches_cpu(frame, otsu_of(frame));
  HostImageU8 smoothed(5000, 3000);
  cpu::mean_smooth(random_image(5000, 3000, 112).view(), smoothed.view(), 4);
  expect_matches_cpu(smoothed, otsu_of(smoothed));
}

// Every tiling of the kernel (the K passes a round, tile widths and rows a thread:
// cuda::thinning_tilings), not only the one its cost model picks, gives the
// CPU's skeleton: on a many-pass frame of one tile per block and, outside compute-sanitizer,
// on one that makes some tilings thin several tiles per block.
TEST(CudaThinning, EveryTilingMatchesCpu) {
  FP_REQUIRE_GPU();
  std::vector<HostImageU8> frames = {shape_image(333, 97, Shape::kUnion, 7)};
  if (std::getenv("FRAMEPIPE_SMALL_SIZES") == nullptr) frames.push_back(pipeline_like_frame(1920, 1080, 8));
  for (const HostImageU8& frame : frames) {
    const int w = frame.width();
    const int h = frame.height();
    const int threshold = otsu_of(frame);
    const Output want = cpu_thinning(frame, threshold);
    const auto src = to_device(frame);
    cuda::DeviceImage<std::uint8_t> dst(w, h);
    cuda::DeviceArray<unsigned char> workspace(cuda::thinning_workspace_bytes(w, h));
    cuda::DeviceArray<int> passes(1);
    const auto tilings = cuda::thinning_tilings(w, h);
    EXPECT_GT(tilings.size(), 50U);
    // Under compute-sanitizer every 7th (some of each K, width and Q): a
    // cooperative launch takes a while there.
    const std::size_t step = small_sizes() ? 7 : 1;
    for (std::size_t i = 0; i < tilings.size(); i += step) {
      const cuda::ThinningTiling& t = tilings[i];
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + ": K " + std::to_string(t.passes_per_round) +
                   ", words " + std::to_string(t.tile_words) + ", Q " + std::to_string(t.rows_per_thread));
      cuda::thinning(src.view(), dst.view(), threshold, workspace.get(), nullptr, t, passes.get());
      FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
      Output got{to_host(dst), 0};
      FP_CUDA_CHECK(cudaMemcpy(&got.passes, passes.get(), sizeof(int), cudaMemcpyDeviceToHost));
      expect_same(got, want);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(CudaThinning, InPlace) {
  FP_REQUIRE_GPU();
  Options options;
  options.in_place = true;
  options.extra = 5;
  expect_matches_cpu(shape_image(97, 65, Shape::kUnion, 71), 128, options);
  expect_matches_cpu(random_image(640, 360, 72), 100, options);
}

TEST(CudaThinning, EmptyImagesRunOnePass) {
  FP_REQUIRE_GPU();
  cuda::DeviceArray<unsigned char> workspace(cuda::thinning_workspace_bytes(0, 0));
  cuda::DeviceArray<int> passes(1);
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{0, 0}, {5, 0}, {0, 7}}) {
    const ImageU8 empty{nullptr, w, h, w};
    FP_CUDA_CHECK(cudaMemset(passes.get(), 0, sizeof(int)));
    cuda::thinning(empty, empty, 128, workspace.get(), nullptr, passes.get());
    int got = 0;
    FP_CUDA_CHECK(cudaMemcpy(&got, passes.get(), sizeof(int), cudaMemcpyDeviceToHost));
    HostImageU8 host(w, h);
    EXPECT_EQ(got, cpu::thinning(host.view(), host.view(), 128)) << w << "x" << h;
  }
}

TEST(CudaThinning, OneWorkspaceServesManyCallsAndSmallerSizes) {
  FP_REQUIRE_GPU();
  const HostImageU8 large = pipeline_like_frame(640, 360, 81);
  const HostImageU8 small = shape_image(200, 100, Shape::kUnion, 82);
  const int large_threshold = otsu_of(large);
  cuda::DeviceImage<std::uint8_t> large_src = to_device(large);
  cuda::DeviceImage<std::uint8_t> small_src = to_device(small);
  std::vector<cuda::DeviceImage<std::uint8_t>> outputs;
  for (int i = 0; i < 4; ++i) outputs.emplace_back(i % 2 == 0 ? 640 : 200, i % 2 == 0 ? 360 : 100);
  cuda::DeviceArray<unsigned char> workspace(cuda::thinning_workspace_bytes(640, 360));
  cuda::DeviceArray<int> passes(4);
  cuda::Stream stream;
  // Back to back on one stream: each call must start from its own input, whatever the
  // previous one left in the workspace.
  cuda::thinning(large_src.view(), outputs[0].view(), large_threshold, workspace.get(), stream.get(), passes.get());
  cuda::thinning(small_src.view(), outputs[1].view(), 128, workspace.get(), stream.get(), passes.get() + 1);
  cuda::thinning(large_src.view(), outputs[2].view(), large_threshold, workspace.get(), stream.get(), passes.get() + 2);
  cuda::thinning(small_src.view(), outputs[3].view(), 60, workspace.get(), stream.get(), passes.get() + 3);
  stream.synchronize();
  int got_passes[4] = {};
  FP_CUDA_CHECK(cudaMemcpy(got_passes, passes.get(), sizeof(got_passes), cudaMemcpyDeviceToHost));
  const Output want[4] = {cpu_thinning(large, large_threshold), cpu_thinning(small, 128),
                          cpu_thinning(large, large_threshold), cpu_thinning(small, 60)};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE("call " + std::to_string(i));
    expect_same(Output{to_host(outputs[static_cast<std::size_t>(i)]), got_passes[i]}, want[i]);
  }
}

TEST(CudaThinning, TwoStreamsWithTheirOwnWorkspaces) {
  FP_REQUIRE_GPU();
  // The pipeline keeps two frames in flight, each on its own stream.
  const HostImageU8 frames[2] = {pipeline_like_frame(1280, 720, 91), pipeline_like_frame(1280, 720, 92)};
  cuda::DeviceImage<std::uint8_t> src[2] = {to_device(frames[0]), to_device(frames[1])};
  cuda::DeviceImage<std::uint8_t> dst[2] = {cuda::DeviceImage<std::uint8_t>(1280, 720),
                                            cuda::DeviceImage<std::uint8_t>(1280, 720)};
  const std::size_t bytes = cuda::thinning_workspace_bytes(1280, 720);
  cuda::DeviceArray<unsigned char> workspaces[2] = {cuda::DeviceArray<unsigned char>(bytes),
                                                    cuda::DeviceArray<unsigned char>(bytes)};
  cuda::Stream streams[2];
  for (int round = 0; round < 3; ++round)
    for (int k = 0; k < 2; ++k)
      cuda::thinning(src[k].view(), dst[k].view(), otsu_of(frames[k]), workspaces[k].get(), streams[k].get());
  for (int k = 0; k < 2; ++k) {
    streams[k].synchronize();
    std::string where;
    EXPECT_EQ(max_abs_difference(to_host(dst[k]), cpu_thinning(frames[k], otsu_of(frames[k])).image, &where), 0)
        << "frame " << k << ": " << where;
  }
}

TEST(CudaThinning, RejectsBadArguments) {
  FP_REQUIRE_GPU();
  cuda::DeviceImage<std::uint8_t> a(17, 13);
  cuda::DeviceImage<std::uint8_t> b(13, 17);
  cuda::DeviceArray<unsigned char> workspace(cuda::thinning_workspace_bytes(17, 13));
  EXPECT_THROW(cuda::thinning(a.view(), b.view(), 128, workspace.get(), nullptr), std::invalid_argument);
  EXPECT_THROW(cuda::thinning(a.view(), a.view(), 128, nullptr, nullptr), std::invalid_argument);
  EXPECT_THROW(cuda::thinning(a.view(), a.view(), static_cast<const int*>(nullptr), workspace.get(), nullptr),
               std::invalid_argument);
  EXPECT_THROW(cuda::thinning(a.view(), a.view(), 128, workspace.get() + 1, nullptr), std::invalid_argument);
}

TEST(CudaThinning, PipelineFrame1080p) {
  FP_REQUIRE_GPU();
  const HostImageU8 frame = pipeline_like_frame(1920, 1080, 1);
  const int otsu = otsu_of(frame);
  const Output want = cpu_thinning(frame, otsu);
  Options options;
  options.threshold_on_device = true;
  expect_same(gpu_thinning(frame, otsu, options), want);

  // How long the frame takes (informational; `framepipe bench` is where timings belong).
  cuda::DeviceImage<std::uint8_t> src = to_device(frame);
  cuda::DeviceImage<std::uint8_t> dst(1920, 1080);
  cuda::DeviceArray<unsigned char> workspace(cuda::thinning_workspace_bytes(1920, 1080));
  cuda::DeviceArray<int> threshold(1);
  FP_CUDA_CHECK(cudaMemcpy(threshold.get(), &otsu, sizeof(int), cudaMemcpyHostToDevice));
  cuda::Stream stream;
  cuda::Event start;
  cuda::Event stop;
  const ImageU8 out = dst.view();
  const int* on_device = threshold.get();
  cuda::thinning(src.view(), out, on_device, workspace.get(), stream.get());  // warm-up
  constexpr int kRuns = 20;
  start.record(stream.get());
  for (int i = 0; i < kRuns; ++i) cuda::thinning(src.view(), out, on_device, workspace.get(), stream.get());
  stop.record(stream.get());
  stream.synchronize();
  const double us = 1000.0 * stop.elapsed_since(start) / kRuns;
  std::printf("[   INFO   ] thinning 1920x1080, %d passes: %.1f us per frame\n", want.passes, us);
  RecordProperty("thinning_1080p_us", std::to_string(us));
  std::string where;
  EXPECT_EQ(max_abs_difference(to_host(dst), want.image, &where), 0) << where;
}

}  // namespace
}  // namespace fp::test
