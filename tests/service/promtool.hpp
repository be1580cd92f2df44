// Runs Debian's promtool (and other programs) from a test: the real checker, not a copy of
// its rules.
#pragma once

#include <filesystem>
#include <string>

namespace fp::test {

struct ProgramResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// `command` through the shell, killed after `seconds` (exit code 124).
ProgramResult run_shell(const std::string& command, int seconds);

// GET `url` with curl (bounded by `seconds`): the body, or curl's error with exit code != 0.
ProgramResult curl_get(const std::string& url, int seconds = 10);

// POST `url` a form of one field (curl --data-urlencode NAME=VALUE), as Prometheus' query
// API takes it: the body, or curl's error with exit code != 0.
ProgramResult curl_post_form(const std::string& url, const std::string& name, const std::string& value,
                             int seconds = 10);

// `promtool check metrics` on an exposition: exit code 0 and no output when it is clean.
ProgramResult promtool_check_metrics(const std::string& exposition, const std::filesystem::path& dir);

}  // namespace fp::test
