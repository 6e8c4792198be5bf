/// @file
/// The printers of `rope extrapolation` (analysis/calculators/extrapolation_run.hpp): the text for people (in either
/// language) and the value (every number of the text). Its figure is rope wavelengths' (the command line's
/// cli/figures/wavelength_figure) with the training and tuning lengths.
#pragma once

#include <ostream>

#include "rope/analysis/calculators/extrapolation_run.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// dim, base, train_length, tune_length, critical {x, pairs, dimension, capped}, bounds [{beta, t_extra,
/// applies}], critical_base and small_base {quarter, half, full} (null without a tuning length).
Value extrapolation_value(const ExtrapolationRun& run);

/// (C6), the table of (C7), then (C8) and (C9) with a tuning length.
void print_extrapolation(std::ostream& out, const ExtrapolationRun& run, const Text& t);

/// The report of `rope extrapolation`: report/emit.hpp.
template <>
struct Report<ExtrapolationRun> {
  static Value value(const ExtrapolationRun& run) { return extrapolation_value(run); }
  static void text(std::ostream& out, const ExtrapolationRun& run, const Printing& how) {
    print_extrapolation(out, run, Text(how.lang));
  }
};

}  // namespace rope
