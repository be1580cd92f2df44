// mean_smooth on the GPU: the mean over a (2r+1)^2 window, border replicate, rounded to
// nearest as (sum + n/2) / n in integers. Bit-identical to cpu::mean_smooth.
#pragma once

#include <cuda_runtime.h>

#include "core/image_view.hpp"
#include "cuda/limits.hpp"

namespace fp::cuda {

// src and dst: device memory of the same size, any pitch and alignment, not overlapping.
// radius in [0, kMeanSmoothMaxRadius] (0 copies). One kernel launch enqueued on `stream`;
// needs no workspace and allocates nothing. Throws std::invalid_argument on a bad argument
// and std::runtime_error (naming the kernel) when the launch fails.
void mean_smooth(ConstImageU8 src, ImageU8 dst, int radius, cudaStream_t stream);

}  // namespace fp::cuda
