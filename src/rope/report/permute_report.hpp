/// @file
/// The printers of `rope permute`'s report (analysis/weights/permute_run.hpp): text for people (through the catalog, in
/// either language), the CSV of head 0's scores against the distance, the value JSON writes (`--json`), and the
/// figure of the row map.
#pragma once

#include <optional>
#include <ostream>

#include "rope/analysis/weights/permute_run.hpp"
#include "rope/io/csv.hpp"
#include "rope/plot/figure.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// The report's fields: the settings, the row maps, the scores' comparison and the verdict.
Value permute_value(const PermuteRun& run);

/// distance, score_hf, score_gguf[, score_bug] of head 0.
Table permute_table(const PermuteRun& run);

/// The report for people; `csv_given`: the scores went to a file (no pointer to --csv).
void print_permute(std::ostream& out, const PermuteRun& run, const Text& t, const std::optional<int>& digits,
                   bool csv_given);

/// Its report (report/emit.hpp): the value, the text, the CSV rows (head 0's scores).
template <>
struct Report<PermuteRun> {
  static Value value(const PermuteRun& run) { return permute_value(run); }
  static void text(std::ostream& out, const PermuteRun& run, const Printing& how) {
    print_permute(out, run, Text(how.lang), how.digits, run.csv_written);
  }
  static Table csv(const PermuteRun& run) { return permute_table(run); }
};

/// GGUF row r against the HF row it holds, for two KV heads, with the bug's order.
plot::Figure permute_figure(const PermuteRun& run, const Text& t);

}  // namespace rope
