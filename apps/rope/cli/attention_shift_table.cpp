// The shift table of rope attention --shift (attention_shift_table.hpp; docs/math.md (M13)).
#include "rope/cli/attention_shift_table.hpp"

#include <fmt/format.h>

#include "rope/cli/printing.hpp"
#include "rope/core/constants.hpp"
#include "rope/io/csv.hpp"

namespace rope::cli {

namespace {

std::string sci(double x) { return x == 0.0 ? std::string("0") : fmt::format("{:.2e}", x); }

}  // namespace

ShiftRow judge_shift(Encoding e, const ShiftReport& r, const Text& t, bool wide) {
  const std::string bug = t.tr("CHANGED (a bug)");
  switch (e) {
    case Encoding::Rope:
      return {e, r, r.check.passed(),
              r.check.passed() ? wide ? t.tr("invariant: rounding only, within the tolerance")
                                      : t.tr("invariant: rounding only")
                                  : t.tr("CHANGED beyond rounding (a bug)")};
    case Encoding::Sinusoidal:
      return {e, r, true,
              r.check.passed() ? t.tr("unchanged for these q, k") : t.tr("changed: leaks absolute position")};
    case Encoding::Alibi:
      return {e, r, r.max_abs_change == 0.0, r.max_abs_change == 0.0 ? t.tr("invariant: exactly") : bug};
    default:
      return {e, r, r.max_abs_change == 0.0,
              r.max_abs_change == 0.0 ? t.tr("invariant: trivially, position-blind") : bug};
  }
}

void mark_regime_change(ShiftRow& row, long before, long after, const Text& t, bool wide) {
  row.ok = true;
  row.by_design = true;
  row.verdict = wide ? t.tr("changed: the frequencies depend on seq_len ({0} → {1}), as in the model", before, after)
                     : t.tr("changed, by design: seq_len {0} → {1}", before, after);
}

void print_shift_table(std::ostream& out, const AttentionOptions& opt, const std::vector<ShiftRow>& rows, const Text& t,
                       double a2) {
  const long shift = opt.shift.value_or(0);
  out << t.tr("shift test: every position moves by C = {0} (positions 0 … {1} → {2} … {3}), same q_i and k_j\n",
              shift, opt.tokens - 1, shift,
              shift + opt.tokens - 1);
  if (a2 > 1.0) {
    out << t.tr("  S includes a² = {0} (the model's attention factor in cos and sin)\n", format_number(a2));
  }
  out << t.tr("  |Δ|/S with S = ‖q_i‖‖k_j‖/√d; tolerance {0:g}·ε·(d + M) on it,\n"
              "  M = |i| + |j| + |i + C| + |j + C| (M13)\n\n",
              kToleranceSafety);
  // The default table fits 100 columns (one space between columns); --wide: two spaces, as before.
  const char* layout = opt.wide ? "  {:<11}  {:>12}  {:>10}  {:>10}  {:>12}  {}\n" : "  {:<10} {:>12} {:>9} {:>9} {:>12}  {}\n";
  out << fmt::format(fmt::runtime(layout), t.tr("encoding"), "max |Δ s_ij|", "max |Δ|/S", t.tr("tolerance"),
                     "max |Δ A_ij|", t.tr("result"));
  for (const ShiftRow& row : rows) {
    const ShiftReport& r = row.report;
    const bool exact = row.encoding == Encoding::Alibi || row.encoding == Encoding::None;
    out << fmt::format(fmt::runtime(layout), to_string(row.encoding), sci(r.max_abs_change),
                       sci(r.check.relative_error()), exact ? t.tr("0 (exact)") : sci(r.check.tolerance), sci(r.max_weight_change),
                       row.verdict);
  }
  out << '\n';
  for (const ShiftRow& row : rows) {
    switch (row.encoding) {
      case Encoding::Rope:
        if (row.by_design) {
          out << t.tr("  rope: the model takes its frequencies at seq_len = max(position) + 1 (HF's dynamic update), so the\n"
                      "        shifted positions use other frequencies and the scores change, as in the model\n");
          break;
        }
        out << t.tr("  rope: s_ij depends on j − i only (M8); what changes is rounding, here M <= {0}\n",
                    format_number(row.report.position_budget));
        break;
      case Encoding::Sinusoidal:
        out << t.tr("  sinusoidal: the cross terms q_i·p_j and p_i·k_j depend on i and j separately (M12)\n");
        break;
      case Encoding::Alibi:
        out << t.tr("  alibi: the bias −m·|i − j| depends on i − j only, and integer positions subtract exactly\n");
        break;
      default:
        out << t.tr("  none: no position enters the score, so nothing can change; it is position-blind:\n"
                    "        reordering the tokens only reorders the rows and columns of A\n");
        break;
    }
  }
}

}  // namespace rope::cli
