// decode: the source of a pipeline (a file, RTSP stream, camera or testsrc://).
#pragma once

#include "stages/stage.hpp"

namespace fp {

StageSpec decode_stage_spec();

}  // namespace fp
