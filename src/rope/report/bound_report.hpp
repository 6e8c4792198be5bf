/// @file
/// The printers of `rope bound` (analysis/calculators/bound_run.hpp): the text for people (in either language), the CSV
/// (`--csv`: base, min_B, argmin_m, passes for every grid base), the value (the same numbers and the scan's
/// findings) and the figure: min B(m) against the base, passing and failing bases shaded.
#pragma once

#include <ostream>

#include "rope/analysis/calculators/bound_run.hpp"
#include "rope/io/csv.hpp"
#include "rope/plot/figure.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// context, dim, per_decade, default_range, bases [{base, min_b, argmin_m, passes}], smallest_passing,
/// always_passes_from (null when none) and pass_intervals [[first, last]].
Value bound_value(const BoundRun& run);

/// base, min_B, argmin_m, passes (1 or 0): one row per grid base, every digit.
Table bound_table(const BoundRun& run);

/// The criterion, the grid, the verdicts, the pass intervals (at most kMaxIntervalsShown).
void print_bound(std::ostream& out, const BoundRun& run, const Text& t);

/// min B(m) against the base on a log axis, each grid base's cell shaded by its verdict.
plot::Figure bound_figure(const BoundRun& run, const Text& t);

/// The report of `rope bound`: report/emit.hpp.
template <>
struct Report<BoundRun> {
  static Value value(const BoundRun& run) { return bound_value(run); }
  static void text(std::ostream& out, const BoundRun& run, const Printing& how) {
    print_bound(out, run, Text(how.lang));
  }
  static Table csv(const BoundRun& run) { return bound_table(run); }
};

}  // namespace rope
