// Helpers for the GPU tests: random host images, round trips through the device, and
// comparisons that say where two images differ.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/host_image.hpp"
#include "cuda/device_image.hpp"

namespace fp::test {

// Deterministic random image; pitch_extra > 0 makes the host pitch differ from the width.
inline HostImageU8 random_image(int width, int height, std::uint32_t seed, int pitch_extra = 0) {
  HostImageU8 image(width, height, width + pitch_extra);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(0, 255);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) image(x, y) = static_cast<std::uint8_t>(value(rng));
  return image;
}

inline cuda::DeviceImage<std::uint8_t> to_device(const HostImageU8& host) {
  cuda::DeviceImage<std::uint8_t> device(host.width(), host.height());
  cuda::upload(host.view(), device.view(), nullptr);
  FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return device;
}

inline HostImageU8 to_host(const cuda::DeviceImage<std::uint8_t>& device) {
  HostImageU8 host(device.width(), device.height());
  cuda::download(device.view(), host.view(), nullptr);
  FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return host;
}

// Largest |a - b| over the image; `where` names the first place it occurs.
inline int max_abs_difference(const HostImageU8& a, const HostImageU8& b, std::string* where = nullptr) {
  int worst = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) {
      const int d = std::abs(int{a(x, y)} - int{b(x, y)});
      if (d > worst) {
        worst = d;
        if (where) {
          std::ostringstream text;
          text << "(" << x << ", " << y << "): " << int{a(x, y)} << " vs " << int{b(x, y)};
          *where = text.str();
        }
      }
    }
  return worst;
}

// A device plane with a chosen pitch and byte offset inside a plain allocation: a pitch that
// is not a multiple of the width nor of any alignment, and rows that start unaligned, as a
// caller's or a decoder's buffer may have them (DeviceImage, through cudaMallocPitch, never
// does). `pitch` and `offset` are in bytes. The rest of the allocation holds kSentinel, so
// that a kernel writing past a row's end (into the pitch padding) shows.
template <class T>
struct PaddedDeviceImage {
  static constexpr unsigned char kSentinel = 0xA5;
  cuda::DeviceArray<unsigned char> memory;
  std::ptrdiff_t offset;
  ImageView<T> view;

  PaddedDeviceImage(int width, int height, std::ptrdiff_t pitch, std::ptrdiff_t offset_bytes)
      : memory(static_cast<std::size_t>(pitch * height + offset_bytes)), offset(offset_bytes) {
    FP_CUDA_CHECK(cudaMemset(memory.get(), kSentinel, memory.size()));
    view = {reinterpret_cast<T*>(memory.get() + offset), width, height, pitch};
  }

  // Bytes outside the plane's rows that no longer hold the sentinel.
  long bytes_outside_changed() const {
    std::vector<unsigned char> bytes(memory.size());
    FP_CUDA_CHECK(cudaMemcpy(bytes.data(), memory.get(), bytes.size(), cudaMemcpyDeviceToHost));
    const auto row_bytes = static_cast<std::ptrdiff_t>(view.width) * static_cast<std::ptrdiff_t>(sizeof(T));
    long changed = 0;
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(bytes.size()); ++i) {
      const std::ptrdiff_t at = i - offset;
      const bool inside = at >= 0 && at / view.pitch < view.height && at % view.pitch < row_bytes;
      changed += !inside && bytes[static_cast<std::size_t>(i)] != kSentinel;
    }
    return changed;
  }
};

inline HostImageU8 to_host(ImageView<const std::uint8_t> device) {
  HostImageU8 host(device.width, device.height);
  cuda::download(device, host.view(), nullptr);
  FP_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  return host;
}

// The sizes every kernel is checked on (the list plus random ones).
struct TestSize {
  int width;
  int height;
  int pitch_extra;  // host pitch - width
};

// FRAMEPIPE_SMALL_SIZES=1 keeps only small sizes: compute-sanitizer (racecheck above all)
// runs kernels hundreds of times slower, and the races it looks for show at any size.
inline std::vector<TestSize> kernel_test_sizes() {
  if (std::getenv("FRAMEPIPE_SMALL_SIZES") != nullptr)
    return {{1, 1, 0}, {17, 13, 0}, {17, 13, 5}, {64, 48, 3}, {97, 61, 1}, {200, 120, 0}};
  std::vector<TestSize> sizes = {{1, 1, 0}, {17, 13, 0}, {17, 13, 5}, {64, 48, 3}, {1920, 1080, 0}, {3840, 2160, 0}};
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> side(1, 700);
  for (int i = 0; i < 4; ++i) sizes.push_back({side(rng), side(rng), i});
  return sizes;
}

}  // namespace fp::test
