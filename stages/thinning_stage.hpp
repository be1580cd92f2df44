// thinning: binarize the luma and thin it to a one-pixel skeleton (cpu/thinning.hpp).
#pragma once

#include "stages/stage.hpp"

namespace fp {

StageSpec thinning_stage_spec();

}  // namespace fp
