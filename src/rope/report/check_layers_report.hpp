/// @file
/// The printers of every layer checked in one run (analysis/check/check_layers.hpp): the text for people, one line per
/// layer the worst first (its verdict, largest |Δ|/tolerance and the RoPE it was checked against, its layer type
/// where the model has several), then the worst failing layer's full report (report/check_report.hpp); and the
/// value of its numbers (`--json`): `layers`, a list of each layer's check_value with its two tensor names.
#pragma once

#include <ostream>

#include "rope/analysis/check/check_layers.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// before, after, before_tensor, after_tensor (the patterns), passed, layers.
Value check_layers_value(const CheckLayersRun& run);

void print_check_layers(std::ostream& out, const CheckLayersRun& run, const Text& t, const std::optional<int>& digits);

/// Its report (report/emit.hpp): the value, the text.
template <>
struct Report<CheckLayersRun> {
  static Value value(const CheckLayersRun& run) { return check_layers_value(run); }
  static void text(std::ostream& out, const CheckLayersRun& run, const Printing& how) {
    print_check_layers(out, run, Text(how.lang), how.digits);
  }
};

}  // namespace rope
