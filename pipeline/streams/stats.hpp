// What a run on several streams reports: each stream's own statistics (as a one-stream run
// gives them) and the totals, as JSON and as a summary for people.
#pragma once

#include <string>
#include <vector>

#include "pipeline/streams/runner.hpp"

namespace fp {

// {"streams": [{"name", "started", "error" (when it failed), ...a one-stream run's document}],
//  "frames", "frames_dropped", "wall_seconds", "fps", "streams_failed", "streams_not_started",
//  "jobs" (the cap), "max_concurrent_streams"}. A stream that never started is listed too.
std::string streams_to_json(const StreamsRun& run, double wall_seconds);
// One line per stream (those that never started say so), then the total.
std::string streams_summary(const StreamsRun& run, double wall_seconds);

}  // namespace fp
