// Small YAML helpers shared by the config reader and checks: positions, descriptions of
// values for messages, and map iteration that reports duplicate keys.
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/yaml.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <yaml-cpp/yaml.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/config/raw.hpp"

namespace fp {

// The node's position (1-based), or `fallback`'s when the node has none: yaml-cpp gives
// an empty value (`h:`) the position of whatever follows it, so callers pass the key's.
Origin origin_of(const YAML::Node& node, const Origin& fallback, std::string key);
Origin origin_of(const YAML::Node& node, const std::string& file, std::string key);

// How a value is shown after "got": 'text' for a scalar, "a list", "a map" or "nothing".
std::string describe_node(const YAML::Node& node);

// The text of a scalar node; nullopt for lists, maps and null.
std::optional<std::string> scalar_text(const YAML::Node& node);

// Calls `visit(name, key_node, value_node)` for each entry of a map, in file order.
// Non-text keys and repeated keys are reported (under `prefix`) and skipped.
void for_each_entry(const YAML::Node& map, const std::string& file, const std::string& prefix,
                    std::vector<ConfigIssue>& issues,
                    const std::function<void(const std::string&, const YAML::Node&, const YAML::Node&)>& visit);

// A plain `null` or `~` is YAML's null, which keeps no text; but `output: null` names
// the null sink. Returns a scalar with the text as written (read back from `source` at the
// node's position), or `node` itself when it is not a written null (e.g. an empty value).
YAML::Node written_null_as_text(const YAML::Node& node, const std::string& source);

// "stages[2]" + "h" -> "stages[2].h"; "" + "device" -> "device".
std::string join_key(const std::string& prefix, const std::string& name);

}  // namespace fp
