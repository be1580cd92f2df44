// What the command line changes in a pipeline file (-i, -o, --device, --drop, --decoder,
// --set): given to load_pipeline (loader.hpp), applied by apply_overrides (overrides.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fp {

struct ConfigOverrides {
  // -i: one replaces the uri of the (first) decode stage; several make one stream each (as
  // `inputs:` does, replacing the file's list).
  std::vector<std::string> inputs;
  std::optional<std::string> output;        // -o: replaces the output of the first encode stage
  std::optional<std::string> device;        // --device
  std::optional<std::string> drop;          // --drop
  std::optional<std::string> decoder;       // --decoder: `decode` of every decode stage (and stream)
  std::vector<std::string> sets;            // --set ID.PARAM=VALUE (VALUE parsed as YAML)
};

}  // namespace fp
