#include "pipeline/definition/pipeline_definition.hpp"

#include "media/output_target.hpp"
#include "stages/registry.hpp"

namespace fp {

namespace {

bool streams_to_network(const PipelineDefinition& definition) {
  for (const auto& stage : definition.stages)
    for (const auto& param : path_params(stage))
      if (is_network_output(param.path)) return true;
  return false;
}

}  // namespace

bool runs_in_realtime(const PipelineDefinition& definition) {
  return definition.realtime.value_or(streams_to_network(definition));
}

bool is_source(const StageDefinition& stage) {
  const StageSpec* spec = find_stage(stage.type);
  return spec != nullptr && spec->role == StageRole::Source;
}

std::optional<std::string> source_uri(const StageDefinition& stage) {
  if (!is_source(stage) || !stage.params.has("uri")) return std::nullopt;
  return stage.params.text("uri");
}

std::vector<PathParam> path_params(const StageDefinition& stage) {
  std::vector<PathParam> params;
  if (const StageSpec* spec = find_stage(stage.type))
    for (const auto& param : spec->params)
      if (param.type == ParamType::Path && stage.params.has(param.name))
        params.push_back({param.name, stage.params.text(param.name)});
  return params;
}

bool names_a_file(const std::string& path) { return !path.empty() && path != "null"; }

}  // namespace fp
