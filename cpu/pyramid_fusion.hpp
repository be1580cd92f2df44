// pyramid_fusion on the CPU: Laplacian-pyramid fusion of two 8-bit planes of one size.
//
// Definition (float arithmetic; docs/stages.md has the same text):
//  - reduce(G): blur with the separable 5-tap binomial [1 4 6 4 1]/16, border replicate,
//    then keep the pixels at even coordinates; size (w+1)/2 x (h+1)/2.
//  - expand(G, w, h): upsample to w x h; per axis, an even output x takes
//    (1/8, 6/8, 1/8) of coarse x/2-1, x/2, x/2+1 and an odd x takes (1/2, 1/2) of coarse
//    (x-1)/2, (x+1)/2; coarse coordinates are clamped (border replicate). Rows first, then
//    columns.
//  - Laplacian level i < N-1: L_i = G_i - expand(G_{i+1}); L_{N-1} = G_{N-1} (the base).
//  - fusion of detail levels by rule: average (La+Lb)/2; max_abs: the coefficient with the
//    larger |L| (a on ties); max_energy: the coefficient whose input has the larger sum of
//    L^2 over the 3x3 window around it (border replicate; a on ties). The base level is
//    averaged. Detail level i is then multiplied by gain[i] (1 where not given).
//  - collapse: R_{N-1} = F_{N-1}; R_i = F_i + expand(R_{i+1}); out = round(clamp(R_0, 0, 255)).
// levels >= 1; levels == 1 averages the two inputs.
#pragma once

#include <vector>

#include "core/image_view.hpp"
#include "core/ops/fusion_params.hpp"

namespace fp::cpu {

// The float planes of a fusion, kept from one call to the next by whoever fuses frame after
// frame (cpu/frame_ops): fresh blocks this large come from the kernel one page fault per
// page, which took a third of the time, and once the first frame has sized them no call
// allocates. Only pyramid_fusion reads the contents; one scratch serves one call at a time.
struct PyramidFusionScratch {
  std::vector<std::vector<float>> first;   // a's Laplacian pyramid, one buffer per level
  std::vector<std::vector<float>> second;  // b's
  std::vector<std::vector<float>> spare;   // per level, where max_energy writes its choice
  std::vector<float> across;               // the half-done plane inside a reduce or an expand
  std::vector<float> rows;                 // a row per worker
};

void pyramid_fusion(ConstImageU8 a, ConstImageU8 b, ImageU8 dst, const ops::FusionParams& params,
                    PyramidFusionScratch& scratch);

// The same with a scratch kept per calling thread.
void pyramid_fusion(ConstImageU8 a, ConstImageU8 b, ImageU8 dst, const ops::FusionParams& params);

}  // namespace fp::cpu
