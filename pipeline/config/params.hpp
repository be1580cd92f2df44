// A stage's parameters: each given value converted and checked against the type's table,
// defaults filled in, required ones demanded, then the stage's own cross-parameter check.
#pragma once

#include <vector>

#include "pipeline/config/raw.hpp"

namespace fp {

// Problems go to `issues`, each where its value was written (file or command line).
// Stages of unknown type get empty parameters (their type was already reported). On
// DeviceKind::Cuda the table's CUDA limits (ParamSpec::cuda_max) apply too.
StageParams check_stage_params(const RawStage& stage, DeviceKind backend, std::vector<ConfigIssue>& issues);

}  // namespace fp
