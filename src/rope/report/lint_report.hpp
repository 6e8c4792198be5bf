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
void emit(std::ostream& out, const EngineLint& lint, const Printing& how);

}  // namespace rope
