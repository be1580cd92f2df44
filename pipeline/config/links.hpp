// How stages refer to each other: id syntax, the reserved id `input`, duplicate ids, each
// stage's inputs (written, or the nearest earlier stage with an output), the number of
// inputs its type takes, cycles, and that the pipeline decodes something.
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/links.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <string>
#include <vector>

#include "pipeline/config/raw.hpp"

namespace fp {

// The input ids of each stage of raw.stages (same order), resolved. Problems go to
// `issues`; the lists are then only as good as what could be made of the file.
std::vector<std::vector<std::string>> link_stages(const RawPipeline& raw, std::vector<ConfigIssue>& issues);

// [A-Za-z_][A-Za-z0-9_-]*: safe in file names, --set ID.PARAM and log lines.
bool is_valid_id(const std::string& id);

}  // namespace fp
