// A video frame: three 8-bit planes (I420: Y, then U and V at half size, rounded up), each
// a pointer and a pitch that live on the host or on a device, plus timing. Planes are
// reference-counted, so a stage that leaves chroma alone passes it through without a copy.
// NVDEC's frames come as NV12 (U and V interleaved in one plane); the GPU executor reads
// their luma in place and splits the chroma into I420 only for a stage that reads chroma:
// otherwise it reaches the sinks as NV12 (pipeline/engine/host_copies).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>

#include "core/image_view.hpp"

namespace fp {

struct Rational {
  int num = 0;
  int den = 1;
  double value() const { return den == 0 ? 0.0 : static_cast<double>(num) / den; }
  friend bool operator==(const Rational&, const Rational&) = default;
};

enum class MemoryLocation { Host, Device };

// I420: planes Y, U, V. NV12: planes[1] holds U and V interleaved (its width counts the
// pairs, two bytes each), planes[2] is empty.
enum class PlaneLayout { I420, NV12 };

constexpr std::int64_t kNoPts = std::numeric_limits<std::int64_t>::min();

struct Plane {
  std::shared_ptr<std::uint8_t> storage;  // keeps the memory alive; data points into it
  std::uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t pitch = 0;

  ImageU8 view() const { return {data, width, height, pitch}; }
  ConstImageU8 cview() const { return {data, width, height, pitch}; }
};

struct Frame {
  int width = 0;   // luma size
  int height = 0;
  MemoryLocation location = MemoryLocation::Host;
  int device = -1;  // CUDA ordinal when location == Device
  std::array<Plane, 3> planes;  // Y, U, V
  PlaneLayout layout = PlaneLayout::I420;
  // A device frame that another CUDA stream is still writing (NVDEC's copy of a decoded
  // surface): a cudaEvent_t that completes once it is written, which a reader's stream
  // waits for. Null: the planes are ready. Kept alive as long as the frame.
  std::shared_ptr<void> ready;

  std::int64_t pts = kNoPts;   // in time_base units
  Rational time_base{1, 1};
  std::int64_t sequence = 0;   // 0, 1, 2 ... in decode order, per source
  std::chrono::steady_clock::time_point arrival{};
  // The first frame after a gap in the stream (a live input that reconnected): it does not
  // follow the frame before it, so a stage that keeps history across frames starts anew.
  bool follows_gap = false;

  Plane& luma() { return planes[0]; }
  const Plane& luma() const { return planes[0]; }
  bool valid() const { return planes[0].data != nullptr; }

  // Copies timing (pts, time base, sequence, arrival, a gap before it) from another frame.
  void copy_timing_from(const Frame& other) {
    pts = other.pts;
    time_base = other.time_base;
    sequence = other.sequence;
    arrival = other.arrival;
    follows_gap = other.follows_gap;
  }
};

inline int chroma_width(int luma_width) { return (luma_width + 1) / 2; }
inline int chroma_height(int luma_height) { return (luma_height + 1) / 2; }

}  // namespace fp
