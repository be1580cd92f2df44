// Parameter groups: `reconnect: {attempts: 3, initial_ms: 200}` in a stage's map (or in
// `input:`) sets the parameters named `reconnect.attempts` and `reconnect.initial_ms`. The
// YAML keeps related settings together while the parameter table stays flat: one name per
// parameter, as `framepipe stages`, the docs and `--set input.reconnect.attempts=3` spell it.
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/param_group.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "pipeline/config/raw.hpp"

namespace fp {

// The keys a stage's map may use for its parameters: plain names, and each group's name
// once (for suggestions after a typo).
std::vector<std::string> param_keys(const StageSpec& spec);

// Reads one entry of a stage's map whose key is a parameter or a group of `spec` into
// `stage.params`, reporting unknown members of a group and a group that is not a map.
// False when `name` is neither (the caller reports it).
bool read_param_entry(const StageSpec& spec, const std::string& name, const YAML::Node& value, const Origin& at_key,
                      RawStage& stage, std::vector<ConfigIssue>& issues);

}  // namespace fp
