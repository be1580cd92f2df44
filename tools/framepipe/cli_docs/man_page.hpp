// The man page framepipe(1), in roff: NAME, SYNOPSIS, DESCRIPTION and every subcommand with
// its options, written from the command line's own tables (cli_tables.hpp) so that it says
// what --help says; the build appends the hand-written sections (docs/man/framepipe.1.in:
// the YAML format, exit status, files, environment). `framepipe man-page` (hidden) prints it.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace fp::cli {

std::string man_page(const CLI::App& app, const std::string& version);

}  // namespace fp::cli
