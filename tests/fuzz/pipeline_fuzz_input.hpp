// How the pipeline_yaml fuzz target reads its input, shared with the GoogleTest that replays
// its regressions: the YAML text, then optionally a line `#fuzz-overrides` and one
// command-line override per line, spelt as on the command line: `-i URI`, `-o PATH`,
// `--device D`, `--set ID.PARAM=VALUE`.
#pragma once

#include <string>
#include <string_view>

#include "pipeline/config/loader.hpp"

namespace fp::fuzz {

struct PipelineInput {
  std::string yaml;
  ConfigOverrides overrides;
};

inline PipelineInput split_pipeline_input(std::string_view input) {
  constexpr std::string_view kMarker = "\n#fuzz-overrides\n";
  const auto marker = input.find(kMarker);
  PipelineInput out{std::string(input.substr(0, marker)), {}};
  std::string_view lines = marker == std::string_view::npos ? std::string_view{} : input.substr(marker + kMarker.size());
  while (!lines.empty()) {
    const auto newline = lines.find('\n');
    const std::string_view line = lines.substr(0, newline);
    lines = newline == std::string_view::npos ? std::string_view{} : lines.substr(newline + 1);
    const auto space = line.find(' ');
    if (space == std::string_view::npos) continue;
    const std::string_view flag = line.substr(0, space);
    std::string value(line.substr(space + 1));
    if (flag == "-i") out.overrides.inputs.push_back(std::move(value));
    else if (flag == "-o") out.overrides.output = std::move(value);
    else if (flag == "--device") out.overrides.device = std::move(value);
    else if (flag == "--set") out.overrides.sets.push_back(std::move(value));
  }
  return out;
}

}  // namespace fp::fuzz
