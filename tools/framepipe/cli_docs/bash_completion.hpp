// `framepipe completion bash`: a bash completion script written from the command line's own
// tables (cli_tables.hpp), installed as share/bash-completion/completions/framepipe. It
// completes the subcommands, each one's options, the values an option is limited to, stage
// names (`framepipe stages`, bench --stage), pipeline files (*.yaml, *.yml) where a
// pipeline is asked for, and file names where a path is. It needs bash alone, not the
// bash-completion package.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace fp::cli {

std::string bash_completion(const CLI::App& app, const std::vector<std::string>& stage_names);

}  // namespace fp::cli
