// `framepipe run --shard I/N`: of the streams a run's inputs were expanded into (a glob, a
// list, `inputs:`, -i repeated), only those whose rendezvous owner (pipeline/stream_list/shard.hpp) is I
// run here. N processes given 0..N-1 of N over one input list — an Indexed Job's pods —
// then process every input exactly once between them, with no coordinator, and a retried
// index runs the same inputs again (the choice depends on the names and N alone).
#pragma once

#include <cstddef>
#include <string>

#include "pipeline/definition/pipeline_definition.hpp"
#include "pipeline/stream_list/shard.hpp"

namespace fp {

struct ShardSelection {
  Shard shard;
  std::size_t inputs = 0;    // the run's inputs before the selection
  std::size_t selected = 0;  // those that are this shard's
  std::string single_input;  // a run on one input: the name it was sharded by

  // "shard 1/3: 7 of the 20 inputs are this shard's", "shard 2/3: none of the 5 inputs is
  // this shard's", "shard 0/2: its one input, cam7, is this shard's".
  std::string describe() const;
};

// The name a pipeline without streams (one `input:`, or a single -i) is sharded by: its
// first decode stage's input named as a list line would name it alone — a local file by
// its stem (cams/cam7.mp4 -> cam7), anything else "0" (its index).
std::string single_input_name(const PipelineDefinition& definition);

// Keeps in `definition.streams` only this shard's, in their order. A pipeline without
// streams is one input named by single_input_name: kept (nothing changes) or not (the
// selection says 0 selected; the caller runs nothing).
ShardSelection select_shard_streams(PipelineDefinition& definition, const Shard& shard);

// A run's --stats-json document with the selection first: "shard": {"ordinal", "replicas",
// "inputs" (of the whole run), "selected" (this shard's)}, so that whoever gathers an
// Indexed Job's documents can check that every index ran and that the counts add up.
std::string stats_json_with_shard(const std::string& document, const ShardSelection& selection);

}  // namespace fp
