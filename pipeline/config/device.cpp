#include "pipeline/config/device.hpp"

#include "pipeline/config/yaml.hpp"
#include "pipeline/definition/device_names.hpp"

namespace fp {

std::string check_device(const RawValue& value, std::vector<ConfigIssue>& issues) {
  const auto text = scalar_text(value.node);
  if (text && is_valid_device(*text)) return *text;
  issues.push_back(value.origin.issue("must be auto, cpu, cuda, cuda:N, a list cuda:N,M or cuda:all (got " +
                                      describe_node(value.node) + ")"));
  return "auto";
}

}  // namespace fp
