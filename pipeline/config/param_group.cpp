#include "pipeline/config/param_group.hpp"

#include <algorithm>

#include "pipeline/config/suggest.hpp"
#include "pipeline/config/yaml.hpp"

namespace fp {

namespace {

// "reconnect" for "reconnect.attempts"; "" for a plain name.
std::string group_of(const std::string& param) {
  const auto dot = param.find('.');
  return dot == std::string::npos ? std::string() : param.substr(0, dot);
}

std::vector<std::string> members(const StageSpec& spec, const std::string& group) {
  std::vector<std::string> names;
  for (const auto& p : spec.params)
    if (group_of(p.name) == group) names.push_back(p.name.substr(group.size() + 1));
  return names;
}

}  // namespace

std::vector<std::string> param_keys(const StageSpec& spec) {
  std::vector<std::string> keys;
  for (const auto& p : spec.params) {
    const std::string group = group_of(p.name);
    const std::string key = group.empty() ? p.name : group;
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  return keys;
}

bool read_param_entry(const StageSpec& spec, const std::string& name, const YAML::Node& value, const Origin& at_key,
                      RawStage& stage, std::vector<ConfigIssue>& issues) {
  if (spec.find_param(name)) {
    stage.params.emplace(name, RawValue{value, origin_of(value, at_key, at_key.key)});
    return true;
  }
  const auto names = members(spec, name);
  if (name.empty() || names.empty()) return false;
  if (!value.IsMap()) {
    issues.push_back(origin_of(value, at_key, at_key.key)
                         .issue("must be a map like {" + names.front() + ": ...} (got " + describe_node(value) + ")"));
    return true;
  }
  const auto visit = [&](const std::string& member, const YAML::Node& key, const YAML::Node& member_value) {
    const Origin at_member = origin_of(key, at_key.file, join_key(at_key.key, member));
    const std::string full = name + "." + member;
    if (spec.find_param(full))
      stage.params.emplace(full, RawValue{member_value, origin_of(member_value, at_member, at_member.key)});
    else
      issues.push_back(at_member.issue("unknown parameter of " + spec.type + "'s " + name +
                                       suggestion_suffix(member, names)));
  };
  for_each_entry(value, at_key.file, at_key.key, issues, visit);
  return true;
}

}  // namespace fp
