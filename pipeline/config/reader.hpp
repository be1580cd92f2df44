// Reads YAML text into a RawPipeline: the document's shape (top-level keys, the stages
// list, each stage's id, type, inputs and parameter names). Parameter values, ids and
// references are checked later (config_params, config_links).
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/reader.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "pipeline/config/raw.hpp"

namespace fp {

// Adds what is wrong to `issues`. Returns nullopt only when the text is not YAML at all;
// otherwise as much of the pipeline as could be read, so that later checks still run.
std::optional<RawPipeline> read_pipeline_yaml(const std::string& text, const std::string& file,
                                              std::vector<ConfigIssue>& issues);

// One element of `stages` (index: its position in the file's list). nullopt when it is
// not a map, which is reported.
std::optional<RawStage> read_stage(const YAML::Node& node, std::size_t index, const std::string& file,
                                   std::vector<ConfigIssue>& issues);

// The decode stage that a top-level `input: URI` or `input: {uri: URI, on_error: stop}`
// stands for (id `input`); unknown keys of the map are reported.
// `key` names it in messages: "input", or "inputs[N]" for an item of the `inputs` list.
RawStage top_level_input_stage(const RawValue& input, const std::string& file, std::vector<ConfigIssue>& issues,
                               const std::string& key = "input");

}  // namespace fp
