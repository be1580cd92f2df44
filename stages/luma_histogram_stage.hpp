// luma_histogram: 256 bins, mean and Otsu threshold of Y per frame, to JSONL or CSV; passes frames through.
#pragma once

#include "stages/stage.hpp"

namespace fp {

StageSpec luma_histogram_stage_spec();

}  // namespace fp
