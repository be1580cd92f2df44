// encode: writes frames to a file (H.264 in mp4/mkv/ts, raw .y4m) or to nothing ("null").
#pragma once

#include "stages/stage.hpp"

namespace fp {

StageSpec encode_stage_spec();

}  // namespace fp
