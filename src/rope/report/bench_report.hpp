/// @file
/// The printers of `rope bench` (analysis/calculators/bench.hpp): the text for people (in either language) and the
/// value (every timing and difference of the text, in seconds).
#pragma once

#include <ostream>

#include "rope/analysis/calculators/bench.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// seq, heads, repeat, decay_points, ladder [{d, seconds {dense, blocks, elementwise, complex}, max_abs_diff}],
/// decay {direct_seconds, recurrence_seconds, max_rel_diff}.
Value bench_value(const BenchReport& report);

/// The ladder's table (ns per head vector and the ratio to the element-wise form), then the decay job.
void print_bench(std::ostream& out, const BenchReport& report, const Text& t);

/// The report of `rope bench`: report/emit.hpp.
template <>
struct Report<BenchReport> {
  static Value value(const BenchReport& run) { return bench_value(run); }
  static void text(std::ostream& out, const BenchReport& run, const Printing& how) {
    print_bench(out, run, Text(how.lang));
  }
};

}  // namespace rope
