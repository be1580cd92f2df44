// Runs a pipeline on each of its streams at once, in one process: one executor per stream,
// each on its own thread with its own queues and (on a GPU) its own slots and CUDA streams,
// all on one device. A stream that fails is reported and the others go on, unless
// `fail_fast`, when the first failure stops them all.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "pipeline/executor.hpp"

namespace fp {

struct StreamResult {
  std::string name;
  RunStats stats;     // what the stream's run measured (frames written so far when it failed)
  std::string error;  // empty when the stream ended well (or was stopped by a signal)
  bool stopped_by_failure = false;  // --fail-fast: stopped because another stream failed
};

// Stream i runs on devices[i % devices.size()] (device: cuda:all or cuda:0,1 spreads them
// over those GPUs). `options.stop` (the signal) stops every stream; each stream's outputs
// are finalized whatever happens. The progress line is off (one per stream would garble the
// terminal).
std::vector<StreamResult> run_streams(const PipelineDefinition& definition, const std::vector<Device>& devices,
                                      const RunOptions& options, bool fail_fast);

}  // namespace fp
