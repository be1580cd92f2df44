// mean_smooth on the CPU: the mean over a (2r+1)^2 window, border replicate, rounded to
// nearest (sum + n/2) / n in integers, with running sums so the cost does not depend on r.
#pragma once

#include "core/image_view.hpp"

namespace fp::cpu {

// src and dst have the same size and must not overlap. radius >= 0 (0 copies).
void mean_smooth(ConstImageU8 src, ImageU8 dst, int radius);

}  // namespace fp::cpu
