/// @file
/// The printers of `rope inspect --lint` (models/engine_lint.hpp): the findings in words, in either language, and their
/// value for `--json` ({"model", "findings": [English sentences]}).
#pragma once

#include <ostream>

#include "rope/models/engine_lint.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

Value lint_value(const EngineLint& lint);
void print_lint(std::ostream& out, const EngineLint& lint, Lang lang);
/// The report of `rope inspect --engine`: report/emit.hpp.
template <>
struct Report<EngineLint> {
  static Value value(const EngineLint& run) { return lint_value(run); }
  static void text(std::ostream& out, const EngineLint& run, const Printing& how) { print_lint(out, run, how.lang); }
};

}  // namespace rope
