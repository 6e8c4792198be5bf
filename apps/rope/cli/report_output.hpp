/// @file
/// The one command-line helper between a command's output flags and the library's one `emit`
/// (report/emit.hpp): --json, --csv FILE, --lang and --digits (and `rope verify --wide`) mapped to a
/// `Printing`; the report's CSV written to its file (staged with the run's other outputs, atomic) or, for
/// `--csv -`, to standard output instead of the text. A command on the report layer ends with
///
///     emit_report(out, run, {opt.json, opt.lang, opt.digits, opt.csv});
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "rope/cli/figure_options.hpp"
#include "rope/cli/output.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/written_text.hpp"

namespace rope::cli {

/// A command's output flags.
struct ReportFlags {
  ReportFlags(bool json_, Lang lang_, std::optional<int> digits_ = std::nullopt, std::string csv_ = "",
              bool wide_ = false, bool csv_file_ = true)
      : json(json_), lang(lang_), digits(std::move(digits_)), csv(std::move(csv_)), wide(wide_), csv_file(csv_file_) {}

  bool json = false;          ///< --json
  Lang lang = Lang::En;       ///< --lang
  std::optional<int> digits;  ///< --digits N; nullopt: the report's default
  std::string csv;            ///< --csv FILE: "" none, "-" standard output instead of the text or JSON
  bool wide = false;          ///< --wide (rope verify)
  bool csv_file = true;       ///< false: no CSV file (an interrupted run); `--csv -` still prints it
};

/// Whether --csv FILE names standard output ("-"), where the CSV replaces the text.
inline bool csv_to_standard_output(const std::string& csv) { return csv == "-"; }

/// The format the flags ask for on standard output (text or JSON).
inline Printing printing(const ReportFlags& flags) {
  return {flags.json ? Format::Json : Format::Text, flags.lang, flags.digits, flags.wide};
}

/// The report of `run` as the flags ask: its CSV to --csv's file or standard output, then `figures()` (the
/// run's figures, drawn between the two: --term draws on standard output), then, unless --csv -, its text
/// or JSON on `out`; after the text, "wrote FILE" for every figure file the command drew, here or before
/// (take_written_figures; not after JSON or the CSV on standard output, which programs read).
template <class Run, class Figures>
void emit_report(std::ostream& out, const Run& run, const ReportFlags& flags, const Figures& figures) {
  if constexpr (has_csv<Run>) {
    if (!flags.csv.empty() && (flags.csv_file || flags.csv == "-"))
      write_output_pieces(
          flags.csv, [&](const CsvWrite& write) { emit_csv(run, write); }, out);
  }
  figures();
  if (flags.json || flags.csv != "-") emit(out, run, printing(flags));
  const std::vector<std::string> written = take_written_figures();
  if (!flags.json && flags.csv != "-") print_written(out, written, Text(flags.lang));
}

/// The same for a run without figures.
template <class Run>
void emit_report(std::ostream& out, const Run& run, const ReportFlags& flags) {
  emit_report(out, run, flags, [] {});
}

}  // namespace rope::cli
