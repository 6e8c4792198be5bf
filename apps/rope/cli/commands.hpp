/// @file
/// The commands: one `add_<name>_command` per file, commands/cmd_<name>.cpp, and the table of them all. Each
/// registers its options (and help text) on a new subcommand of `app` and returns how to run it once parsing has
/// succeeded: the work happens after CLI11 has finished, never inside its callbacks. A new command is its file,
/// its declaration and its row here, its test file (tests/cli/test_cmd_<name>.cpp), its section of docs/cli.md and
/// the Chinese of its texts (po/zh_CN.po): the build finds both files by their names.
#pragma once

#include <functional>
#include <ostream>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace rope::cli {

struct Command {
  CLI::App* app;
  std::function<int(std::ostream& out)> run;
};

Command add_frequencies_command(CLI::App& app);
Command add_matrix_command(CLI::App& app);
Command add_apply_command(CLI::App& app);
Command add_verify_command(CLI::App& app);
Command add_decay_command(CLI::App& app);
Command add_wavelengths_command(CLI::App& app);
Command add_inspect_command(CLI::App& app);
Command add_attention_command(CLI::App& app);
Command add_encodings_command(CLI::App& app);
Command add_layouts_command(CLI::App& app);
Command add_explain_command(CLI::App& app);
Command add_precision_command(CLI::App& app);
Command add_bound_command(CLI::App& app);
Command add_extrapolation_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_permute_command(CLI::App& app);
Command add_weights_command(CLI::App& app);
Command add_check_command(CLI::App& app);
Command add_diff_command(CLI::App& app);
Command add_identify_command(CLI::App& app);
Command add_positions_command(CLI::App& app);
Command add_sections_command(CLI::App& app);
Command add_lesson_command(CLI::App& app);
Command add_spectrum_command(CLI::App& app);

/// Every command: its name, its alias, and the function that adds it, in the order of `rope --help`. The
/// names are those each add_*_command gives its subcommand (a unit test builds every command and compares).
struct CommandEntry {
  const char* name;
  const char* alias;  // "" when none
  Command (*add)(CLI::App&);
};
inline constexpr CommandEntry kCommands[] = {
    {"frequencies", "freqs", add_frequencies_command},
    {"matrix", "", add_matrix_command},
    {"apply", "", add_apply_command},
    {"verify", "", add_verify_command},
    {"decay", "", add_decay_command},
    {"wavelengths", "", add_wavelengths_command},
    {"inspect", "", add_inspect_command},
    {"attention", "", add_attention_command},
    {"encodings", "", add_encodings_command},
    {"layouts", "", add_layouts_command},
    {"explain", "", add_explain_command},
    {"precision", "", add_precision_command},
    {"bound", "", add_bound_command},
    {"extrapolation", "", add_extrapolation_command},
    {"bench", "", add_bench_command},
    {"permute", "", add_permute_command},
    {"weights", "", add_weights_command},
    {"check", "", add_check_command},
    {"diff", "", add_diff_command},
    {"identify", "", add_identify_command},
    {"spectrum", "", add_spectrum_command},
    {"positions", "", add_positions_command},
    {"sections", "", add_sections_command},
    {"lesson", "", add_lesson_command},
};

}  // namespace rope::cli
