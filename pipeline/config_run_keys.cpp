#include "pipeline/config_run_keys.hpp"

#include "pipeline/config_yaml.hpp"

namespace fp {

bool check_realtime(const RawValue& value, std::vector<ConfigIssue>& issues) {
  const auto text = scalar_text(value.node);
  if (text == "true") return true;
  if (text == "false") return false;
  issues.push_back(value.origin.issue("must be true or false (got " + describe_node(value.node) + ")"));
  return false;
}

DropPolicy check_drop(const RawValue& value, std::vector<ConfigIssue>& issues) {
  const auto text = scalar_text(value.node);
  if (text)
    if (const auto policy = parse_drop_policy(*text)) return *policy;
  issues.push_back(value.origin.issue("must be auto, oldest, newest or never (got " + describe_node(value.node) + ")"));
  return DropPolicy::Auto;
}

}  // namespace fp
