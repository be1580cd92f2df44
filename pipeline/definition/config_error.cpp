#include "pipeline/definition/config_error.hpp"

#include "core/printable_text.hpp"
#include "media/stream_uri.hpp"

namespace fp {

namespace {

// what() lists every issue, one a line, so that a caller that only prints the exception
// still shows the user everything that is wrong.
std::string join_issues(const std::vector<ConfigIssue>& issues) {
  std::string text;
  for (const auto& issue : issues) {
    if (!text.empty()) text += '\n';
    text += issue.format();
  }
  return text;
}

}  // namespace

std::string ConfigIssue::format() const {
  // Appends part by part: each part is separated from what precedes it, if anything does.
  std::string out;
  append_printable(out, file);
  const auto append = [&out](const char* separator, const std::string& part) {
    if (!out.empty()) out.append(separator);
    append_printable(out, part);
  };
  if (line > 0) {
    append(":", std::to_string(line));
    if (column > 0) append(":", std::to_string(column));
  }
  if (!key.empty()) append(": ", key);
  append(": ", message);
  // A quoted value (a --set, a line of an input list, an output) may be a URI with a
  // password or a passphrase in it: printed masked.
  return mask_uris_in_text(out);
}

ConfigError::ConfigError(std::vector<ConfigIssue> issues)
    : std::runtime_error(join_issues(issues)), issues_(std::move(issues)) {}

}  // namespace fp
