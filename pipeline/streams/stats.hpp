// What a run on several streams reports (`framepipe run`): each stream's own statistics (as
// a one-stream run gives them) and the totals, as JSON and as a summary for people, from the
// stream manager's statuses once the batch is over.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pipeline/streams/status.hpp"

namespace fp {

struct StreamsReport {
  std::vector<StreamStatus> streams;  // every stream, in the order of the definition
  std::size_t jobs = 0;               // the cap the run used
  std::size_t max_running = 0;        // the most streams that ran at once
  bool interrupted = false;           // the signal's flag stopped the run
  bool fail_fast_stopped = false;     // --fail-fast: a failure stopped the others
};

// Whether the stream got its place and its run began (false: still waiting when the run stopped).
bool stream_started(const StreamStatus& stream);
// Its run's failure, masked; empty when it ended well (or was stopped).
std::string stream_error(const StreamStatus& stream);
// --fail-fast: stopped, or never started, because another stream failed.
bool stopped_by_failure(const StreamsReport& report, const StreamStatus& stream);

// {"streams": [{"name", "started", "error" (when it failed), ...a one-stream run's document}],
//  "frames", "frames_dropped", "wall_seconds", "fps", "streams_failed", "streams_not_started",
//  "jobs" (the cap), "max_concurrent_streams"}. A stream that never started is listed too.
std::string streams_to_json(const StreamsReport& report, double wall_seconds);
// One line per stream (those that never started say so), then the total.
std::string streams_summary(const StreamsReport& report, double wall_seconds);

}  // namespace fp
