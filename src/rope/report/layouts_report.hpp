/// @file
/// The printers of `rope layouts` (analysis/teaching/layouts_run.hpp): the text for people (in either language), the
/// CSV of the scores at every distance (`--csv`; one row per distance, at most kMaxLayoutsDistance + 1), the
/// value of its numbers (scalars only: the scores at m and n, the sweep's summary and the checks) and the two
/// figures: the scores against distance, or (`--cache`) the cos/sin cache of each layout.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "rope/analysis/teaching/layouts_run.hpp"
#include "rope/plot/figure.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// dim, base, m, n, seed, the scores at (m, n) (interleaved, mixed, fixed), max_mixed_change,
/// mean_mixed_change, max_fixed_change, conjugation_error, the two identity checks and passed.
Value layouts_value(const LayoutsRun& run);

/// distance,score_interleaved,score_mixed,score_fixed: one row per distance of the sweep.
std::string layouts_csv(const LayoutsRun& run);

/// The demonstration for people; `digits`: the errors and tolerances (report/digits.hpp compared).
void print_layouts(std::ostream& out, const LayoutsRun& run, const Text& t, const std::optional<int>& digits);

/// The report of `rope layouts`: report/emit.hpp.
template <>
struct Report<LayoutsRun> {
  static Value value(const LayoutsRun& run) { return layouts_value(run); }
  static void text(std::ostream& out, const LayoutsRun& run, const Printing& how) {
    print_layouts(out, run, Text(how.lang), how.digits);
  }
  static std::string csv(const LayoutsRun& run) { return layouts_csv(run); }
};

/// The figure of the scores (a), (b), (c) against the distance n − m.
plot::Figure layouts_figure(const LayoutsRun& run, const Text& t);

/// The cos/sin cache as it sits in memory (layout_cache): one heat map of three bands of rows (cos, sin and the
/// angle over π) for the three tables side by side, each table's channels counted from 0, a black bar joining
/// pair 0's two channels (partners) in each table.
plot::Figure cache_figure(const LayoutCache& cache, const Text& t);

}  // namespace rope
