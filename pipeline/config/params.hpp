// A stage's parameters: each given value converted and checked against the type's table,
// defaults filled in, required ones demanded, then the stage's own cross-parameter check.
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/params.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <vector>

#include "pipeline/config/raw.hpp"

namespace fp {

// Problems go to `issues`, each where its value was written (file or command line).
// Stages of unknown type get empty parameters (their type was already reported). On
// DeviceKind::Cuda the table's CUDA limits (ParamSpec::cuda_max) apply too.
StageParams check_stage_params(const RawStage& stage, DeviceKind backend, std::vector<ConfigIssue>& issues);

}  // namespace fp
