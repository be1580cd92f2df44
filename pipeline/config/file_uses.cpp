#include "pipeline/config/file_uses.hpp"

#include "pipeline/definition/stream_pipeline.hpp"

namespace fp {

namespace {

ConfigIssue place(const Origin& origin) { return origin.issue(""); }

// Where parameter `name` of a stage was set: its own key, else the stage (a default).
const Origin& origin_of(const RawStage& stage, const std::string& name) {
  const auto given = stage.params.find(name);
  return given != stage.params.end() ? given->second.origin : stage.origin;
}

}  // namespace

std::vector<FileUse> pipeline_file_uses(const RawPipeline& raw, const PipelineDefinition& definition) {
  std::vector<FileUse> uses;
  const std::size_t runs = definition.streams.empty() ? 1 : definition.streams.size();
  for (std::size_t run = 0; run < runs; ++run) {
    const PipelineDefinition one = stream_pipeline(definition, run);
    const bool per_stream = !definition.streams.empty();
    for (std::size_t i = 0; i < one.stages.size() && i < raw.stages.size(); ++i) {
      const StageDefinition& stage = one.stages[i];
      const bool stream_stage = per_stream && i == raw.stream_stage && run < raw.streams.size();
      const RawStage& raw_stage = stream_stage ? raw.streams[run].input : raw.stages[i];
      if (const auto uri = source_uri(stage)) {
        const std::string what = stream_stage ? "input of stream " + definition.streams[run].name
                                              : "input of stage '" + stage.id + "'";
        uses.push_back({.written = false, .path = *uri, .what = what,
                        .where = place(origin_of(raw_stage, "uri"))});
      }
      for (auto& [name, path] : path_params(stage))
        uses.push_back({.written = true, .path = std::move(path), .what = name + " of stage '" + stage.id + "'",
                        .where = place(origin_of(raw.stages[i], name))});
    }
  }
  return uses;
}

}  // namespace fp
