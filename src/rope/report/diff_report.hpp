/// @file
/// The printers of `rope diff`'s report (analysis/check/diff_run.hpp): text for people (through the catalog, in either
/// language), and its value, which the JSON printer writes (`--json`).
///
/// The runs of positions and the segments grow with the dumps (one run per position at worst: 2^20 positions made
/// a JSON of 3.7 GB): the value lists the first kListedDiffRuns of each, in order, and counts them all
/// (range_count, segment_count), so its size is bounded whatever the dumps'.
#pragma once

#include <cstddef>
#include <ostream>

#include "rope/analysis/check/diff_run.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// The value lists the runs ("ranges") and segments ("segments") the diff kept: at most kListedDiffRuns runs
/// (analysis/check/dump_diff.hpp) and kListedSegments segments (check.hpp) plus the diagnosed ones; range_count and
/// segment_count count them all.

/// The report's fields: the verdict, the expectation, each side against it, the two against each other, the first
/// kListedDiffRuns runs and segments and their counts.
Value diff_value(const DiffRun& run);

/// The report for people.
void print_diff(std::ostream& out, const DiffRun& run, const Text& t);

/// The report of `rope diff`: report/emit.hpp.
template <>
struct Report<DiffRun> {
  static Value value(const DiffRun& run) { return diff_value(run); }
  static void text(std::ostream& out, const DiffRun& run, const Printing& how) { print_diff(out, run, Text(how.lang)); }
};

}  // namespace rope
