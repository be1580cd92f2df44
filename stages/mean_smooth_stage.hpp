// mean_smooth: box mean of the luma over a (2r+1)^2 window (cpu/mean_smooth.hpp).
#pragma once

#include "stages/stage.hpp"

namespace fp {

StageSpec mean_smooth_stage_spec();

}  // namespace fp
