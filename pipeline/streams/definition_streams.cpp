#include "pipeline/streams/definition_streams.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "media/stream_uri.hpp"
#include "pipeline/definition/stream_pipeline.hpp"
#include "pipeline/streams/jobs.hpp"
#include "stages/registry.hpp"

namespace fp {

namespace {

// A pipeline without `inputs:` runs once: every source endless, unless --frames bounds it.
bool runs_forever(const PipelineDefinition& definition, std::int64_t max_frames) {
  if (max_frames >= 0) return false;
  bool any = false;
  for (const auto& stage : definition.stages)
    if (const auto uri = source_uri(stage)) {
      if (!is_endless_uri(*uri)) return false;
      any = true;
    }
  return any;
}

}  // namespace

DefinitionStreams::DefinitionStreams(PipelineDefinition definition, std::int64_t max_frames)
    : definition_(std::move(definition)) {
  if (definition_.streams.empty()) {
    names_.push_back(std::filesystem::path(definition_.file).stem().string());
    endless_.push_back(runs_forever(definition_, max_frames));
  } else {
    for (const auto& stream : definition_.streams) names_.push_back(stream.name);
    endless_ = endless_streams(definition_, max_frames);
  }
  for (std::size_t i = 0; i < names_.size(); ++i) index_[names_[i]] = i;
}

std::vector<StreamSpec> DefinitionStreams::specs() const {
  std::vector<StreamSpec> specs;
  for (const auto& name : names_) {
    StreamSpec spec;
    spec.name = name;
    spec.pipeline = definition_.file;
    spec.source = StreamSource::Command;
    specs.push_back(std::move(spec));
  }
  return specs;
}

std::size_t DefinitionStreams::index_of(const std::string& name) const {
  const auto found = index_.find(name);
  if (found == index_.end()) throw StreamRejected(404, fmt::format("no stream {} in {}", name, definition_.file));
  return found->second;
}

StreamPlan DefinitionStreams::plan(const StreamSpec& spec) const {
  const std::size_t index = index_of(spec.name);
  StreamPlan plan;
  plan.definition = stream_pipeline(definition_, index);
  plan.endless = endless_[index];
  for (const auto& stage : plan.definition.stages) {
    if (const auto uri = source_uri(stage))
      plan.files.push_back({.written = false, .path = *uri, .what = "input of stream " + spec.name, .where = {}});
    const StageSpec* stage_spec = find_stage(stage.type);
    if (stage_spec == nullptr) continue;
    for (const auto& param : stage_spec->params) {
      if (param.type != ParamType::Path || !stage.params.has(param.name)) continue;
      const std::string written = stage.params.text(param.name);
      if (written.empty() || written == "null") continue;
      plan.outputs.push_back(mask_credentials(written));
      plan.files.push_back({.written = true, .path = written,
                            .what = fmt::format("{} of stream {} (stage '{}')", param.name, spec.name, stage.id),
                            .where = {}});
    }
  }
  return plan;
}

std::vector<std::string> DefinitionStreams::names() const { return {definition_.file}; }

std::vector<PipelineDefinition> DefinitionStreams::loaded() const { return {definition_}; }

}  // namespace fp
