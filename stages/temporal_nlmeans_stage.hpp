// temporal_nlmeans: non-local means of the luma over the current frame and motion-compensated
// windows of the previous ones (cpu/temporal_nlmeans.hpp); a stage that keeps history.
#pragma once

#include "stages/stage.hpp"

namespace fp {

StageSpec temporal_nlmeans_stage_spec();

}  // namespace fp
