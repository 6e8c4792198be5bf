/// @file
/// The files one run of a command names (apps/rope/cli/cli.cpp runs this before the command): two outputs
/// on one path, two writers of standard output ('-', --term, --json), and an input named as an output (the
/// same file, links followed) are refused with exit 2, naming both options (docs/errors.md, "Outputs").
#pragma once

namespace CLI {
class App;
}  // namespace CLI

namespace rope::cli {

/// @throws InvalidArgument naming both options when two outputs of `command` name one file, two write to
///         standard output, or an output names a file the command reads.
void check_distinct_outputs(const CLI::App& command);

}  // namespace rope::cli
