// pyramid_fusion on the GPU: Laplacian-pyramid fusion of two 8-bit planes of one size, the
// schedule of the definition in docs/stages.md (cpu::pyramid_fusion is the readable twin).
//
// Two-phase, like CUB: ask pyramid_fusion_workspace_bytes() once at set-up, allocate that
// much device memory once, then call pyramid_fusion() per frame with it. A call allocates
// nothing, never synchronizes, and only enqueues kernels on `stream`, so it can also be
// captured into a CUDA graph. The workspace holds every float pyramid level; one workspace
// serves one call at a time (calls on one stream may share it).
//
// The kernels repeat the CPU's float operations in the CPU's order, without fused
// multiply-adds, so the result equals cpu::pyramid_fusion's bit for bit (the tests require it).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "core/image_view.hpp"
#include "core/ops/fusion_params.hpp"
#include "cuda/limits.hpp"

namespace fp::cuda {

// Device bytes pyramid_fusion() needs for planes of width x height and `levels` levels
// (0 for one level or an empty plane). It grows with levels, so a workspace sized for N
// levels also serves fewer. Throws std::invalid_argument on levels outside 1..12 or a
// negative size.
std::size_t pyramid_fusion_workspace_bytes(int width, int height, int levels);

// dst = fusion of a and b. a, b and dst are device views of one size with any pitch; dst
// must not overlap a or b. `workspace` is device memory of at least
// pyramid_fusion_workspace_bytes(width, height, params.levels) bytes, any alignment.
// Throws std::invalid_argument on mismatched sizes, bad levels or a small workspace, and
// std::runtime_error naming the kernel when a launch fails.
void pyramid_fusion(ConstImageU8 a, ConstImageU8 b, ImageU8 dst, const ops::FusionParams& params, void* workspace,
                    std::size_t workspace_bytes, cudaStream_t stream);

}  // namespace fp::cuda
