#include "pipeline/definition/stream_pipeline.hpp"

#include "pipeline/definition/stream_names.hpp"

namespace fp {

PipelineDefinition stream_pipeline(const PipelineDefinition& definition, std::size_t index) {
  PipelineDefinition one = definition;
  if (definition.streams.empty()) return one;
  const StreamDefinition& stream = definition.streams.at(index);
  // The other streams, and every stream's files (checked for clashes when loaded), are no
  // part of one stream's run: a run of 200 files would hold 200 copies of each list.
  // Swapped with empty ones: `= {}` would keep their buffers.
  decltype(one.streams)().swap(one.streams);
  decltype(one.files)().swap(one.files);
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
