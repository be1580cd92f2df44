#include "pipeline/config_device.hpp"

#include <algorithm>
#include <cctype>

#include "pipeline/config_yaml.hpp"

namespace fp {

bool is_valid_device(const std::string& device) {
  if (device == "auto" || device == "cpu" || device == "cuda") return true;
  const std::string prefix = "cuda:";
  if (device.rfind(prefix, 0) != 0) return false;
  const std::string ordinal = device.substr(prefix.size());
  // Nine digits at most, so that the ordinal always fits an int.
  return !ordinal.empty() && ordinal.size() <= 9 &&
         std::all_of(ordinal.begin(), ordinal.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::string check_device(const RawValue& value, std::vector<ConfigIssue>& issues) {
  const auto text = scalar_text(value.node);
  if (text && is_valid_device(*text)) return *text;
  issues.push_back(value.origin.issue("must be auto, cpu, cuda or cuda:N (got " + describe_node(value.node) + ")"));
  return "auto";
}

}  // namespace fp
