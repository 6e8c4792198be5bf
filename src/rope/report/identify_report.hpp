/// @file
/// The printers of `rope identify`'s report (analysis/identify/identify_run.hpp): text for people (through the catalog,
/// in either language), and its value, which the JSON printer writes (`--json`) and the Python module hands over
/// (`rope.identify(...)`). Its lists have one item per pair or per fitted family (d ≤ kMaxIdentifyDim); the jumps,
/// one per restart, are at most the sequence indices identify holds (kIdentifyElements elements of a streamed
/// dump, the reader's limit of one read whole).
#pragma once

#include <optional>
#include <ostream>

#include "rope/analysis/identify/identify_run.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// The report's fields: the dump's d and type, the layout and its pairs, the attention factor, every pair's θ and
/// residual, the families fitted (the best one as "family"), a vision tower's or M-RoPE's map, and the notes.
Value identify_value(const IdentifyRun& run);

/// The report for people; `digits`: significant digits of the attention factor, θ_j and the fits' residuals (the
/// residuals: at least those that tell them apart, digits.hpp); default 4.
void print_identify(std::ostream& out, const IdentifyRun& run, const Text& t, const std::optional<int>& digits);

/// The report of `rope identify`: report/emit.hpp.
template <>
struct Report<IdentifyRun> {
  static Value value(const IdentifyRun& run) { return identify_value(run); }
  static void text(std::ostream& out, const IdentifyRun& run, const Printing& how) {
    print_identify(out, run, Text(how.lang), how.digits);
  }
};

}  // namespace rope
