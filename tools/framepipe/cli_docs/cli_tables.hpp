// The command line as its own tables hold it (CLI11's App): the subcommands and options a
// user sees, for what is generated from them (bash_completion.hpp, man_page.hpp) so that
// neither can drift from what the program accepts.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace fp::cli {

// Subcommands listed in --help (hidden ones, in group "", are left out), in their order.
std::vector<const CLI::App*> visible_subcommands(const CLI::App& app);

// A command's options as --help lists them: named ones first (help included), then the
// positionals; hidden ones (group "") left out.
std::vector<const CLI::Option*> visible_options(const CLI::App& command);

// An option's names, e.g. {"-i", "--input"}; a positional's is its name, e.g. {"FILE"}.
std::vector<std::string> option_names(const CLI::Option& option);

// Whether the option takes a value (a flag takes none).
bool takes_value(const CLI::Option& option);

// The value's name, e.g. "auto|oldest|newest|never", "ID.PARAM=VALUE", "TEXT" (CLI11's own,
// without the ":{...}" that a set of choices adds).
std::string value_name(const CLI::Option& option);

// The values an option is limited to, where its value name lists them: the choices of a
// CLI::IsMember check ("TEXT:{auto,ncu,estimate}") or the lower-case words of one written
// as "auto|oldest|newest|never" ("cuda:N" and "I/N" name no word and are left out).
std::vector<std::string> value_choices(const CLI::Option& option);

}  // namespace fp::cli
