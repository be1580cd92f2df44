// Command-line overrides (-i, -o, --device, --set) applied to the pipeline as read, before
// any value is checked: an overriding value gets exactly the checks of one in the file,
// and its problems are reported under the option ("command line: --set denoise.h: ...").
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/overrides.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <vector>

#include "pipeline/config/command_line.hpp"
#include "pipeline/config/raw.hpp"

namespace fp {

// Order: -i, -o, --device, then each --set in turn, so a later --set wins over all.
void apply_overrides(RawPipeline& raw, const ConfigOverrides& overrides, std::vector<ConfigIssue>& issues);

}  // namespace fp
