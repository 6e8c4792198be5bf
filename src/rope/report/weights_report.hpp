/// @file
/// The printers of `rope weights`' report (analysis/weights_run.hpp): text for people (through the catalog, in
/// either language), its value (`--json`: `tensors`, each {name, reference_name, layer, kind, bias, map, expected,
/// ok, residual, runner_up, runner_up_residual}, and `passed`, as check's JSON has it), and the heat map of one
/// head block's row correlation (`--png`), where a permutation shows as a bright off-diagonal pattern.
#pragma once

#include <ostream>

#include "rope/analysis/weights_run.hpp"
#include "rope/plot/figure.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// The report's fields.
Value weights_value(const WeightsRun& run);

/// The report for people: both sides, the expectation, one line per tensor, the verdict and what a wrong map means.
void print_weights(std::ostream& out, const WeightsRun& run, const Text& t, const std::optional<int>& digits);

/// The report in the format asked for (text or JSON; CSV is not offered).
void emit(std::ostream& out, const WeightsRun& run, const Printing& how);

/// The heat map of run.heatmap (the run must have one).
plot::Figure weights_figure(const WeightsRun& run, const Text& t);

}  // namespace rope
