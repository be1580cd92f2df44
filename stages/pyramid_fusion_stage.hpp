// pyramid_fusion: Laplacian-pyramid fusion of two inputs' luma (cpu/pyramid_fusion.hpp).
#pragma once

#include "stages/stage.hpp"

namespace fp {

StageSpec pyramid_fusion_stage_spec();

}  // namespace fp
