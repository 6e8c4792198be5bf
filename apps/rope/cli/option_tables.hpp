/// @file
/// The option tables of docs/cli.md, generated from the commands' CLI11 definitions themselves (names,
/// type names, defaults, help texts, required, repeatable, needs and excludes), so they cannot drift
/// from `--help`. The Markdown marks each generated block with HTML comments:
///
///     <!-- rope_docgen: options of rope NAME -->   one command's options
///     <!-- rope_docgen: group NAME -->             an option group many commands share (Scaling, Figure, …)
///     …generated table…
///     <!-- rope_docgen: end -->
///
/// A command's table lists its own options in full, and each shared group that has a block of its own as
/// one row naming every option of the group with a link to the group's table (the section the group's
/// block sits in). The group's table has each option with the row most commands give it, when at least
/// two do; an option whose row is its command's alone (its own help text or default) gets its full row
/// in the command's table. tests/docs/rope_docgen.cpp
/// drives this; `make docs` rewrites docs/cli.md and the CTest test docs.option_tables compares.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace rope::cli {

/// One option as a table row shows it.
struct OptionRow {
  std::string group;               ///< CLI11 group ("Options", "Scaling", "Figure", …)
  std::string names;               ///< "`-d`, `--dim INT`"; a repeatable option ends in " …"
  std::string fallback;            ///< "required", the default as --help shows it, or empty
  std::string meaning;             ///< the help text (by the --help formatter), then "Needs: …", "Excludes: …"
  std::vector<std::string> flags;  ///< every name as typed, "-d", "--dim"; a positional's type name (coverage check)
};

/// The rows of `command`'s options in the order of its --help (help flag left out), each text through
/// the command's --help formatter (help_formatter.hpp).
std::vector<OptionRow> option_rows(const CLI::App& command);

/// The Markdown table `| option | default | meaning |` of `rows`.
std::string option_table(const std::vector<OptionRow>& rows);

/// GitHub's anchor of a Markdown heading's text: "Context extension: `--scaling`" →
/// "context-extension---scaling".
std::string heading_anchor(const std::string& heading);

/// `markdown` with every generated block rewritten from `commands` (rope's subcommands).
/// @throws InvalidArgument a block names an unknown command or group, a block has no end, or a command
///   has no block (so every option of every command is in the page).
std::string update_option_tables(const std::string& markdown, const std::vector<const CLI::App*>& commands);

/// One line per option of every command: "rope NAME<TAB>--flag -f<TAB>GROUP", for the check that each
/// one appears in the page (tests/docs/check_option_tables.py).
std::string option_list(const std::vector<const CLI::App*>& commands);

}  // namespace rope::cli
