#include "pipeline/config/file_uses.hpp"

#include "pipeline/definition/stream_pipeline.hpp"
#include "stages/registry.hpp"

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
      const StageSpec* spec = find_stage(stage.type);
      if (spec == nullptr) continue;
      for (const auto& param : spec->params)
        if (param.type == ParamType::Path && stage.params.has(param.name))
          uses.push_back({.written = true, .path = stage.params.text(param.name),
                          .what = param.name + " of stage '" + stage.id + "'",
                          .where = place(origin_of(raw.stages[i], param.name))});
    }
  }
  return uses;
}

}  // namespace fp
