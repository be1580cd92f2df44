// luma_histogram on the CPU: 256 bins of an 8-bit plane, its mean and Otsu threshold.
#pragma once

#include <array>
#include <cstdint>

#include "core/image_view.hpp"

namespace fp::cpu {

using Histogram256 = std::array<std::uint32_t, 256>;

struct LumaStats {
  Histogram256 bins{};
  double mean = 0.0;  // mean pixel value (0 for an empty image)
  int otsu = 0;       // Otsu threshold t: class 0 is [0, t], class 1 is [t+1, 255]
};

Histogram256 histogram(ConstImageU8 src);

// Otsu's threshold: the t in [0, 255] that maximizes the between-class variance
// w0(t) * w1(t) * (mu0(t) - mu1(t))^2, with the smallest such t on ties. A histogram with a
// single occupied bin v gives v (everything is class 0). Computed in double precision.
int otsu_threshold(const Histogram256& bins);

LumaStats luma_stats(ConstImageU8 src);

}  // namespace fp::cpu
