#include "pipeline/config_reader.hpp"

#include "pipeline/config_param_group.hpp"
#include "pipeline/config_suggest.hpp"
#include "pipeline/config_yaml.hpp"
#include "stages/registry.hpp"

namespace fp {

namespace {

const std::vector<std::string> kTopLevelKeys = {"device", "input", "stages", "realtime", "drop"};

// A syntax error points where yaml-cpp gave up, which is what an editor should jump to.
ConfigIssue syntax_issue(const YAML::Exception& e, const std::string& file) {
  ConfigIssue issue{.file = file, .message = "invalid YAML: " + e.msg};
  if (e.mark.line >= 0) {
    issue.line = e.mark.line + 1;
    issue.column = e.mark.column + 1;
  }
  return issue;
}

void read_stages(const YAML::Node& list, RawPipeline& raw, std::vector<ConfigIssue>& issues) {
  const Origin& where = raw.stages_origin;
  if (!list.IsSequence()) {
    issues.push_back(where.issue("must be a list of stages (got " + describe_node(list) + ")"));
    return;
  }
  if (list.size() == 0) {
    issues.push_back(where.issue("must not be empty"));
    return;
  }
  raw.stages_usable = true;
  for (std::size_t i = 0; i < list.size(); ++i)
    if (auto stage = read_stage(list[i], i, raw.file, issues)) raw.stages.push_back(std::move(*stage));
}

}  // namespace

RawStage top_level_input_stage(const RawValue& input, const std::string& file, std::vector<ConfigIssue>& issues) {
  RawStage stage;
  stage.origin = input.origin;
  stage.id = "input";
  stage.id_given = true;
  stage.id_origin = input.origin;
  stage.type = "decode";
  stage.spec = find_stage(stage.type);
  if (!input.node.IsMap()) {
    stage.params.emplace("uri", input);
    return stage;
  }
  // `input: {uri: URI, on_error: stop, reconnect: {...}}`: the decode stage's parameters.
  const std::vector<std::string> names = param_keys(*stage.spec);
  const auto visit = [&](const std::string& name, const YAML::Node& key, const YAML::Node& value) {
    const Origin at_key = origin_of(key, file, join_key("input", name));
    if (!read_param_entry(*stage.spec, name, value, at_key, stage, issues))
      issues.push_back(at_key.issue("unknown parameter of decode" + suggestion_suffix(name, names)));
  };
  for_each_entry(input.node, file, "input", issues, visit);
  return stage;
}

std::optional<RawPipeline> read_pipeline_yaml(const std::string& text, const std::string& file,
                                              std::vector<ConfigIssue>& issues) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    issues.push_back(syntax_issue(e, file));
    return std::nullopt;
  }

  RawPipeline raw;
  raw.file = file;
  if (root.IsNull()) {
    issues.push_back({file, 1, 1, "", "the file is empty; a pipeline needs at least a `stages` list"});
    return raw;
  }
  if (!root.IsMap()) {
    issues.push_back(origin_of(root, file, "").issue(
        "the top level must be a map with `stages` (and optionally `device`, `input`), got " + describe_node(root)));
    return raw;
  }

  std::optional<YAML::Node> stages;
  std::optional<RawValue> input;
  bool stages_misspelt = false;  // then "did you mean 'stages'" says it all
  for_each_entry(root, file, "", issues, [&](const std::string& name, const YAML::Node& key, const YAML::Node& value) {
    const Origin at_value = origin_of(value, origin_of(key, file, name), name);
    if (name == "device") {
      raw.device = RawValue{value, at_value};
    } else if (name == "realtime") {
      raw.realtime = RawValue{value, at_value};
    } else if (name == "drop") {
      raw.drop = RawValue{value, at_value};
    } else if (name == "input") {
      input = RawValue{value, at_value};
    } else if (name == "stages") {
      stages = value;
      raw.stages_origin = at_value;
    } else {
      issues.push_back(origin_of(key, file, name).issue("unknown key" + suggestion_suffix(name, kTopLevelKeys)));
      stages_misspelt = stages_misspelt || closest_match(name, kTopLevelKeys) == "stages";
    }
  });

  // The implicit decode stage goes first even when `stages` is broken, so that stages
  // naming `input` are not reported as referring to an unknown id.
  if (input) {
    raw.has_top_level_input = true;
    raw.stages.push_back(top_level_input_stage(*input, file, issues));
  }
  if (stages) {
    read_stages(*stages, raw, issues);
  } else if (!stages_misspelt) {
    raw.stages_origin = origin_of(root, file, "stages");
    issues.push_back(raw.stages_origin.issue("missing: a pipeline needs a non-empty list of stages"));
  }
  for (auto& stage : raw.stages)
    for (auto& entry : stage.params) entry.second.node = written_null_as_text(entry.second.node, text);
  return raw;
}

}  // namespace fp
