// What a run on several streams reports: each stream's own statistics (as a one-stream run
// gives them) and the totals, as JSON and as a summary for people.
#pragma once

#include <string>
#include <vector>

#include "pipeline/stream_runner.hpp"

namespace fp {

// {"streams": [{"name", "error" (when it failed), ...a one-stream run's document}],
//  "frames", "frames_dropped", "wall_seconds", "fps", "streams_failed"}.
std::string streams_to_json(const std::vector<StreamResult>& results, double wall_seconds);
// Throws std::runtime_error "PATH: cannot create|write: REASON".
void write_streams_json(const std::vector<StreamResult>& results, double wall_seconds, const std::string& path);
// One line per stream, then the total.
std::string streams_summary(const std::vector<StreamResult>& results, double wall_seconds);

}  // namespace fp
