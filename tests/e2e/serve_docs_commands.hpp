// README's "Run as a service": its ```sh commands, and which of them
// tests/service/test_serve_docs.cpp runs (each `framepipe serve` and each curl to it). Both
// that test and tests/e2e/test_doc_commands.cpp ask here, so that test_doc_commands leaves to
// test_serve_docs exactly the commands it runs: a curl or a `framepipe serve` anywhere else
// in the docs (another section, another file, a ```bash fence) is one that neither would run,
// and test_doc_commands says so.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/e2e/doc_fences.hpp"

namespace fp::test {

// Every command of the ```sh fences from README's "## Run as a service" to its next "## "
// heading, in order, each with its place ("README.md:LINE").
inline std::vector<DocCommand> service_section_commands() {
  const std::filesystem::path readme = std::filesystem::path(FRAMEPIPE_SOURCE_DIR) / "README.md";
  std::ifstream in(readme);
  int first = 0, last = 1 << 30, number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line == "## Run as a service")
      first = number;
    else if (first > 0 && number > first && line.rfind("## ", 0) == 0 && last == 1 << 30)
      last = number;
  }
  std::vector<DocCommand> commands;
  if (first == 0) return commands;  // no such section: the callers check that they found commands
  for (const auto& fence : read_fences(readme, "README.md").fences) {
    if (fence.language != "sh" || fence.lines.empty()) continue;
    if (fence.lines.front().number < first || fence.lines.front().number > last) continue;
    for (auto& command : shell_commands(fence)) commands.push_back(std::move(command));
  }
  return commands;
}

// Whether test_serve_docs runs `text` (one of service_section_commands()): a server it starts,
// or a curl it sends to that server.
inline bool serve_docs_runs(const std::string& text) {
  return text.find("framepipe serve ") != std::string::npos || text.rfind("curl ", 0) == 0;
}

// The commands that test_serve_docs runs, with their places.
inline std::vector<DocCommand> commands_run_by_serve_docs() {
  std::vector<DocCommand> run;
  for (auto& command : service_section_commands())
    if (serve_docs_runs(command.text)) run.push_back(std::move(command));
  return run;
}

}  // namespace fp::test
