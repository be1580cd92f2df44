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

// `command` through the shell (no single quotes in it), killed after `seconds` (exit code 124).
ProgramResult run_shell(const std::string& command, int seconds);

// `promtool check metrics` on an exposition: exit code 0 and no output when it is clean.
ProgramResult promtool_check_metrics(const std::string& exposition, const std::filesystem::path& dir);

}  // namespace fp::test
