// NV12 chroma (U and V interleaved, as NVDEC writes it) split into the two planes of I420.
// An exact copy: every byte lands unchanged in its plane.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/image_view.hpp"

namespace fp::cuda {

// `uv`: device memory, u.height rows of u.width pairs (U then V), `uv_pitch` bytes apart.
// u and v: device planes of the same size, not overlapping `uv`. One kernel launch on
// `stream`; throws std::invalid_argument on a bad argument and std::runtime_error when the
// launch fails.
void split_chroma(const std::uint8_t* uv, std::ptrdiff_t uv_pitch, ImageU8 u, ImageU8 v, cudaStream_t stream);

}  // namespace fp::cuda
