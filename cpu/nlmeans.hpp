// nlmeans on the CPU (non-local means), defined exactly as in docs/stages.md:
//   K = patch / 2, S = search / 2, |P| = patch * patch
//   w(p, q) = exp(-SSD(P(p), P(q)) / (|P| * h^2))  for q in the (2S+1)^2 window around p
//   out(p)  = round(sum w(p,q) I(q) / sum w(p,q))
// The image is extended over all coordinates by reflection without repeating the edge
// (reflect-101: -1 -> 1, w -> w-2; a side of length 1 maps every coordinate to 0), for both
// patches and the search window. Rows are spread over all cores.
#pragma once

#include <cstdint>
#include <vector>

#include "core/image_view.hpp"
#include "core/ops/nlmeans_params.hpp"

namespace fp::cpu {

// Reflect-101 of coordinate i into [0, n). Works for any i and any n >= 1.
int reflect101(int i, int n);

// The buffers of every worker (a tile's padded source, column sums and running SSDs), kept
// from one call to the next by whoever denoises frame after frame (cpu/frame_ops), so that
// once the first frame has sized them no call allocates. Only nlmeans reads the contents;
// one scratch serves one call at a time.
struct NlmeansScratch {
  std::vector<float> lane_bias;
  std::vector<float> pads;
  std::vector<std::int32_t> columns;
  std::vector<std::int32_t> running;
};

void nlmeans(ConstImageU8 src, ImageU8 dst, const ops::NlmeansParams& params, NlmeansScratch& scratch);

// The weighted mean's two sums instead of their rounded quotient (float planes of src's
// size): sum w * I(q) into num, sum w into den. temporal_nlmeans adds its previous frames'.
void nlmeans_sums(ConstImageU8 src, ImageF32 num, ImageF32 den, const ops::NlmeansParams& params,
                  NlmeansScratch& scratch);

// The same with a scratch kept per calling thread.
void nlmeans(ConstImageU8 src, ImageU8 dst, const ops::NlmeansParams& params);

// The same definition evaluated in double precision without rounding: the exact
// reference that the CUDA kernel is checked against (slow; for tests).
void nlmeans_exact(ConstImageU8 src, ImageF32 dst, const ops::NlmeansParams& params);

}  // namespace fp::cpu
