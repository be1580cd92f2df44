#include "pipeline/config/reader.hpp"

#include "pipeline/config/input_files.hpp"

#include "pipeline/config/param_group.hpp"
#include "pipeline/config/suggest.hpp"
#include "pipeline/config/yaml.hpp"
#include "stages/registry.hpp"

namespace fp {

namespace {

const std::vector<std::string> kTopLevelKeys = {"device", "input", "inputs", "stages", "realtime", "drop", "jobs"};

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

// `inputs: {glob: PATTERN, ...}` or `{list: FILE, ...}`: what the pattern matches or the
// file lists, or nothing when that cannot be had (the problem goes to `issues`).
std::vector<NamedInput> expand_input_files(const YAML::Node& node, const Origin& origin, std::vector<ConfigIssue>& issues) {
  if (node["glob"] && node["list"]) {
    issues.push_back(origin.issue("give `glob` (a file pattern) or `list` (a file of inputs), not both"));
    return {};
  }
  const std::string key = node["glob"] ? "glob" : "list";
  const YAML::Node source = node[key];
  const Origin at = origin_of(source, origin, "inputs." + key);
  if (!source.IsScalar() || source.Scalar().empty()) {
    issues.push_back(at.issue(std::string("must be ") +
                              (key == "glob" ? "a file pattern such as cams/*.mp4" : "the path of a file listing one input a line") +
                              " (got " + describe_node(source) + ")"));
    return {};
  }
  if (node["uri"]) {
    issues.push_back(at.issue("`" + key + "` names the inputs: no `uri` beside it"));
    return {};
  }
  return key == "glob" ? expand_input_glob(source.Scalar(), at, issues)
                       : read_input_list_file(source.Scalar(), at, issues);
}

// One stream per input expanded; the map's other keys are decode parameters for each.
void read_input_files(const RawValue& value, const std::string& file, RawPipeline& raw,
                      std::vector<ConfigIssue>& issues) {
  auto inputs = expand_input_files(value.node, value.origin, issues);
  // Nothing to expand (already reported): the stages are still checked against one input
  // rather than all reported as having none.
  if (inputs.empty()) inputs.push_back({"", "0"});
  YAML::Node parameters = YAML::Clone(value.node);
  for (const char* key : {"glob", "list", "uri"}) parameters.remove(key);
  const YAML::Node source = value.node["glob"] ? value.node["glob"] : value.node["list"];
  const Origin at = origin_of(source, value.origin, "inputs");
  for (const auto& input : inputs) {
    YAML::Node item = YAML::Clone(parameters);
    item["uri"] = input.uri;
    RawStream stream{.name = input.name, .name_origin = at};
    stream.input = top_level_input_stage(RawValue{item, at}, file, issues, "inputs");
    raw.streams.push_back(std::move(stream));
  }
}

// `inputs:`: each item is what `input:` takes (a URI, or a map of the decode stage's
// parameters), and a map may also give the stream's `name`; or a map with `glob` or `list`.
void read_input_list(const RawValue& list, const std::string& file, RawPipeline& raw, std::vector<ConfigIssue>& issues) {
  raw.streams_origin = list.origin;
  if (list.node.IsMap() && (list.node["glob"] || list.node["list"])) {
    read_input_files(list, file, raw, issues);
    return;
  }
  const bool is_list = list.node.IsSequence() && list.node.size() > 0;
  if (!is_list)
    issues.push_back(list.origin.issue("must be a non-empty list of inputs: URIs, or maps such as {uri: URI, name: NAME} "
                                       "(got " + describe_node(list.node) + ")"));
  // A single input given without the list is read as that one input, so that the stages
  // using it are checked too rather than reported as having no input.
  if (!is_list && (list.node.IsSequence() || list.node.IsNull())) return;
  const std::size_t count = is_list ? list.node.size() : 1;
  for (std::size_t i = 0; i < count; ++i) {
    const YAML::Node item = is_list ? list.node[i] : list.node;
    const std::string key = is_list ? "inputs[" + std::to_string(i) + "]" : "inputs";
    const Origin at_item = origin_of(item, list.origin, key);
    RawStream stream;
    stream.name = std::to_string(i);
    stream.name_origin = at_item;
    YAML::Node parameters = item;
    if (item.IsMap() && item["name"]) {
      const YAML::Node name = item["name"];
      stream.name_origin = origin_of(name, at_item, at_item.key + ".name");
      if (!name.IsScalar() || name.Scalar().empty())
        issues.push_back(stream.name_origin.issue("must be a word (got " + describe_node(name) + ")"));
      else
        stream.name = name.Scalar();
      parameters = YAML::Clone(item);
      parameters.remove("name");
    }
    stream.input = top_level_input_stage(RawValue{parameters, at_item}, file, issues, key);
    raw.streams.push_back(std::move(stream));
  }
}

}  // namespace

RawStage top_level_input_stage(const RawValue& input, const std::string& file, std::vector<ConfigIssue>& issues,
                               const std::string& key) {
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
  const auto visit = [&](const std::string& name, const YAML::Node& key_node, const YAML::Node& value) {
    const Origin at_key = origin_of(key_node, file, join_key(key, name));
    if (!read_param_entry(*stage.spec, name, value, at_key, stage, issues))
      issues.push_back(at_key.issue("unknown parameter of decode" + suggestion_suffix(name, names)));
  };
  for_each_entry(input.node, file, key, issues, visit);
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
  std::optional<RawValue> inputs;
  bool stages_misspelt = false;  // then "did you mean 'stages'" says it all
  for_each_entry(root, file, "", issues, [&](const std::string& name, const YAML::Node& key, const YAML::Node& value) {
    const Origin at_value = origin_of(value, origin_of(key, file, name), name);
    if (name == "device") {
      raw.device = RawValue{value, at_value};
    } else if (name == "realtime") {
      raw.realtime = RawValue{value, at_value};
    } else if (name == "drop") {
      raw.drop = RawValue{value, at_value};
    } else if (name == "jobs") {
      raw.jobs = RawValue{value, at_value};
    } else if (name == "input") {
      input = RawValue{value, at_value};
    } else if (name == "inputs") {
      inputs = RawValue{value, at_value};
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
  if (input && inputs) {
    issues.push_back(inputs->origin.issue("give either `input` (one input) or `inputs` (a list, one stream each), not both"));
  } else if (inputs) {
    read_input_list(*inputs, file, raw, issues);
    if (!raw.streams.empty()) {
      raw.has_top_level_input = true;
      raw.stages.push_back(raw.streams.front().input);  // the graph's `input`: the first stream's
    }
  }
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
  for (auto& stream : raw.streams)
    for (auto& entry : stream.input.params) entry.second.node = written_null_as_text(entry.second.node, text);
  return raw;
}

}  // namespace fp
