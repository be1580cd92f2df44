// Reading one element of `stages` (declared in config_reader.hpp).
#include <algorithm>

#include "pipeline/config/param_group.hpp"
#include "pipeline/config/reader.hpp"
#include "pipeline/config/suggest.hpp"
#include "pipeline/config/yaml.hpp"
#include "stages/registry.hpp"

namespace fp {

namespace {

// Keys every stage has besides its type's parameters.
const std::vector<std::string> kStageKeys = {"id", "type", "input", "inputs"};

struct Entry {
  std::string name;
  YAML::Node key;
  YAML::Node value;
  Origin at_key;    // for "unknown key" and as the fallback position of an empty value
  Origin at_value;  // for problems with the value
};

const Entry* find_entry(const std::vector<Entry>& entries, const std::string& name) {
  for (const auto& e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

std::vector<std::string> registered_types() {
  std::vector<std::string> types;
  for (const auto& spec : stage_registry()) types.push_back(spec.type);
  return types;
}

void read_type(const Entry* entry, RawStage& stage, std::vector<ConfigIssue>& issues) {
  if (!entry) {
    issues.push_back(stage.origin.issue("missing required key 'type'"));
    return;
  }
  const auto text = scalar_text(entry->value);
  if (!text) {
    issues.push_back(entry->at_value.issue("must be a stage type (got " + describe_node(entry->value) + ")"));
    return;
  }
  stage.type = *text;
  stage.spec = find_stage(*text);
  if (!stage.spec)
    issues.push_back(entry->at_value.issue("unknown stage type '" + *text + "'" +
                                           suggestion_suffix(*text, registered_types())));
}

void read_id(const Entry* entry, RawStage& stage, std::vector<ConfigIssue>& issues) {
  if (!entry) {
    stage.id = stage.type;  // may be empty when the type is missing too
    stage.id_origin = stage.origin;
    return;
  }
  stage.id_origin = entry->at_value;
  if (const auto text = scalar_text(entry->value)) {
    stage.id = *text;
    stage.id_given = true;
  } else {
    issues.push_back(entry->at_value.issue("must be a string (got " + describe_node(entry->value) + ")"));
  }
}

void read_inputs(const Entry* input, const Entry* inputs, RawStage& stage, std::vector<ConfigIssue>& issues) {
  if (!input && !inputs) return;
  stage.explicit_inputs = true;
  if (input && inputs) {
    issues.push_back(inputs->at_key.issue("use either `input` or `inputs`, not both"));
    stage.inputs_reported = true;
    return;
  }
  if (input) {
    stage.inputs_origin = input->at_value;
    if (const auto id = scalar_text(input->value)) {
      stage.inputs.push_back({*id, input->at_value});
    } else {
      issues.push_back(input->at_value.issue("must be a stage id (got " + describe_node(input->value) +
                                             "); use `inputs` for several"));
      stage.inputs_reported = true;
    }
    return;
  }
  stage.inputs_origin = inputs->at_value;
  if (!inputs->value.IsSequence()) {
    issues.push_back(inputs->at_value.issue("must be a list of stage ids, e.g. [a, b] (got " +
                                            describe_node(inputs->value) + ")"));
    stage.inputs_reported = true;
    return;
  }
  for (std::size_t k = 0; k < inputs->value.size(); ++k) {
    const YAML::Node element = inputs->value[k];
    const Origin at = origin_of(element, inputs->at_value, inputs->at_value.key + "[" + std::to_string(k) + "]");
    if (const auto id = scalar_text(element)) {
      stage.inputs.push_back({*id, at});
    } else {
      issues.push_back(at.issue("must be a stage id (got " + describe_node(element) + ")"));
      stage.inputs_reported = true;
    }
  }
}

// Parameter names are only known once the type is; with a missing or unknown type the
// other keys are left alone rather than reported as unknown one by one.
void read_params(const std::vector<Entry>& entries, RawStage& stage, std::vector<ConfigIssue>& issues) {
  if (!stage.spec) return;
  const std::vector<std::string> params = param_keys(*stage.spec);
  for (const auto& e : entries) {
    if (std::find(kStageKeys.begin(), kStageKeys.end(), e.name) != kStageKeys.end()) continue;
    if (read_param_entry(*stage.spec, e.name, e.value, e.at_key, stage, issues)) continue;
    // A typo of `inputs` is as likely as one of a parameter, but listing the four common
    // keys after every unknown parameter would bury the parameters.
    std::vector<std::string> all = params;
    all.insert(all.end(), kStageKeys.begin(), kStageKeys.end());
    std::string message = "unknown parameter of " + stage.type;
    if (const auto match = closest_match(e.name, all); !match.empty())
      message += "; did you mean '" + match + "'?";
    else
      message += params.empty() ? " (it has no parameters)" : suggestion_suffix(e.name, params);
    issues.push_back(e.at_key.issue(message));
  }
}

}  // namespace

std::optional<RawStage> read_stage(const YAML::Node& node, std::size_t index, const std::string& file,
                                   std::vector<ConfigIssue>& issues) {
  const std::string prefix = "stages[" + std::to_string(index) + "]";
  RawStage stage;
  stage.origin = origin_of(node, file, prefix);
  if (!node.IsMap()) {
    issues.push_back(stage.origin.issue("must be a map like {type: TYPE, ...} (got " + describe_node(node) + ")"));
    return std::nullopt;
  }

  std::vector<Entry> entries;
  for_each_entry(node, file, prefix, issues, [&](const std::string& name, const YAML::Node& key, const YAML::Node& value) {
    const Origin at_key = origin_of(key, file, join_key(prefix, name));
    entries.push_back({name, key, value, at_key, origin_of(value, at_key, at_key.key)});
  });

  // The type first: it decides the default id and which parameters exist.
  read_type(find_entry(entries, "type"), stage, issues);
  read_id(find_entry(entries, "id"), stage, issues);
  read_inputs(find_entry(entries, "input"), find_entry(entries, "inputs"), stage, issues);
  read_params(entries, stage, issues);
  return stage;
}

}  // namespace fp
