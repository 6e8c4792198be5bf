/// @file
/// The printers of `rope decay --xpos` (analysis/teaching/decay_xpos_run.hpp): the text (the table at round
/// distances), the CSV (every distance: distance, bound, xpos_bound, zeta_first, zeta_mean, zeta_last), the value
/// and the figure: the bound, the xPos bound and ζ^(m/s) of the fastest, the mean and the slowest pair.
#pragma once

#include <ostream>

#include "rope/analysis/teaching/decay_xpos_run.hpp"
#include "rope/io/csv.hpp"
#include "rope/plot/figure.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// dim, base, scale_base, zeta [ζ_j], and at the text's round distances: distances, bound, xpos_bound,
/// zeta_first, zeta_mean, zeta_last.
Value xpos_decay_value(const XposDecayRun& run);

/// distance, bound, xpos_bound, zeta_first, zeta_mean, zeta_last at every distance, every digit.
Table xpos_decay_table(const XposDecayRun& run);

/// The equations, then the table at the round distances.
void print_xpos_decay(std::ostream& out, const XposDecayRun& run, const Text& t);

/// The two bounds and the three ζ^(m/s) curves against the distance.
plot::Figure xpos_decay_figure(const XposDecayRun& run, const Text& t);

/// The report of `rope decay --xpos`: report/emit.hpp.
template <>
struct Report<XposDecayRun> {
  static Value value(const XposDecayRun& run) { return xpos_decay_value(run); }
  static void text(std::ostream& out, const XposDecayRun& run, const Printing& how) {
    print_xpos_decay(out, run, Text(how.lang));
  }
  static Table csv(const XposDecayRun& run) { return xpos_decay_table(run); }
};

}  // namespace rope
