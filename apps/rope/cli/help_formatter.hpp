/// @file
/// How `--help` looks. CLI11's default formatter writes `NUM=0 REQUIRED` for a required option (a
/// default that is never used) and `NUM=5 12 ...` for a repeatable one (which reads as "NUM is 5, then
/// 12 and more"). HelpFormatter writes `NUM REQUIRED` and `NUM ... (default: 5 12)` instead; everything
/// else is CLI11's. In Chinese (Lang::Zh) every text it shows goes through the catalog of help_zh.hpp:
/// descriptions of commands and options, group names, the prose of footers, CLI11's headings ("Usage",
/// "OPTIONS", "REQUIRED", …); option names, type names (INT, NUM, FILE), defaults and the example
/// command lines stay as typed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rope/cli/lang.hpp"

namespace CLI {
class App;
class Formatter;
}  // namespace CLI

namespace rope::cli {

/// The formatter `rope` and every command use (set on the top-level app before the commands are added,
/// so they inherit it), in English or Chinese.
std::shared_ptr<CLI::Formatter> make_help_formatter(Lang lang = Lang::En);

/// Every text the Chinese help of `app` and its commands would show in English because the catalog
/// has no Chinese for it (each once, in order of appearance): what tests/cli/test_help_zh.cpp lists.
std::vector<std::string> help_texts_without_chinese(const CLI::App& app);

}  // namespace rope::cli
