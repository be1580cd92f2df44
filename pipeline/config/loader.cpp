#include "pipeline/config/loader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "pipeline/config/device.hpp"
#include "pipeline/config/file_uses.hpp"
#include "pipeline/config/links.hpp"
#include "pipeline/config/overrides.hpp"
#include "pipeline/config/params.hpp"
#include "pipeline/config/reader.hpp"
#include "pipeline/config/run_keys.hpp"
#include "pipeline/config/streams.hpp"

namespace fp {

namespace {

// Issues are found check by check; the user reads them best in file order, with the
// command-line ones (no position) after them in the order of the options.
void sort_issues(std::vector<ConfigIssue>& issues) {
  std::stable_sort(issues.begin(), issues.end(), [](const ConfigIssue& a, const ConfigIssue& b) {
    const bool a_cli = a.file == kCommandLine;
    const bool b_cli = b.file == kCommandLine;
    if (a_cli != b_cli) return b_cli;
    if (a.line != b.line) return a.line < b.line;
    return a.column < b.column;
  });
}

[[noreturn]] void fail(std::vector<ConfigIssue> issues) {
  sort_issues(issues);
  throw ConfigError(std::move(issues));
}

std::string read_text(const std::filesystem::path& file) {
  const auto fail_read = [&](const std::string& reason) {
    fail({ConfigIssue{.file = file.string(), .message = "cannot read: " + reason}});
  };
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) fail_read(std::strerror(EISDIR));
  std::ifstream in(file, std::ios::binary);
  if (!in) fail_read(std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail_read(std::strerror(errno));
  return text.str();
}

// The backend whose limits the parameters must meet; the CPU's for a device that is not
// valid (already reported).
DeviceKind backend_of(const std::string& device, const AutoBackend& auto_backend) {
  if (device == "auto") return auto_backend();
  return device.rfind("cuda", 0) == 0 ? DeviceKind::Cuda : DeviceKind::Cpu;
}

}  // namespace

PipelineDefinition load_pipeline(const std::filesystem::path& file, const ConfigOverrides& overrides,
                                 const AutoBackend& auto_backend) {
  return parse_pipeline(read_text(file), file.string(), overrides, auto_backend);
}

PipelineDefinition parse_pipeline(const std::string& yaml_text, const std::string& file,
                                  const ConfigOverrides& overrides, const AutoBackend& auto_backend) {
  std::vector<ConfigIssue> issues;
  auto raw = read_pipeline_yaml(yaml_text, file, issues);
  if (!raw) fail(std::move(issues));  // not YAML: nothing else can be checked
  apply_overrides(*raw, overrides, issues);

  PipelineDefinition definition;
  definition.file = file;
  if (raw->device) definition.device = check_device(*raw->device, issues);
  if (raw->realtime) definition.realtime = check_realtime(*raw->realtime, issues);
  if (raw->drop) definition.drop = check_drop(*raw->drop, issues);
  if (raw->jobs) definition.jobs = check_jobs(*raw->jobs, issues);
  const DeviceKind backend = backend_of(definition.device, auto_backend);
  const auto inputs = link_stages(*raw, issues);
  for (std::size_t i = 0; i < raw->stages.size(); ++i) {
    const RawStage& stage = raw->stages[i];
    definition.stages.push_back(StageDefinition{.id = stage.id,
                                                .type = stage.type,
                                                .inputs = inputs[i],
                                                .params = check_stage_params(stage, backend, issues),
                                                .line = stage.origin.line,
                                                .column = stage.origin.column});
  }
  definition.streams = check_streams(*raw, definition.stages, backend, issues);
  if (!definition.streams.empty()) definition.stream_stage = definition.stages[raw->stream_stage].id;
  if (!issues.empty()) fail(std::move(issues));
  // Only a pipeline valid otherwise has paths worth comparing.
  definition.files = pipeline_file_uses(*raw, definition);
  check_file_clashes(definition.files, issues);
  if (!issues.empty()) fail(std::move(issues));
  return definition;
}

}  // namespace fp
