// luma_histogram on the CPU: 256 bins of an 8-bit plane, its mean and Otsu threshold.
#pragma once

#include <array>
#include <cstdint>

#include "core/image_view.hpp"
#include "core/ops/luma_stats.hpp"

namespace fp::cpu {

ops::Histogram256 histogram(ConstImageU8 src);

// Otsu's threshold: the t in [0, 255] that maximizes the between-class variance
// w0(t) * w1(t) * (mu0(t) - mu1(t))^2, with the smallest such t on ties. A histogram with a
// single occupied bin v gives v (everything is class 0). Computed in double precision.
int otsu_threshold(const ops::Histogram256& bins);

ops::LumaStats luma_stats(ConstImageU8 src);

}  // namespace fp::cpu
