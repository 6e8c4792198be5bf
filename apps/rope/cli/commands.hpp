/// @file
/// One `add_<name>_command` per subcommand file. Each registers its options (and help text) on a new
/// subcommand of `app` and returns how to run it once parsing has succeeded: the work happens after
/// CLI11 has finished, never inside its callbacks.
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
Command add_check_command(CLI::App& app);
Command add_diff_command(CLI::App& app);
Command add_identify_command(CLI::App& app);
Command add_positions_command(CLI::App& app);
Command add_sections_command(CLI::App& app);
Command add_lesson_command(CLI::App& app);

}  // namespace rope::cli
