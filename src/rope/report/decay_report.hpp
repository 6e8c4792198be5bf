/// @file
/// The printers of `rope decay` (analysis/teaching/decay_run.hpp): the text for people (in either language), the table
/// of the full grid (`--csv`: the distance, then one column per curve, two for random pairs), the value of its numbers
/// (`--json`: the settings, each curve's name and its values at the round distances of the text's table, at most about
/// 3 per decade of distance, never the full grid, which the CSV holds) and the figures: the curves against distance,
/// and the frames of the GIF with the base swept.
#pragma once

#include <ostream>
#include <vector>

#include "rope/analysis/teaching/decay_run.hpp"
#include "rope/io/csv.hpp"
#include "rope/plot/figure.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// kind, dim, max_distance, points, normalized, log_x, the position map (rerope_window, leaky_k), seed and
/// samples for random pairs, the model's summary, warnings, and `curves`: per curve its column name, weight
/// (a²) and the values (mean and sd for random pairs) at `distances`, the table's round distances.
Value decay_value(const DecayRun& run);

/// The full grid: distance, then one column per curve (column_mean and column_sd for random pairs).
Table decay_table(const DecayRun& run);

/// The report for people: what is computed, the model's summary, the table at round distances, where the full
/// grid is, and the model's warnings.
void print_decay(std::ostream& out, const DecayRun& run, const Text& t);

/// The report of `rope decay`: report/emit.hpp.
template <>
struct Report<DecayRun> {
  static Value value(const DecayRun& run) { return decay_value(run); }
  static void text(std::ostream& out, const DecayRun& run, const Printing& how) {
    print_decay(out, run, Text(how.lang));
  }
  static Table csv(const DecayRun& run) { return decay_table(run); }
};

/// The figure of the curves against distance.
plot::Figure decay_figure(const DecayRun& run, const Text& t);

/// The GIF's frames, one figure per swept base (run.frames), each drawn as decay_figure draws the run.
std::vector<plot::Figure> decay_frames(const DecayRun& run, const Text& t);

}  // namespace rope
