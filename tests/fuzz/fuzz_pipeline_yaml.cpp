// Fuzz target: any bytes as a pipeline file, optionally with command-line overrides, give
// either a validated PipelineDefinition that keeps every promise of the validator, or a
// ConfigError with at least one issue. Anything else (another exception, a crash, a leak,
// undefined behaviour, a hang) is a bug.
//
// Input: the YAML text; if a line `#fuzz-overrides` follows, each later line is one
// override as the CLI spells it: `-i URI`, `-o PATH`, `--device D` or `--set ID.P=V`.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pipeline/config_loader.hpp"
#include "tests/fuzz/pipeline_invariants.hpp"

namespace {

constexpr std::string_view kOverridesMarker = "\n#fuzz-overrides\n";

fp::ConfigOverrides read_overrides(std::string_view lines) {
  fp::ConfigOverrides overrides;
  while (!lines.empty()) {
    const auto newline = lines.find('\n');
    const std::string_view line = lines.substr(0, newline);
    lines = newline == std::string_view::npos ? std::string_view{} : lines.substr(newline + 1);
    const auto space = line.find(' ');
    if (space == std::string_view::npos) continue;
    const std::string_view flag = line.substr(0, space);
    std::string value(line.substr(space + 1));
    if (flag == "-i") overrides.input = value;
    else if (flag == "-o") overrides.output = value;
    else if (flag == "--device") overrides.device = value;
    else if (flag == "--set") overrides.sets.push_back(value);
  }
  return overrides;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto marker = input.find(kOverridesMarker);
  const std::string yaml(input.substr(0, marker));
  const fp::ConfigOverrides overrides = marker == std::string_view::npos
                                            ? fp::ConfigOverrides{}
                                            : read_overrides(input.substr(marker + kOverridesMarker.size()));
  try {
    fp::fuzz::check_definition(fp::parse_pipeline(yaml, "fuzz.yaml", overrides));
  } catch (const fp::ConfigError& error) {
    fp::fuzz::check_config_error(error);
  }
  return 0;
}
