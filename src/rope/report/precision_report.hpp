/// @file
/// The printers of `rope precision` (analysis/calculators/precision_run.hpp): the text for people (in either language),
/// the CSV (`--csv`: position and, per curve, its angle, vector and identity errors), the value and the
/// log–log figure (colour per type, line style per strategy).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rope/analysis/calculators/precision_run.hpp"
#include "rope/io/csv.hpp"
#include "rope/plot/figure.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// dim, base, layout, samples, seed, distance, max_position, threshold, positions (the grid), curves
/// [{name, column, type, strategy, angle, vector, identity}] (overflow: null), table {positions, curves
/// [{name, angle, vector, identity}]}, crossings [{name, position}] and merges [{type, exact_up_to, distinct,
/// merged, overflow, first_groups [{value, first, last}]}].
Value precision_value(const PrecisionRun& run);

/// position, then <curve>_angle, <curve>_vector, <curve>_identity per curve, every digit.
Table precision_table(const PrecisionRun& run);

/// The curves the figure leaves out: no error to draw on its log axis (exact or overflowing everywhere).
std::vector<std::string> precision_left_out(const PrecisionRun& run);

/// The settings, the three error tables (digits: --digits N or the policy of digits.hpp), the crossings and
/// the merges (`wide`: every merge group).
void print_precision(std::ostream& out, const PrecisionRun& run, const Text& t, const std::optional<int>& digits,
                     bool wide);

/// The request's metric on log–log axes.
plot::Figure precision_figure(const PrecisionRun& run, const Text& t);

/// The report of `rope precision`: report/emit.hpp.
template <>
struct Report<PrecisionRun> {
  static Value value(const PrecisionRun& run) { return precision_value(run); }
  static void text(std::ostream& out, const PrecisionRun& run, const Printing& how) {
    print_precision(out, run, Text(how.lang), how.digits, how.wide);
  }
  static Table csv(const PrecisionRun& run) { return precision_table(run); }
};

}  // namespace rope
