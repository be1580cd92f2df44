// Reads a pipeline YAML file, applies command-line overrides, and validates everything
// before any work is done. Throws ConfigError with every issue found.
//
// File format (docs/pipeline-format.md):
//   device: auto | cpu | cuda | cuda:N      (optional, default auto)
//   realtime: true | false                  (optional, default false: pace files and testsrc)
//   drop: auto | oldest | newest | never    (optional, default auto: oldest for live inputs)
//   input:  URI                             (shorthand for a first stage {id: input, type: decode, uri: URI})
//   inputs: [URI, {uri: URI, name: NAME}]   (instead of input: the graph runs once per stream;
//                                            outputs then need {stream} in their paths)
//   stages:                                 (a non-empty sequence)
//     - id: ID          (optional; default: the type, which must then be unique)
//       type: TYPE      (required; see `framepipe stages`)
//       input: ID       (or inputs: [ID, ID]; default: the nearest earlier stage that has an output)
//       PARAM: VALUE    (the type's parameters)
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/config/command_line.hpp"
#include "pipeline/definition/config_error.hpp"
#include "pipeline/definition/pipeline_definition.hpp"

namespace fp {

// What `auto` resolves to on this machine: asked only for a pipeline whose device is auto,
// since asking (resolve_device("auto")) starts the CUDA driver, 0.1 to 0.2 s that a run on
// the CPU or a named GPU need not pay. A DeviceKind stands for itself.
class AutoBackend {
 public:
  AutoBackend(DeviceKind kind = DeviceKind::Cpu) : resolve_([kind] { return kind; }) {}  // NOLINT: implicit
  explicit AutoBackend(std::function<DeviceKind()> resolve) : resolve_(std::move(resolve)) {}
  DeviceKind operator()() const { return resolve_(); }

 private:
  std::function<DeviceKind()> resolve_;
};

// The backend's parameter limits (a stage table's cuda_max) apply when the device, after
// --device, is cuda or cuda:N — whether or not this build or machine has one — or when it
// is auto and `auto_backend` is CUDA. They need no GPU: they are constants of the
// parameter tables.
PipelineDefinition load_pipeline(const std::filesystem::path& file, const ConfigOverrides& overrides = {},
                                 const AutoBackend& auto_backend = {});

// Same, from YAML text; `file` is only used in messages.
PipelineDefinition parse_pipeline(const std::string& yaml_text, const std::string& file,
                                  const ConfigOverrides& overrides = {}, const AutoBackend& auto_backend = {});

}  // namespace fp
