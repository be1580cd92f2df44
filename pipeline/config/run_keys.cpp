#include "pipeline/config/run_keys.hpp"

#include <fmt/format.h>

#include "pipeline/config/yaml.hpp"

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

int check_jobs(const RawValue& value, std::vector<ConfigIssue>& issues) {
  constexpr int kMaxJobs = 1024;  // a run takes at most 1024 inputs
  const auto text = scalar_text(value.node);
  if (text && !text->empty() && text->size() <= 4 && text->find_first_not_of("0123456789") == std::string::npos)
    if (const int jobs = std::stoi(*text); jobs <= kMaxJobs) return jobs;
  issues.push_back(value.origin.issue(fmt::format("must be a whole number 0..{} (0: as many streams at once as this "
                                                  "machine's memory holds; got {})",
                                                  kMaxJobs, describe_node(value.node))));
  return 0;
}

}  // namespace fp
