#include "pipeline/definition/drop_policy.hpp"

namespace fp {

std::optional<DropPolicy> parse_drop_policy(std::string_view text) {
  if (text == "auto") return DropPolicy::Auto;
  if (text == "oldest") return DropPolicy::Oldest;
  if (text == "newest") return DropPolicy::Newest;
  if (text == "never") return DropPolicy::Never;
  return std::nullopt;
}

const char* drop_policy_name(DropPolicy policy) {
  switch (policy) {
    case DropPolicy::Auto: return "auto";
    case DropPolicy::Oldest: return "oldest";
    case DropPolicy::Newest: return "newest";
    case DropPolicy::Never: return "never";
  }
  return "auto";
}

DropPolicy resolve_drop_policy(DropPolicy policy, bool live) {
  if (policy != DropPolicy::Auto) return policy;
  return live ? DropPolicy::Oldest : DropPolicy::Never;
}

}  // namespace fp
