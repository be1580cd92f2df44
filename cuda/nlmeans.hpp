// nlmeans on the GPU: non-local means of an 8-bit plane, the schedule of the definition in
// docs/stages.md (cpu/nlmeans.hpp is the readable twin, cpu::nlmeans_exact the reference).
//
// One fused kernel, one launch per call. Each block owns a 32-column output tile; it loads
// the tile and its halo (search + patch radius, reflect-101 applied while loading) into
// shared memory once, as bytes, with each pixel's patch sum of squares beside it. Then every
// thread walks its column strip once per search offset, and the patch SSD comes out of
// integer arithmetic that is exact:
//   SSD(p, q) = SQ(p) + SQ(q) - 2 * sum_k E(p+k) E(q+k),
// where the cross term of one patch row is ceil(patch / 4) 4-byte dot products (dp4a) and
// the rows are a running sum down the strip, so an offset costs a few instructions per pixel
// rather than patch^2 multiply-adds. The weights are exp2 of the SSD times -log2(e)/(patch^2 h^2) (the fast hardware
// exp2), summed in float registers with the weighted values. Nothing is allocated per call
// and no device workspace is needed: all intermediate data lives in shared memory.
//
// Accuracy: the SSD is exact, so the only differences from the double-precision reference
// are the float exponent (one rounding), exp2's approximation (relative 2^-22) and the float
// sums; together well under 0.01 gray levels before rounding.
#pragma once

#include <cuda_runtime.h>

#include "core/image_view.hpp"
#include "core/ops/nlmeans_params.hpp"
#include "cuda/limits.hpp"

namespace fp::cuda {

// kNlmeansMaxPatch and kNlmeansMaxSearch (cuda/limits.hpp) bound the GPU schedule; larger
// values throw std::invalid_argument.

// Throws std::invalid_argument naming the parameter when `params` is outside the limits above.
void check_nlmeans_params(const ops::NlmeansParams& params);

// dst = nlmeans(src), rounded half up and clamped to 0..255. src and dst are device planes of
// the same size, any pitch and alignment, not overlapping. One kernel launch enqueued on
// `stream`; allocates nothing and never synchronizes (it may be captured into a CUDA graph).
// Throws std::invalid_argument on a bad argument (before enqueuing anything) and
// std::runtime_error naming the kernel when the launch fails.
void nlmeans(ConstImageU8 src, ImageU8 dst, const ops::NlmeansParams& params, cudaStream_t stream);

// The same weighted mean without rounding, into a float plane: what the tests compare with
// cpu::nlmeans_exact.
void nlmeans_unrounded(ConstImageU8 src, ImageF32 dst, const ops::NlmeansParams& params, cudaStream_t stream);

// The weighted mean's two sums, unrounded and undivided: sum w * I(q) into num, sum w into
// den (float planes of the source's size). temporal_nlmeans adds its previous frames' to
// them before dividing (cuda/temporal_nlmeans.hpp).
void nlmeans_sums(ConstImageU8 src, ImageF32 num, ImageF32 den, const ops::NlmeansParams& params, cudaStream_t stream);

}  // namespace fp::cuda
