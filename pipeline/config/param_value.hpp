// Turns one YAML value into a stage parameter of the type its ParamSpec declares, with
// the table's checks (type, range, odd, keywords). The messages are the user-facing ones,
// e.g. "must be > 0 (got -2)".
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/param_value.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <optional>
#include <string>

#include "stages/param.hpp"

namespace fp {

struct ConvertedParam {
  std::optional<ParamValue> value;     // set when the value is acceptable
  std::string error;                   // else what is wrong with it
  std::optional<std::size_t> element;  // a list's offending element, to point at it
};

ConvertedParam convert_param(const ParamSpec& spec, const YAML::Node& node);

// "must be in [1, 15] (got 40)", or "" when `value` is in range. `written` is the value
// as the user wrote it.
std::string range_error(const ParamRange& range, double value, const std::string& written);

}  // namespace fp
