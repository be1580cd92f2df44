// Runs a validated pipeline: a thread per source (demux + decode), the processing of the
// stage graph on the calling thread, and a thread per sink (encode + mux), joined by
// bounded queues. Outputs are finalized whatever happens: end of stream, an error, or a
// stop request (Ctrl-C).
#pragma once

#include "pipeline/definition/pipeline_definition.hpp"
#include "pipeline/engine/run_options.hpp"
#include "pipeline/engine/run_stats.hpp"

namespace fp {

// Throws (after finalizing every output) on the first failure; MediaError and
// std::runtime_error carry one-line messages naming the stage, file or stream. A run that
// fails after frames went through leaves what it measured in `stats_on_failure` (when given):
// the frames written before the failure, its drops and latency.
RunStats run_pipeline(const PipelineDefinition& definition, const Device& device, const RunOptions& options,
                      RunStats* stats_on_failure = nullptr);

}  // namespace fp
