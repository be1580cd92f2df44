// Helpers shared by the config tests: where the test data is, and the issues a pipeline
// text produces (none when it is valid).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "pipeline/config/loader.hpp"

namespace fp::test {

inline std::filesystem::path config_data(const std::string& relative) {
  return std::filesystem::path(FRAMEPIPE_SOURCE_DIR) / "tests" / "config" / relative;
}

inline std::vector<ConfigIssue> issues_of(const std::string& yaml, const ConfigOverrides& overrides = {}) {
  try {
    parse_pipeline(yaml, "test.yaml", overrides);
  } catch (const ConfigError& e) {
    return e.issues();
  }
  return {};
}

// All issues as the user sees them, for failure messages and substring checks.
inline std::string formatted(const std::vector<ConfigIssue>& issues) {
  std::string text;
  for (const auto& issue : issues) text += issue.format() + "\n";
  return text;
}

// A small valid pipeline to build on: the implicit source, one filter, one sink.
inline const char* const kSimplePipeline = R"(input: testsrc://64x48@30?frames=3
stages:
  - {id: denoise, type: nlmeans, h: 12}
  - {id: out, type: encode, output: out.mp4}
)";

}  // namespace fp::test
