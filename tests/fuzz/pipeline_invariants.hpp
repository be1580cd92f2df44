// What a validated pipeline promises (pipeline_definition.hpp: every stage of a known
// type, its inputs resolved and counted, every parameter present, typed and in range, a
// graph the executor can order) and what a ConfigError promises (issues, each with text).
// Shared by the fuzz targets that load pipelines; a broken promise aborts (see require).
#pragma once

#include "pipeline/config_error.hpp"
#include "pipeline/pipeline_definition.hpp"

namespace fp::fuzz {

void check_definition(const PipelineDefinition& definition);
void check_config_error(const ConfigError& error);

}  // namespace fp::fuzz
