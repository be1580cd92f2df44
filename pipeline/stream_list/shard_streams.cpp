#include "pipeline/stream_list/shard_streams.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>


namespace fp {

std::string ShardSelection::describe() const {
  const std::string prefix = "shard " + shard.to_string() + ": ";
  if (inputs == 1) {
    const std::string named = single_input.empty() ? "" : ", " + single_input + ",";
    return prefix + "its one input" + named + " is " + (selected == 1 ? "" : "not ") + "this shard's";
  }
  if (selected == 0) return prefix + "none of the " + std::to_string(inputs) + " inputs is this shard's";
  return prefix + std::to_string(selected) + " of the " + std::to_string(inputs) + " inputs " +
         (selected == 1 ? "is" : "are") + " this shard's";
}

std::string single_input_name(const PipelineDefinition& definition) {
  for (const auto& stage : definition.stages)
    if (const auto uri = source_uri(stage)) {
      const std::string name = file_stream_name(*uri);
      return name.empty() ? "0" : name;
    }
  return "0";
}

ShardSelection select_shard_streams(PipelineDefinition& definition, const Shard& shard) {
  ShardSelection selection{.shard = shard};
  if (definition.streams.empty()) {
    selection.inputs = 1;
    selection.single_input = single_input_name(definition);
    selection.selected = shard.owns(selection.single_input) ? 1 : 0;
    return selection;
  }
  selection.inputs = definition.streams.size();
  if (selection.inputs == 1) selection.single_input = definition.streams.front().name;
  std::erase_if(definition.streams, [&](const StreamDefinition& stream) { return !shard.owns(stream.name); });
  selection.selected = definition.streams.size();
  return selection;
}

std::string stats_json_with_shard(const std::string& document, const ShardSelection& selection) {
  nlohmann::ordered_json doc;
  doc["shard"] = {{"ordinal", selection.shard.ordinal},
                  {"replicas", selection.shard.replicas},
                  {"inputs", selection.inputs},
                  {"selected", selection.selected}};
  doc.update(nlohmann::ordered_json::parse(document));
  return doc.dump(2);
}

}  // namespace fp
