/// @file
/// The printers of `rope explain` (analysis/teaching/explain_run.hpp): the walkthrough for people, step by step, in
/// either language (docs/classroom.md quotes it), and the value of its numbers (the setup, the score of the
/// pair and every check of the steps shown: at most a few dozen fields).
#pragma once

#include <ostream>

#include "rope/analysis/teaching/explain_run.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// q, k, m, n, theta, shift, d, base, step; score (⟨R(Mθ)q, R(Nθ)k⟩), relative_score (qᵀR((N−M)θ)k),
/// reversed_score (⟨R(Mθ)ᵀq, R(Nθ)ᵀk⟩); checks: each {difference, tolerance, passed}; passed.
Value explain_value(const ExplainRun& run);

/// The walkthrough (every step for step 0, else that step; the header unless quiet) and its last line.
/// Returns whether every check of the printed steps passed.
bool print_explain(std::ostream& out, const ExplainRun& run, const Text& t);

/// The report of `rope explain`: report/emit.hpp.
template <>
struct Report<ExplainRun> {
  static Value value(const ExplainRun& run) { return explain_value(run); }
  static void text(std::ostream& out, const ExplainRun& run, const Printing& how) {
    print_explain(out, run, Text(how.lang));
  }
};

}  // namespace rope
