// tile: its inputs side by side (or in a grid), in one frame: input | denoised | skeleton.
#pragma once

#include "stages/stage.hpp"

namespace fp {

StageSpec tile_stage_spec();

}  // namespace fp
