/// @file
/// How `--help` shows an option's value: CLI11's default formatter writes `NUM=0 REQUIRED` for a
/// required option (a default that is never used) and `NUM=5 12 ...` for a repeatable one (which
/// reads as "NUM is 5, then 12 and more"). HelpFormatter writes `NUM REQUIRED` and
/// `NUM ... (default: 5 12)` instead; everything else is CLI11's.
#pragma once

#include <memory>

namespace CLI {
class Formatter;
}  // namespace CLI

namespace rope::cli {

/// The formatter `rope` and every command use (set on the top-level app before the commands are added,
/// so they inherit it).
std::shared_ptr<CLI::Formatter> make_help_formatter();

}  // namespace rope::cli
