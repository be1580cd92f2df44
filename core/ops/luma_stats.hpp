// luma_histogram's result (docs/stages.md, "luma_histogram"), one definition for both
// backends: the CUDA kernel writes cuda::LumaStatsDevice, its op hands this on.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "core/frame.hpp"

namespace fp::ops {

using Histogram256 = std::array<std::uint32_t, 256>;

struct LumaStats {
  Histogram256 bins{};
  double mean = 0.0;  // mean pixel value (0 for an empty image)
  int otsu = 0;       // Otsu threshold t: class 0 is [0, t], class 1 is [t+1, 255]
};

// Receives a frame's stats with the frame's timing (pts, sequence; its planes are not set).
using LumaStatsReceiver = std::function<void(const Frame& timing, const LumaStats& stats)>;

}  // namespace fp::ops
