// Every stage type framepipe knows. Adding a stage: one file pair in stages/ and one line
// in registry.cpp.
#pragma once

#include <span>
#include <string>

#include "stages/stage.hpp"

namespace fp {

std::span<const StageSpec> stage_registry();
const StageSpec* find_stage(const std::string& type);  // nullptr when unknown

}  // namespace fp
