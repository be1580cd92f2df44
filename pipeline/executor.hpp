// Runs a validated pipeline: a thread per source (demux + decode), the processing of the
// stage graph on the calling thread, and a thread per sink (encode + mux), joined by
// bounded queues. Outputs are finalized whatever happens: end of stream, an error, or a
// stop request (Ctrl-C).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "pipeline/pipeline_definition.hpp"
#include "pipeline/run_stats.hpp"

namespace fp {

struct RunOptions {
  std::int64_t max_frames = -1;  // stop after this many frames per source; -1: until the end
  bool progress = false;         // draw the progress line on stderr
  std::size_t queue_depth = 4;   // frames buffered between threads
  int slots = 2;                 // frames in flight on a CUDA device, each on its own stream
  const std::atomic<bool>* stop = nullptr;  // set from a signal handler to stop early
};

// Throws (after finalizing every output) on the first failure; MediaError and
// std::runtime_error carry one-line messages naming the stage, file or stream.
RunStats run_pipeline(const PipelineDefinition& definition, const Device& device, const RunOptions& options);

}  // namespace fp
