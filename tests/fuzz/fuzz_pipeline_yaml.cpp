// Fuzz target: any bytes as a pipeline file, optionally with command-line overrides (the
// input format is in pipeline_fuzz_input.hpp), give either a validated PipelineDefinition
// that keeps every promise of the validator, or a ConfigError whose issues are each one
// printable line (pipeline_invariants.hpp). Anything else (another exception, a crash, a
// leak, undefined behaviour, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pipeline/config/loader.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "tests/fuzz/pipeline_fuzz_input.hpp"
#include "tests/fuzz/pipeline_invariants.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto input = fp::fuzz::split_pipeline_input(std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    fp::fuzz::require_none(fp::fuzz::broken_promise(fp::parse_pipeline(input.yaml, "fuzz.yaml", input.overrides)));
  } catch (const fp::ConfigError& error) {
    fp::fuzz::require_none(fp::fuzz::broken_promise(error));
  }
  return 0;
}
