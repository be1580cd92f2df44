// The streams of a pipeline run on several inputs (`inputs:` or several -i): each stream's
// decode parameters checked like the pipeline's own, names fit to be put in file names and
// unique, and — with more than one stream — `{stream}` in every output path, so that no two
// streams write the same file.
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/streams.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <string>
#include <vector>

#include "pipeline/config/params.hpp"
#include "pipeline/config/raw.hpp"
#include "pipeline/definition/config_error.hpp"
#include "pipeline/definition/pipeline_definition.hpp"
#include "pipeline/definition/stream_names.hpp"

namespace fp {

// `stages` are the checked stages (their parameters); problems go to `issues`.
std::vector<StreamDefinition> check_streams(const RawPipeline& raw, const std::vector<StageDefinition>& stages,
                                            DeviceKind backend, std::vector<ConfigIssue>& issues);

}  // namespace fp
