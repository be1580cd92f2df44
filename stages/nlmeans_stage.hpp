// nlmeans: non-local means denoising of the luma (cpu/nlmeans.hpp).
#pragma once

#include "stages/stage.hpp"

namespace fp {

StageSpec nlmeans_stage_spec();

}  // namespace fp
