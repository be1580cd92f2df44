#include "pipeline/config/streams.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "pipeline/config/params.hpp"

namespace fp {

namespace {

// Several streams writing one path would overwrite each other's output.
void check_output_templates(const RawPipeline& raw, const std::vector<StageDefinition>& stages, std::size_t streams,
                            std::vector<ConfigIssue>& issues) {
  for (std::size_t i = 0; i < raw.stages.size() && i < stages.size(); ++i) {
    const RawStage& stage = raw.stages[i];
    for (const auto& [name, path] : path_params(stages[i])) {
      if (!names_a_file(path) || path.find("{stream}") != std::string::npos) continue;
      const auto given = stage.params.find(name);
      const Origin& at = given != stage.params.end() ? given->second.origin : stage.origin;
      issues.push_back(at.issue("the pipeline runs on " + std::to_string(streams) +
                                " inputs: put {stream} in this path (e.g. out/{stream}.mp4), or every stream would "
                                "write '" + path + "'"));
    }
  }
}

}  // namespace

std::vector<StreamDefinition> check_streams(const RawPipeline& raw, const std::vector<StageDefinition>& stages,
                                            DeviceKind backend, std::vector<ConfigIssue>& issues) {
  std::vector<StreamDefinition> streams;
  if (raw.streams.empty() || raw.stream_stage >= stages.size()) return streams;
  std::set<std::string> names;
  for (std::size_t i = 0; i < raw.streams.size(); ++i) {
    const RawStream& stream = raw.streams[i];
    if (!is_valid_stream_name(stream.name))
      issues.push_back(stream.name_origin.issue("stream name '" + stream.name + "' must be " + kStreamNameRule +
                                                " (it goes into file names)"));
    else if (!names.insert(stream.name).second)
      issues.push_back(stream.name_origin.issue("stream name '" + stream.name + "' is used twice"));
    // The first stream's decode stage is the pipeline's own, already checked.
    StageParams params = i == 0 ? stages[raw.stream_stage].params : check_stage_params(stream.input, backend, issues);
    streams.push_back(StreamDefinition{.name = stream.name, .input = std::move(params)});
  }
  if (streams.size() > 1) check_output_templates(raw, stages, streams.size(), issues);
  return streams;
}

}  // namespace fp
