/// @file
/// The printers of `rope verify`'s report (analysis/verify/verify_run.hpp): text for people (through the catalog, in
/// either language; the narrow table fits 100 columns, the wide one adds each row's samples and unscaled max |Δ|),
/// one CSV row per identity, and its value, which the JSON printer writes (`--json`). The rows are the suite's
/// own, a number fixed by the options, so no list is bounded here.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "rope/analysis/verify/verify_run.hpp"
#include "rope/report/emit.hpp"
#include "rope/report/value.hpp"

namespace rope {

class Text;

/// The report's fields: the settings as run, each identity's row, the contrasts, the verdict, and the trials done
/// when the run was interrupted.
Value verify_value(const VerifyRun& run);

/// One line per row (identity, formula, equation, samples, errors, tolerance, verdict), with its header line.
std::string verify_csv(const VerifyRun& run);

/// The report for people: the settings and the tolerance model, then the table; `wide` adds the samples and the
/// unscaled max |Δ| (138 columns).
void print_verify(std::ostream& out, const VerifyRun& run, const Text& t, const std::optional<int>& digits, bool wide);

/// The report of `rope verify` (`how.wide`: the wide table): report/emit.hpp.
template <>
struct Report<VerifyRun> {
  static Value value(const VerifyRun& run) { return verify_value(run); }
  static void text(std::ostream& out, const VerifyRun& run, const Printing& how) {
    print_verify(out, run, Text(how.lang), how.digits, how.wide);
  }
  static std::string csv(const VerifyRun& run) { return verify_csv(run); }
};

}  // namespace rope
