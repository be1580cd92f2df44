// A stage's parameters: each given value converted and checked against the type's table,
// defaults filled in, required ones demanded, then the stage's own cross-parameter check.
#pragma once

#include <vector>

#include "pipeline/config_raw.hpp"

namespace fp {

// Problems go to `issues`, each where its value was written (file or command line).
// Stages of unknown type get empty parameters (their type was already reported).
StageParams check_stage_params(const RawStage& stage, std::vector<ConfigIssue>& issues);

}  // namespace fp
