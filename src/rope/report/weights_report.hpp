/// @file
/// The printers of `rope weights`' report (analysis/weights/weights_run.hpp): text for people (through the catalog, in
/// either language), its value (`--json`: `tensors`, each {name, reference_name, layer, kind, bias, map, expected,
/// ok, residual, runner_up, runner_up_residual}, and `passed`, as check's JSON has it), and the heat map of one
/// head block's row correlation (`--png`), where a permutation shows as a bright off-diagonal pattern.
#pragma once

#include <ostream>

#include "rope/analysis/weights/weights_run.hpp"
#include "rope/plot/figure.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// The report's fields.
Value weights_value(const WeightsRun& run);

/// The report for people: both sides, the expectation, one line per tensor, the verdict and what a wrong map means.
/// Each line fits 100 columns (a long tensor name shortened in its middle); `wide`: every name in full.
void print_weights(std::ostream& out, const WeightsRun& run, const Text& t, const std::optional<int>& digits,
                   bool wide = false);

/// Its report (report/emit.hpp): the value, the text.
template <>
struct Report<WeightsRun> {
  static Value value(const WeightsRun& run) { return weights_value(run); }
  static void text(std::ostream& out, const WeightsRun& run, const Printing& how) {
    print_weights(out, run, Text(how.lang), how.digits, how.wide);
  }
};

/// The heat map of run.heatmap (the run must have one).
plot::Figure weights_figure(const WeightsRun& run, const Text& t);

}  // namespace rope
