// The files a validated pipeline reads (decode stages' uri, every stream's) and writes
// (every path parameter: encode outputs, luma_histogram's text file), stream by stream with
// {stream} replaced, each with where it was configured: what pipeline/definition/file_clashes.hpp checks.
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/file_uses.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <vector>

#include "pipeline/config/raw.hpp"
#include "pipeline/definition/file_clashes.hpp"
#include "pipeline/definition/pipeline_definition.hpp"

namespace fp {

// `definition` is the checked form of `raw` (its stages in the same order, no issues).
std::vector<FileUse> pipeline_file_uses(const RawPipeline& raw, const PipelineDefinition& definition);

}  // namespace fp
