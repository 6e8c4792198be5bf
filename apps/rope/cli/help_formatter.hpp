/// @file
/// How `--help` looks. CLI11's default formatter writes `NUM=0 REQUIRED` for a required option (a
/// default that is never used) and `NUM=5 12 ...` for a repeatable one (which reads as "NUM is 5, then
/// 12 and more"). HelpFormatter writes `NUM REQUIRED` and `NUM ... (default: 5 12)` instead; everything
/// else is CLI11's, but descriptions are broken at the help's width (help_pages.hpp help_width) and a
/// command's --help lists the options shared by many commands in one line per group (--help-all: all). In Chinese
/// (Lang::Zh) every text it shows goes through the catalog of help_zh.hpp: descriptions of commands and options, group
/// names, the prose of footers, CLI11's headings ("Usage", "OPTIONS", "REQUIRED", …); option names, type names (INT,
/// NUM, FILE), defaults and the example command lines stay as typed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rope/cli/lang.hpp"

namespace CLI {
class App;
class Formatter;
class Option;
}  // namespace CLI

namespace rope::cli {

/// The formatter `rope` and every command use (set on the top-level app before the commands are added,
/// so they inherit it), in English or Chinese.
std::shared_ptr<CLI::Formatter> make_help_formatter(Lang lang = Lang::En);

/// "-d,--dim INT=128": an option's name and value as --help shows them, in `lang`.
std::string option_label(const CLI::Option& option, Lang lang);

/// A help text (a description of a command or option) in `lang`: its Chinese from the catalog, or itself.
std::string option_text_in(const std::string& english, Lang lang);

/// Every text the Chinese help of `app` and its commands would show in English because the catalog
/// has no Chinese for it (each once, in order of appearance): what tests/cli/test_help_zh.cpp lists.
std::vector<std::string> help_texts_without_chinese(const CLI::App& app);

}  // namespace rope::cli
