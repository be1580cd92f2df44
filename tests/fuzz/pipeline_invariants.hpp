// What a validated pipeline promises (pipeline_definition.hpp: every stage of a known
// type, its inputs resolved and counted, every parameter present, typed and in range, a
// graph the executor can order) and what a ConfigError promises (issues, each with text).
// Shared by the fuzz targets that load pipelines (which abort on a broken promise) and by
// the GoogleTest that replays their regressions in the normal suite.
#pragma once

#include "pipeline/definition/config_error.hpp"
#include "pipeline/definition/pipeline_definition.hpp"

#include <string>

namespace fp::fuzz {

// Each returns the first promise broken, or an empty string when all hold.
std::string broken_promise(const PipelineDefinition& definition);
std::string broken_promise(const ConfigError& error);

}  // namespace fp::fuzz
