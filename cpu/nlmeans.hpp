// nlmeans on the CPU (non-local means), defined exactly as in docs/stages.md:
//   K = patch / 2, S = search / 2, |P| = patch * patch
//   w(p, q) = exp(-SSD(P(p), P(q)) / (|P| * h^2))  for q in the (2S+1)^2 window around p
//   out(p)  = round(sum w(p,q) I(q) / sum w(p,q))
// The image is extended over all coordinates by reflection without repeating the edge
// (reflect-101: -1 -> 1, w -> w-2; a side of length 1 maps every coordinate to 0), for both
// patches and the search window. Rows are spread over all cores.
#pragma once

#include "core/image_view.hpp"
#include "core/ops/nlmeans_params.hpp"

namespace fp::cpu {

// Reflect-101 of coordinate i into [0, n). Works for any i and any n >= 1.
int reflect101(int i, int n);

void nlmeans(ConstImageU8 src, ImageU8 dst, const ops::NlmeansParams& params);

// The same definition evaluated in double precision without rounding: the exact
// reference that the CUDA kernel is checked against (slow; for tests).
void nlmeans_exact(ConstImageU8 src, ImageF32 dst, const ops::NlmeansParams& params);

}  // namespace fp::cpu
