#include "tools/framepipe/cli_docs/man_page.hpp"

#include <fmt/format.h>

#include "tools/framepipe/cli_docs/cli_tables.hpp"

namespace fp::cli {

namespace {

// Text as roff shows it: a backslash is \e, a '-' is \- (a minus, so that a search for
// "--input" finds it and it is never hyphenated), and a line never begins with '.' or '\''
// (a request): \& before it.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

// "-i, --input TEXT" in bold names and an italic value.
std::string option_heading(const CLI::Option& option) {
  if (!option.nonpositional()) return fmt::format("\\fI{}\\fR", roff(option.get_name(true, false)));
  std::string heading;
  for (const auto& name : option_names(option)) heading += (heading.empty() ? "" : ", ") + fmt::format("\\fB{}\\fR", roff(name));
  if (takes_value(option)) heading += fmt::format(" \\fI{}\\fR", roff(value_name(option)));
  return heading;
}

std::string option_text(const CLI::Option& option) {
  std::string text = option.get_description();
  const std::string fallback = option.get_default_str();
  if (!fallback.empty()) text += fmt::format(" (default: {})", fallback);
  if (option.get_required()) text += " (required)";
  return roff(text);
}

// "framepipe run [OPTIONS] FILE": what --help's usage line says.
std::string usage(const CLI::App& command, const std::string& program) {
  std::string line = fmt::format("\\fB{}\\fR", roff(program));
  bool has_options = false;
  for (const CLI::Option* option : visible_options(command)) {
    if (option->nonpositional()) {
      has_options = true;
      continue;
    }
    const std::string name = fmt::format("\\fI{}\\fR", roff(option->get_name(true, false)));
    const bool many = option->get_items_expected_max() > 1;
    line += option->get_required() ? fmt::format(" {}{}", name, many ? "..." : "")
                                   : fmt::format(" [{}{}]", name, many ? "..." : "");
  }
  if (has_options) line.insert(line.find("\\fR") + 3, " [\\fIOPTIONS\\fR]");
  return line;
}

std::string options_list(const CLI::App& command) {
  std::string list;
  for (const CLI::Option* option : visible_options(command))
    list += fmt::format(".TP\n{}\n{}\n", option_heading(*option), option_text(*option));
  return list;
}

}  // namespace

std::string man_page(const CLI::App& app, const std::string& version) {
  const std::string name = app.get_name();
  std::string description = app.get_description();
  if (const auto colon = description.find(": "); colon != std::string::npos) description.erase(0, colon + 2);
  std::string page = fmt::format(
      ".TH FRAMEPIPE 1 \"\" \"{} {}\" \"User Commands\"\n"
      ".SH NAME\n{} \\- {}\n"
      ".SH SYNOPSIS\n",
      name, roff(version), name, roff(description));
  for (const CLI::App* sub : visible_subcommands(app))
    page += fmt::format("{}\n.br\n", usage(*sub, name + " " + sub->get_name()));
  page += fmt::format("\\fB{}\\fR \\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR\n", name);
  page += fmt::format(
      ".SH DESCRIPTION\n"
      "\\fB{0}\\fR runs a pipeline written in YAML (an input, stages, outputs) on a video file, an RTSP stream, "
      "a camera or a test pattern, on an NVIDIA GPU or the CPU. \\fB{0} run\\fR runs one file on one input or "
      "several; \\fB{0} serve\\fR runs streams that an HTTP API, a stream list or a state file adds and removes. "
      "Every command takes \\fB\\-\\-help\\fR.\n"
      ".SH OPTIONS\n{1}",
      name, options_list(app));
  page += ".SH COMMANDS\n";
  for (const CLI::App* sub : visible_subcommands(app)) {
    page += fmt::format(".SS {} {}\n{}\n.PP\n{}\n", name, sub->get_name(), roff(sub->get_description()),
                        usage(*sub, name + " " + sub->get_name()));
    page += options_list(*sub);
  }
  return page;
}

}  // namespace fp::cli
