#include "pipeline/streams/definition_streams.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "media/stream_uri.hpp"
#include "pipeline/definition/stream_pipeline.hpp"

namespace fp {

std::vector<bool> endless_runs(const PipelineDefinition& definition, std::int64_t max_frames) {
  const std::size_t runs = definition.streams.empty() ? 1 : definition.streams.size();
  std::vector<bool> endless(runs, false);
  if (max_frames >= 0) return endless;
  if (!definition.streams.empty()) {
    for (std::size_t i = 0; i < runs; ++i) {
      const StageParams& input = definition.streams[i].input;
      endless[i] = endless_inputs(input.has("uri") ? std::vector<std::string>{input.text("uri")} : std::vector<std::string>{});
    }
    return endless;
  }
  std::vector<std::string> uris;
  for (const auto& stage : definition.stages)
    if (const auto uri = source_uri(stage)) uris.push_back(*uri);
  endless[0] = endless_inputs(uris);
  return endless;
}

DefinitionStreams::DefinitionStreams(PipelineDefinition definition, std::int64_t max_frames)
    : definition_(std::move(definition)), endless_(endless_runs(definition_, max_frames)) {
  if (definition_.streams.empty()) names_.push_back(std::filesystem::path(definition_.file).stem().string());
  for (const auto& stream : definition_.streams) names_.push_back(stream.name);
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
  add_plan_files(plan, spec.name);
  return plan;
}

std::vector<std::string> DefinitionStreams::names() const { return {definition_.file}; }

std::vector<PipelineDefinition> DefinitionStreams::loaded() const { return {definition_}; }

}  // namespace fp
