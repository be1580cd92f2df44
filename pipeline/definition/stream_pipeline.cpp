#include "pipeline/definition/stream_pipeline.hpp"

#include "pipeline/definition/stream_names.hpp"

namespace fp {

PipelineDefinition stream_pipeline(const PipelineDefinition& definition, std::size_t index) {
  if (definition.streams.empty()) return definition;
  const StreamDefinition& stream = definition.streams.at(index);
  // Every field but the streams and every stream's files (checked for clashes when loaded):
  // they are no part of one stream's run, and copied for each stream a batch of N would
  // copy N*N entries (a run of 200 files held 200 copies of each list).
  PipelineDefinition one;
  one.file = definition.file;
  one.device = definition.device;
  one.realtime = definition.realtime;
  one.drop = definition.drop;
  one.jobs = definition.jobs;
  one.stages = definition.stages;
  one.stream_stage = definition.stream_stage;
  one.confinement = definition.confinement;
  const bool several = definition.streams.size() > 1;
  const auto stream_id = [&](const std::string& id) { return several ? stream.name + "/" + id : id; };
  for (auto& stage : one.stages) {
    if (stage.id == definition.stream_stage) stage.params = stream.input;
    for (const auto& param : path_params(stage)) stage.params.set(param.name, with_stream_name(param.path, stream.name));
    stage.id = stream_id(stage.id);
    for (auto& input : stage.inputs) input = stream_id(input);
  }
  one.stream_stage = stream_id(definition.stream_stage);
  return one;
}

}  // namespace fp
