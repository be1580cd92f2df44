// mean_smooth on the CPU: the mean over a (2r+1)^2 window, border replicate, rounded to
// nearest (sum + n/2) / n in integers, with running sums so the cost does not depend on r.
#pragma once

#include <cstdint>
#include <vector>

#include "core/image_view.hpp"

namespace fp::cpu {

// The running sums of every worker, kept from one call to the next by whoever smooths frame
// after frame (cpu/frame_ops), so that once the first frame has sized them no call allocates.
// Only mean_smooth reads the contents; one scratch serves one call at a time.
struct MeanSmoothScratch {
  std::vector<std::uint32_t> sums32;  // radius <= 1024
  std::vector<std::uint64_t> sums64;  // larger radii
};

// src and dst have the same size and must not overlap. radius >= 0 (0 copies).
void mean_smooth(ConstImageU8 src, ImageU8 dst, int radius, MeanSmoothScratch& scratch);

// The same with a scratch kept per calling thread.
void mean_smooth(ConstImageU8 src, ImageU8 dst, int radius);

}  // namespace fp::cpu
