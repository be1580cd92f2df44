#include "pipeline/stream_spec/json_spec_fields.hpp"

#include <stdexcept>
#include <string_view>

#include "core/printable_text.hpp"

namespace fp {

using nlohmann::json;

namespace {

// A word YAML reads back as the same string when written plain: it starts with a letter, '_'
// or '/', goes on with letters, digits and _./:-, does not end with ':' and is none of YAML's
// reserved words. A loop, not a regex: std::regex recurses once per character, and this text
// is the client's.
bool is_plain_yaml_word(std::string_view text) {
  const auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (text.empty() || !(letter(text[0]) || text[0] == '_' || text[0] == '/')) return false;
  for (const char c : text)
    if (!(letter(c) || digit(c) || c == '_' || c == '.' || c == '/' || c == ':' || c == '-')) return false;
  // A ':' at the end makes YAML read a map ("cuda:" is {cuda: null}); inside, as in cuda:0,
  // it is text. (Found by fuzz_stream_spec_json; the regex before this had the same hole.)
  if (text.back() == ':') return false;
  static constexpr std::string_view reserved[] = {"true", "false", "yes", "no", "on", "off", "null"};
  for (const auto word : reserved) {
    if (word.size() != text.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < word.size() && same; ++i)
      same = (text[i] | 0x20) == word[i];  // ASCII letters only here: | 0x20 lowers them
    if (same) return false;
  }
  return true;
}

FieldKind kind_of(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return FieldKind::Null;
    case json::value_t::string: return FieldKind::Text;
    case json::value_t::boolean: return FieldKind::Boolean;
    case json::value_t::array: return FieldKind::List;
    case json::value_t::object: return FieldKind::Map;
    default: return FieldKind::Number;  // integers, unsigned, floats (discarded never reaches here)
  }
}

}  // namespace

std::string yaml_text(const json& value) {
  // A plain word stays plain (max_energy, cuda:0); anything YAML could read otherwise is
  // quoted, and a JSON string is also a YAML double-quoted string.
  if (value.is_string() && is_plain_yaml_word(value.get_ref<const std::string&>())) return value.get<std::string>();
  // Numbers, booleans, arrays and objects: JSON is YAML's flow style.
  return value.dump();
}

std::vector<std::string> JsonSpecFields::keys() const {
  std::vector<std::string> keys;
  for (const auto& [key, value] : object_.items()) keys.push_back(key);
  return keys;
}

FieldKind JsonSpecFields::kind(const std::string& key) const {
  const auto found = object_.find(key);
  return found == object_.end() ? FieldKind::Absent : kind_of(*found);
}

std::string JsonSpecFields::text(const std::string& key) const { return object_.at(key).get<std::string>(); }

std::size_t JsonSpecFields::size(const std::string& key) const { return object_.at(key).size(); }

namespace {

// The first control character in a JSON value's strings, the strings of a list included.
std::optional<std::string> control_character_in(const nlohmann::json& value) {
  if (value.is_string()) return control_character_problem(value.get_ref<const std::string&>());
  if (value.is_array())
    for (const auto& element : value)
      if (element.is_string())
        if (auto problem = control_character_problem(element.get_ref<const std::string&>())) return problem;
  return std::nullopt;
}

}  // namespace

std::vector<FieldEntry> JsonSpecFields::entries(const std::string& key) const {
  std::vector<FieldEntry> entries;
  for (const auto& [name, value] : object_.at(key).items()) {
    FieldEntry entry{name, kind_of(value), "", std::nullopt};
    // The API's strings are values, decoded; the state file's are YAML text, which only
    // reading it as YAML decodes (the planner does).
    if (strings_ == Strings::AreValues) entry.control_character = control_character_in(value);
    if (entry.kind == FieldKind::Text && strings_ == Strings::AreYamlText) entry.yaml_text = value.get<std::string>();
    else if (entry.kind != FieldKind::Null && entry.kind != FieldKind::Map) entry.yaml_text = yaml_text(value);
    entries.push_back(std::move(entry));
  }
  return entries;
}

void JsonSpecFields::fail(const std::string& path, const std::string& what) const {
  fail_(path, what);
  throw std::logic_error("JsonSpecFields: its fail function returned");  // it must throw
}

}  // namespace fp
