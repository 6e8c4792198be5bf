/// @file
/// The printers of `rope apply` (analysis/teaching/apply_run.hpp): the text for people (in either language), the CSV
/// (`--csv`: channel, input, matrix, elementwise, complex[, float32]) and the value the JSON printer writes
/// (`--json`). One row per pair and one number per channel: as long as the vector (at most kMaxDenseDim).
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "rope/analysis/teaching/apply_run.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// position, dim (the rotating d), head_dim (the vector's length), rotary_offset, base, layout, model (or null),
/// scaling (or null), attention_factor, query_scale, theta and angle per pair, input, matrix, elementwise,
/// complex[, float32], xpos_scale (with xPos), difference, tolerance and agree.
Value apply_value(const ApplyRun& run);

/// channel,input,matrix,elementwise,complex[,float32]: one row per channel, every digit.
std::string apply_csv(const ApplyRun& run);

/// The three forms for people: `digits` significant digits of the table and the vectors (nullopt: 6), and of
/// the difference and its tolerance (nullopt: as many as tell them apart; report/digits.hpp).
void print_apply(std::ostream& out, const ApplyRun& run, const Text& t, const std::optional<int>& digits);

/// The report of `rope apply`: report/emit.hpp.
template <>
struct Report<ApplyRun> {
  static Value value(const ApplyRun& run) { return apply_value(run); }
  static void text(std::ostream& out, const ApplyRun& run, const Printing& how) {
    print_apply(out, run, Text(how.lang), how.digits);
  }
  static std::string csv(const ApplyRun& run) { return apply_csv(run); }
};

}  // namespace rope
