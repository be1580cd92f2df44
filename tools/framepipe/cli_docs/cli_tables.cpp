#include "tools/framepipe/cli_docs/cli_tables.hpp"

namespace fp::cli {

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); });
}

std::vector<const CLI::Option*> visible_options(const CLI::App& command) {
  std::vector<const CLI::Option*> named;
  std::vector<const CLI::Option*> positionals;
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_group().empty()) continue;
    (option->nonpositional() ? named : positionals).push_back(option);
  }
  named.insert(named.end(), positionals.begin(), positionals.end());
  return named;
}

std::vector<std::string> option_names(const CLI::Option& option) {
  if (!option.nonpositional()) return {option.get_name(true, false)};
  std::vector<std::string> names;
  for (const auto& s : option.get_snames()) names.push_back("-" + s);
  for (const auto& l : option.get_lnames()) names.push_back("--" + l);
  return names;
}

bool takes_value(const CLI::Option& option) { return option.get_expected_max() > 0; }

std::string value_name(const CLI::Option& option) {
  std::string name = option.get_type_name();
  if (const auto choices = name.find(":{"); choices != std::string::npos) name.erase(choices);
  return name;
}

namespace {
std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string::size_type begin = 0;
  for (auto end = text.find(separator); ; end = text.find(separator, begin)) {
    parts.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return parts;
}

bool is_word(const std::string& text) {
  if (text.empty()) return false;
  for (const char c : text)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == ':')) return false;
  return true;
}
}  // namespace

std::vector<std::string> value_choices(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  std::vector<std::string> words;
  if (const auto open = type.find(":{"); open != std::string::npos && type.back() == '}') {
    words = split(type.substr(open + 2, type.size() - open - 3), ',');
  } else if (type.find('|') != std::string::npos) {
    words = split(type, '|');
  }
  std::erase_if(words, [](const std::string& word) { return !is_word(word); });
  return words;
}

}  // namespace fp::cli
