/// @file
/// The command line: builds the CLI11 application, registers one command per cmd_<name>.cpp, parses,
/// runs the chosen command and maps errors to exit codes (exit_codes.hpp). Diagnostics go to `err` as
/// one line prefixed "rope: "; data goes to `out`.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace rope::cli {

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

/// Same, with args[0] the program name; for tests.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// Every English text of `rope --help` and every command's --help that has no Chinese in the catalog
/// of help_zh.hpp (descriptions, group names, footer paragraphs, CLI11 headings): empty when
/// `--lang zh` help is Chinese throughout. tests/cli/test_help_zh.cpp prints the list.
std::vector<std::string> help_texts_without_chinese();

/// Builds `rope` with every command, its help in English, and gives the commands to `visit` in the order
/// of `rope --help`: what the docs generator (option_tables.hpp, tests/docs/rope_docgen.cpp) walks.
void visit_commands(const std::function<void(const std::vector<const CLI::App*>&)>& visit);

/// The table `rope COMMAND ...` is looked up in before anything is built: each command's name and its alias
/// ("" when none), in the order of `rope --help`. A run whose first word is one of them builds that command
/// alone; tests/cli/test_cli.cpp holds the table to what each command's add function registers.
std::vector<std::pair<std::string, std::string>> command_table();

}  // namespace rope::cli
