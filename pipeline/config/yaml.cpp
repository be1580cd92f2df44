#include "pipeline/config/yaml.hpp"

#include <map>

namespace fp {

Origin origin_of(const YAML::Node& node, const Origin& fallback, std::string key) {
  Origin origin = fallback;
  origin.key = std::move(key);
  const YAML::Mark mark = node.Mark();
  if (!node.IsNull() && mark.line >= 0) {
    origin.line = mark.line + 1;
    origin.column = mark.column + 1;
  }
  return origin;
}

Origin origin_of(const YAML::Node& node, const std::string& file, std::string key) {
  return origin_of(node, Origin{.file = file}, std::move(key));
}

std::string describe_node(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar: return "'" + node.Scalar() + "'";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: break;
  }
  return "nothing";
}

std::optional<std::string> scalar_text(const YAML::Node& node) {
  if (!node.IsScalar()) return std::nullopt;
  return node.Scalar();
}

void for_each_entry(const YAML::Node& map, const std::string& file, const std::string& prefix,
                    std::vector<ConfigIssue>& issues,
                    const std::function<void(const std::string&, const YAML::Node&, const YAML::Node&)>& visit) {
  std::map<std::string, int> first_line;
  for (const auto& entry : map) {
    const YAML::Node& key = entry.first;
    const auto name = scalar_text(key);
    if (!name) {
      issues.push_back(origin_of(key, file, prefix).issue("keys must be plain words (got " + describe_node(key) + ")"));
      continue;
    }
    const Origin where = origin_of(key, file, join_key(prefix, *name));
    // yaml-cpp keeps both entries of a repeated key; the second would silently lose.
    if (const auto it = first_line.find(*name); it != first_line.end()) {
      issues.push_back(where.issue("duplicate key (first at line " + std::to_string(it->second) + ")"));
      continue;
    }
    first_line.emplace(*name, where.line);
    visit(*name, key, entry.second);
  }
}

YAML::Node written_null_as_text(const YAML::Node& node, const std::string& source) {
  if (!node.IsNull() || node.Mark().pos < 0) return node;
  const auto begin = static_cast<std::size_t>(node.Mark().pos);
  if (begin >= source.size()) return node;
  const auto end = source.find_first_of(" \t\r\n,]}#", begin);
  const std::string token = source.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  if (token == "~" || token == "null" || token == "Null" || token == "NULL") return YAML::Node(token);
  return node;
}

std::string join_key(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

}  // namespace fp
