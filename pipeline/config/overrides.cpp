#include "pipeline/config/overrides.hpp"

#include "pipeline/config/input_files.hpp"
#include "pipeline/config/suggest.hpp"
#include "pipeline/config/yaml.hpp"

namespace fp {

namespace {

Origin option(std::string key) { return Origin{.file = kCommandLine, .key = std::move(key)}; }

RawStage* first_of_type(RawPipeline& raw, const std::string& type) {
  for (auto& stage : raw.stages)
    if (stage.type == type) return &stage;
  return nullptr;
}

// Sets parameter `param` of the first stage of `type`, e.g. -o sets the first encode's
// output. Without `stages` the file's own error explains it; no second complaint.
void override_first(RawPipeline& raw, const std::string& type, const std::string& param, const std::string& value,
                    const std::string& flag, std::vector<ConfigIssue>& issues) {
  if (RawStage* stage = first_of_type(raw, type)) {
    stage->params[param] = RawValue{YAML::Node(value), option(flag)};
  } else if (raw.stages_usable) {
    issues.push_back(option(flag).issue("the pipeline has no " + type + " stage"));
  }
}

void apply_set(RawPipeline& raw, const std::string& text, std::vector<ConfigIssue>& issues) {
  const auto equals = text.find('=');
  const std::string target = text.substr(0, equals);
  const auto dot = target.find('.');
  if (equals == std::string::npos || dot == std::string::npos || dot == 0 || dot + 1 == target.size()) {
    issues.push_back(option("--set").issue("must be ID.PARAM=VALUE (got '" + text + "')"));
    return;
  }
  const std::string id = target.substr(0, dot);
  const std::string param = target.substr(dot + 1);
  const Origin at = option("--set " + target);

  YAML::Node value;
  try {
    const std::string written = text.substr(equals + 1);
    value = written_null_as_text(YAML::Load(written), written);
  } catch (const YAML::Exception& e) {
    issues.push_back(at.issue("cannot read the value as YAML: " + e.msg));
    return;
  }

  RawStage* stage = nullptr;
  std::vector<std::string> ids;
  for (auto& s : raw.stages) {
    if (s.id == id && !stage) stage = &s;
    if (!s.id.empty()) ids.push_back(s.id);
  }
  if (!stage) {
    issues.push_back(at.issue("unknown stage id '" + id + "'" + suggestion_suffix(id, ids)));
    return;
  }
  if (!stage->spec) return;  // its unknown type is reported; its parameters are unknowable
  if (!stage->spec->find_param(param)) {
    std::vector<std::string> names;
    for (const auto& p : stage->spec->params) names.push_back(p.name);
    issues.push_back(at.issue("unknown parameter of " + stage->type + suggestion_suffix(param, names)));
    return;
  }
  // A path or text that starts with '{' (`--set out.output={stream}.mp4`) would read as a
  // YAML map, which such a parameter never is: it is taken as the text written.
  const ParamSpec* spec = stage->spec->find_param(param);
  if ((spec->type == ParamType::Path || spec->type == ParamType::String) && value.IsMap())
    value = YAML::Node(text.substr(equals + 1));
  stage->params[param] = RawValue{value, at};
}

// -i given more than once: one stream per URI, each a copy of the first decode stage with
// that URI (and the file's other decode parameters), replacing the file's `inputs`.
void override_streams(RawPipeline& raw, const std::vector<std::string>& uris, std::vector<ConfigIssue>& issues) {
  RawStage* first = first_of_type(raw, "decode");
  if (first == nullptr) {
    if (raw.stages_usable) issues.push_back(option("-i").issue("the pipeline has no decode stage"));
    return;
  }
  raw.stream_stage = static_cast<std::size_t>(first - raw.stages.data());
  raw.streams_origin = option("-i");
  raw.streams.clear();
  for (std::size_t i = 0; i < uris.size(); ++i) {
    RawStream stream{.name = std::to_string(i), .name_origin = option("-i"), .input = *first};
    stream.input.params["uri"] = RawValue{YAML::Node(uris[i]), option("-i")};
    raw.streams.push_back(std::move(stream));
  }
  *first = raw.streams.front().input;
}

// --set ID.PARAM on the decode stage that the streams replace sets it for every stream.
void apply_sets_to_streams(RawPipeline& raw) {
  if (raw.streams.empty() || raw.stream_stage >= raw.stages.size()) return;
  const RawStage& stage = raw.stages[raw.stream_stage];
  for (const auto& [param, value] : stage.params)
    if (value.origin.file == kCommandLine && value.origin.key.rfind("--set", 0) == 0)
      for (auto& stream : raw.streams) stream.input.params[param] = value;
  raw.streams.front().input = stage;
}

// --decoder sets `decode` on every decode stage, and on each stream's copy of one.
void override_decoders(RawPipeline& raw, const std::string& decoder, std::vector<ConfigIssue>& issues) {
  const RawValue value{YAML::Node(decoder), option("--decoder")};
  bool found = false;
  for (auto& stage : raw.stages)
    if (stage.type == "decode") {
      stage.params["decode"] = value;
      found = true;
    }
  for (auto& stream : raw.streams) stream.input.params["decode"] = value;
  if (!found && raw.stages_usable) issues.push_back(option("--decoder").issue("the pipeline has no decode stage"));
}

}  // namespace

void apply_overrides(RawPipeline& raw, const ConfigOverrides& overrides, std::vector<ConfigIssue>& issues) {
  if (overrides.inputs.size() == 1) {
    override_first(raw, "decode", "uri", overrides.inputs.front(), "-i", issues);
    // One -i for a file that lists several inputs: that one input alone, named as a list
    // names an unnamed line ({stream}, run --shard): after its file, else "0" — never
    // after the file's first input, which it replaced.
    if (!raw.streams.empty()) {
      raw.streams.resize(1);
      const std::string name = file_stream_name(overrides.inputs.front());
      raw.streams.front().name = name.empty() ? "0" : name;
      raw.streams.front().name_origin = option("-i");
    }
  } else if (overrides.inputs.size() > 1) {
    override_streams(raw, overrides.inputs, issues);
  }
  if (overrides.output) override_first(raw, "encode", "output", *overrides.output, "-o", issues);
  if (overrides.device) raw.device = RawValue{YAML::Node(*overrides.device), option("--device")};
  if (overrides.drop) raw.drop = RawValue{YAML::Node(*overrides.drop), option("--drop")};
  if (overrides.decoder) override_decoders(raw, *overrides.decoder, issues);
  for (const auto& set : overrides.sets) apply_set(raw, set, issues);
  apply_sets_to_streams(raw);
}

}  // namespace fp
