#include "pipeline/config/params.hpp"

#include <fmt/format.h>

#include <optional>

#include "pipeline/config/param_value.hpp"
#include "pipeline/config/yaml.hpp"

namespace fp {

namespace {

// Points at one element of a list: its own position in a file, the same command-line
// option otherwise (a --set value's positions are within the option, not the file).
Origin element_origin(const RawValue& value, std::size_t k) {
  const std::string key = value.origin.key + "[" + std::to_string(k) + "]";
  if (value.origin.file == kCommandLine) return value.origin.with_key(key);
  return origin_of(value.node[k], value.origin, key);
}

// Where an issue about parameter `name` goes: where it was given, or the stage when it
// was defaulted.
Origin param_origin(const RawStage& stage, const std::string& name) {
  if (const auto it = stage.params.find(name); it != stage.params.end()) return it->second.origin;
  return stage.origin.with_key(join_key(stage.origin.key, name));
}

// The CUDA kernel's limit, when the value is above it: the message says what to do.
std::optional<std::string> cuda_limit_problem(const ParamSpec& spec, const ParamValue& value) {
  const auto* given = std::get_if<std::int64_t>(&value);
  if (!spec.cuda_max || !given || *given <= *spec.cuda_max) return std::nullopt;
  return fmt::format("must be <= {} on a CUDA device (got {}), the largest the CUDA kernel takes; lower it or use "
                     "--device cpu{}",
                     *spec.cuda_max, *given, spec.range.max ? fmt::format(" (up to {})", *spec.range.max) : "");
}

}  // namespace

StageParams check_stage_params(const RawStage& stage, DeviceKind backend, std::vector<ConfigIssue>& issues) {
  StageParams params;
  if (!stage.spec) return params;
  bool complete = true;
  for (const auto& spec : stage.spec->params) {
    const auto given = stage.params.find(spec.name);
    if (given == stage.params.end()) {
      if (spec.default_value) {
        params.set(spec.name, *spec.default_value);
      } else {
        issues.push_back(stage.origin.issue("missing required parameter '" + spec.name + "'"));
        complete = false;
      }
      continue;
    }
    auto converted = convert_param(spec, given->second.node);
    if (converted.value) {
      if (backend == DeviceKind::Cuda)
        if (auto problem = cuda_limit_problem(spec, *converted.value))
          issues.push_back(given->second.origin.issue(std::move(*problem)));
      params.set(spec.name, std::move(*converted.value));
    } else {
      const Origin at = converted.element ? element_origin(given->second, *converted.element) : given->second.origin;
      issues.push_back(at.issue(converted.error));
      complete = false;
    }
  }
  // The check reads every parameter, so it runs only when all of them are present.
  if (complete && stage.spec->check)
    for (const auto& problem : stage.spec->check(params))
      issues.push_back(param_origin(stage, problem.param).issue(problem.message));
  return params;
}

}  // namespace fp
