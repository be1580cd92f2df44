// `framepipe run`'s planner: the streams of the pipeline it was given, each a spec the stream
// manager runs as it runs serve's (one stream per input of `inputs:`, a glob or several -i;
// a pipeline with one input is one stream named after its file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pipeline/streams/planner.hpp"

namespace fp {

// Whether each of the definition's runs never ends by itself (a live feed, a camera, an
// endless testsrc), unless --frames bounds them all: a stream, by its input; a pipeline
// without `inputs:` (one run), when it has sources and every one is endless.
std::vector<bool> endless_runs(const PipelineDefinition& definition, std::int64_t max_frames);

class DefinitionStreams final : public StreamPlanner {
 public:
  // `max_frames` as the run has it (--frames): bounded streams are not endless, whatever their input.
  DefinitionStreams(PipelineDefinition definition, std::int64_t max_frames);

  // One spec per stream, in the definition's order (source Command).
  std::vector<StreamSpec> specs() const;
  // Stream `name`'s index in the definition.
  std::size_t index_of(const std::string& name) const;

  // stream_pipeline() of the spec's stream; its files and outputs as written (a run writes
  // where it was told; the definition's own check already refused clashes). Throws
  // StreamRejected 404 for a name that is none of its streams.
  StreamPlan plan(const StreamSpec& spec) const override;
  std::vector<std::string> names() const override;
  std::vector<PipelineDefinition> loaded() const override;

 private:
  PipelineDefinition definition_;
  std::vector<std::string> names_;  // stream i's name
  std::vector<bool> endless_;       // stream i never ends by itself
  std::map<std::string, std::size_t> index_;
};

}  // namespace fp
