// The shift table of rope attention --shift (attention_shift_table.hpp; docs/math.md (M13)).
#include "rope/cli/attention_shift_table.hpp"

#include <fmt/format.h>

#include "rope/report/digits.hpp"
#include "rope/report/printing.hpp"
#include "rope/core/constants.hpp"
#include "rope/io/csv.hpp"

namespace rope::cli {

namespace {

std::string sci(double x, int digits) { return x == 0.0 ? std::string("0") : sci_with_digits(x, digits); }

}  // namespace

ShiftRow judge_shift(Encoding e, const ShiftReport& r, const Text& t, bool wide) {
  const std::string bug = t.tr("CHANGED (a bug)");
  switch (e) {
    case Encoding::Rope:
      return {e, r, r.check.passed(),
              r.check.passed()
                  ? wide ? t.tr("invariant: rounding only, within the tolerance") : t.tr("invariant: rounding only")
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
                       double a2, std::optional<double> scale) {
  const long shift = opt.shift.value_or(0);
  out << t.tr("shift test: every position moves by C = {0} (positions 0 … {1} → {2} … {3}), same q_i and k_j\n", shift,
              opt.tokens - 1, shift, shift + opt.tokens - 1);
  if (a2 > 1.0) {
    out << t.tr("  S includes a² = {0} (the model's attention factor in cos and sin)\n", format_number(a2));
  }
  if (scale) {
    out << t.tr(
        "  |Δ|/S with S = ‖q_i‖‖k_j‖·{0} (the model's softmax scale); tolerance {1:g}·ε·(d + M) on it,\n"
        "  M = |i| + |j| + |i + C| + |j + C| (M13)\n\n",
        fmt::format("{:.6g}", *scale), kToleranceSafety);
  } else {
    out << t.tr(
        "  |Δ|/S with S = ‖q_i‖‖k_j‖/√d; tolerance {0:g}·ε·(d + M) on it,\n"
        "  M = |i| + |j| + |i + C| + |j + C| (M13)\n\n",
        kToleranceSafety);
  }
  // The default table fits 100 columns (one space between columns); --wide: two spaces, as before.
  // A row compares its |Δ|/S with its tolerance: the digits that tell them apart in every row (digits.hpp,
  // at least 3), one count for the table, or --digits N.
  std::vector<std::vector<double>> compared;
  for (const ShiftRow& row : rows) compared.push_back({row.report.check.relative_error(), row.report.check.tolerance});
  const int digits = digits_for(compared, opt.digits, 3);
  const auto exact = [](const ShiftRow& row) {
    return row.encoding == Encoding::Alibi || row.encoding == Encoding::None;
  };
  const std::size_t narrow = opt.wide ? 0 : 1;  // the narrow table's columns of |Δ|/S and tolerance are one narrower
  std::size_t w[4] = {12, 10 - narrow, 10 - narrow, 12};
  for (const ShiftRow& row : rows) {
    const ShiftReport& r = row.report;
    w[0] = std::max(w[0], sci(r.max_abs_change, digits).size());
    w[1] = std::max(w[1], sci(r.check.relative_error(), digits).size());
    if (!exact(row)) w[2] = std::max(w[2], sci(r.check.tolerance, digits).size());
    w[3] = std::max(w[3], sci(r.max_weight_change, digits).size());
  }
  const char* layout =
      opt.wide ? "  {:<11}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {}\n" : "  {:<10} {:>{}} {:>{}} {:>{}} {:>{}}  {}\n";
  out << fmt::format(fmt::runtime(layout), t.tr("encoding"), "max |Δ s_ij|", w[0], "max |Δ|/S", w[1], t.tr("tolerance"),
                     w[2], "max |Δ A_ij|", w[3], t.tr("result"));
  for (const ShiftRow& row : rows) {
    const ShiftReport& r = row.report;
    out << fmt::format(fmt::runtime(layout), to_string(row.encoding), sci(r.max_abs_change, digits), w[0],
                       sci(r.check.relative_error(), digits), w[1],
                       exact(row) ? t.tr("0 (exact)") : sci(r.check.tolerance, digits), w[2],
                       sci(r.max_weight_change, digits), w[3], row.verdict);
  }
  out << '\n';
  for (const ShiftRow& row : rows) {
    switch (row.encoding) {
      case Encoding::Rope:
        if (row.by_design) {
          out << t.tr(
              "  rope: the model takes its frequencies at seq_len = max(position) + 1 (HF's dynamic update), so the\n"
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
        out << t.tr(
            "  none: no position enters the score, so nothing can change; it is position-blind:\n"
            "        reordering the tokens only reorders the rows and columns of A\n");
        break;
    }
  }
}

}  // namespace rope::cli
