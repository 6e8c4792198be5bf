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

/// The groups of the commands in `rope --help`'s overview, in its order (help_pages.cpp: "Learn", "Compute", "Check
/// a model", "Figures").
enum class HelpGroup { Learn, Compute, CheckModel, Figures };

/// Every command, one row each: its name, its alias, its group in `rope --help`, its example and the function that
/// adds it, in the order of `rope --help`. The names are those each add_*_command gives its subcommand (a unit test
/// builds every command and compares; another fails a row without a group or an example).
///
/// The example is the smallest command line that gives the command what it needs (`rope NAME` where it needs
/// nothing), paths relative to the repository: the malformed-input sweep (tests/hardening/cases.py, which reads it
/// here) starts every case from it, replacing the option it sweeps. Small jobs where the defaults are slow under the
/// sanitizers (verify's 1000 trials, precision's 10^6 positions, bench's 10^5 distances timed 3 times); the example
/// dumps of data/dumps/ (tests/reference/make_dumps.py; q_spectrum.npy: tests/reference/spectrum.py); an empty
/// sequence is refused before positions looks at any option.
struct CommandEntry {
  const char* name;
  const char* alias;  // "" when none
  HelpGroup group;
  const char* example;  // "rope NAME …"
  Command (*add)(CLI::App&);
};
inline constexpr CommandEntry kCommands[] = {
    {"frequencies", "freqs", HelpGroup::Compute, "rope frequencies", add_frequencies_command},
    {"matrix", "", HelpGroup::Compute, "rope matrix", add_matrix_command},
    {"apply", "", HelpGroup::Compute, "rope apply --position 1 --vector 1,0,0,1", add_apply_command},
    {"verify", "", HelpGroup::CheckModel, "rope verify --trials 10", add_verify_command},
    {"decay", "", HelpGroup::Figures, "rope decay", add_decay_command},
    {"wavelengths", "", HelpGroup::Figures, "rope wavelengths", add_wavelengths_command},
    {"inspect", "", HelpGroup::CheckModel, "rope inspect --model llama-3.1-8b", add_inspect_command},
    {"attention", "", HelpGroup::Figures, "rope attention", add_attention_command},
    {"encodings", "", HelpGroup::Learn, "rope encodings", add_encodings_command},
    {"layouts", "", HelpGroup::Learn, "rope layouts", add_layouts_command},
    {"explain", "", HelpGroup::Learn, "rope explain", add_explain_command},
    {"precision", "", HelpGroup::Compute, "rope precision --max-position 1000 --samples 2 --points 5",
     add_precision_command},
    {"bound", "", HelpGroup::Compute, "rope bound --context 1024", add_bound_command},
    {"extrapolation", "", HelpGroup::Compute, "rope extrapolation --train-length 4096", add_extrapolation_command},
    {"bench", "", HelpGroup::Compute, "rope bench --seq 2 --points 100 --repeat 1", add_bench_command},
    {"permute", "", HelpGroup::CheckModel, "rope permute", add_permute_command},
    {"weights", "", HelpGroup::CheckModel, "rope weights", add_weights_command},
    {"check", "", HelpGroup::CheckModel, "rope check --before data/dumps/q.npy --after data/dumps/q_rope.npy",
     add_check_command},
    {"diff", "", HelpGroup::CheckModel,
     "rope diff --before data/dumps/q.npy --after-a data/dumps/q_rope.npy --after-b data/dumps/q_rope.npy",
     add_diff_command},
    {"identify", "", HelpGroup::CheckModel, "rope identify --before data/dumps/q.npy --after data/dumps/q_rope.npy",
     add_identify_command},
    {"spectrum", "", HelpGroup::Compute, "rope spectrum --dump data/dumps/q_spectrum.npy", add_spectrum_command},
    {"positions", "", HelpGroup::Learn, "rope positions --text 3", add_positions_command},
    {"sections", "", HelpGroup::Learn, "rope sections", add_sections_command},
    {"lesson", "", HelpGroup::Learn, "rope lesson", add_lesson_command},
};

}  // namespace rope::cli
