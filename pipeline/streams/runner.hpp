// Runs a pipeline on each of its streams in one process: one executor per stream, each on
// its own thread with its own queues and (on a GPU) its own slots and CUDA streams. At most
// `jobs` streams run at once (pipeline/streams/jobs.hpp); the others wait, in their order,
// and the next starts when one ends. A stream that fails is reported and the others go on,
// unless `fail_fast`, when the first failure stops them all and the waiting ones never start.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "pipeline/definition/pipeline_definition.hpp"
#include "pipeline/engine/run_options.hpp"
#include "pipeline/engine/run_stats.hpp"

namespace fp {

class RunMonitor;

struct StreamResult {
  std::string name;
  RunStats stats;     // what the stream's run measured (frames written so far when it failed)
  std::string error;  // empty when the stream ended well (or was stopped by a signal)
  bool started = false;             // false: it was still waiting for a place when the run stopped
  bool stopped_by_failure = false;  // --fail-fast: stopped (or never started) because another stream failed
};

struct StreamsRun {
  std::vector<StreamResult> streams;  // every stream, in the order of the definition
  int jobs = 0;                       // the cap the run used
  int max_running = 0;                // the most streams that ran at once
  bool interrupted = false;           // the signal's flag stopped the run
};

// A caller watching each stream of the run from other threads (`run --metrics`). Every
// member is optional; each is called from the stream's own thread.
struct StreamWatch {
  std::function<RunMonitor*(std::size_t index)> monitor;  // stream `index`'s run publishes to it
  std::function<void(std::size_t index)> started;          // it got its place; its run begins
  std::function<void(std::size_t index, bool failed)> ended;  // its run returned, or failed
};

// Stream i runs on devices[i % devices.size()] (device: cuda:all or cuda:0,1 spreads them
// over those GPUs). Streams that never end (endless_streams: live feeds, cameras, endless
// testsrc) start first and at once, whatever `jobs` (resolve_stream_jobs has left room for
// the others); the rest start in order as places free up. `options.stop` (the signal) stops
// every running stream and starts no other; each started stream's outputs are finalized
// whatever happens. The progress line is off (one per stream would garble the terminal).
StreamsRun run_streams(const PipelineDefinition& definition, const std::vector<Device>& devices,
                       const RunOptions& options, bool fail_fast, int jobs, const StreamWatch& watch = {});

}  // namespace fp
