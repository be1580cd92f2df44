// The pipeline's run-wide keys besides `device`: `realtime` (pace files and testsrc at their
// frame rate, as a camera would deliver them) and `drop` (what a source's full queue does:
// auto, oldest, newest or never; pipeline/definition/drop_policy.hpp) and `jobs` (with several inputs, the
// most streams at once: 0 for the derived default, pipeline/capacity/jobs.hpp).
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/run_keys.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <string>
#include <vector>

#include "pipeline/config/raw.hpp"
#include "pipeline/definition/drop_policy.hpp"

namespace fp {

// Each returns the value, or the default with an issue added when the value is not valid.
bool check_realtime(const RawValue& value, std::vector<ConfigIssue>& issues);
DropPolicy check_drop(const RawValue& value, std::vector<ConfigIssue>& issues);
int check_jobs(const RawValue& value, std::vector<ConfigIssue>& issues);

}  // namespace fp
