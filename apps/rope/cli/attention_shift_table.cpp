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
  const std::string bug = t("CHANGED (a bug)", "改变了(这是错误)");
  switch (e) {
    case Encoding::Rope:
      return {e, r, r.check.passed(),
              r.check.passed() ? wide ? t("invariant: rounding only, within the tolerance", "不变:只有舍入误差,在容差之内")
                                      : t("invariant: rounding only", "不变:只有舍入误差")
                                  : t("CHANGED beyond rounding (a bug)", "改变超出舍入误差(这是错误)")};
    case Encoding::Sinusoidal:
      return {e, r, true,
              r.check.passed() ? t("unchanged for these q, k", "对这些 q、k 没有改变") : t("changed: leaks absolute position", "改变了:泄露绝对位置")};
    case Encoding::Alibi:
      return {e, r, r.max_abs_change == 0.0, r.max_abs_change == 0.0 ? t("invariant: exactly", "不变:精确相等") : bug};
    default:
      return {e, r, r.max_abs_change == 0.0,
              r.max_abs_change == 0.0 ? t("invariant: trivially, position-blind", "不变:显然如此,它看不到位置") : bug};
  }
}

void mark_regime_change(ShiftRow& row, long before, long after, const Text& t, bool wide) {
  row.ok = true;
  row.by_design = true;
  row.verdict = wide ? t.format("changed: the frequencies depend on seq_len ({} → {}), as in the model",
                                "改变了:频率取决于 seq_len({} → {}),与模型相同", before, after)
                     : t.format("changed, by design: seq_len {} → {}", "改变了(设计如此):seq_len {} → {}", before, after);
}

void print_shift_table(std::ostream& out, const AttentionOptions& opt, const std::vector<ShiftRow>& rows, const Text& t,
                       double a2) {
  const long shift = opt.shift.value_or(0);
  out << t.format("shift test: every position moves by C = {} (positions 0 … {} → {} … {}), same q_i and k_j\n",
                  "平移检验:每个位置都移动 C = {}(位置 0 … {} → {} … {}),q_i 和 k_j 不变\n", shift, opt.tokens - 1, shift,
                  shift + opt.tokens - 1);
  if (a2 > 1.0) {
    out << t.format("  S includes a² = {} (the model's attention factor in cos and sin)\n", "  S 含 a² = {}(模型在 cos 和 sin 中的注意力因子)\n",
                    format_number(a2));
  }
  out << t.format("  |Δ|/S with S = ‖q_i‖‖k_j‖/√d; tolerance {:g}·ε·(d + M) on it,\n"
                  "  M = |i| + |j| + |i + C| + |j + C| (M13)\n\n",
                  "  |Δ|/S,其中 S = ‖q_i‖‖k_j‖/√d;它的容差为 {:g}·ε·(d + M),\n  M = |i| + |j| + |i + C| + |j + C| (M13)\n\n",
                  kToleranceSafety);
  // The default table fits 100 columns (one space between columns); --wide: two spaces, as before.
  const char* layout = opt.wide ? "  {:<11}  {:>12}  {:>10}  {:>10}  {:>12}  {}\n" : "  {:<10} {:>12} {:>9} {:>9} {:>12}  {}\n";
  out << fmt::format(fmt::runtime(layout), t("encoding", "编码"), "max |Δ s_ij|", "max |Δ|/S", t("tolerance", "容差"),
                     "max |Δ A_ij|", t("result", "结果"));
  for (const ShiftRow& row : rows) {
    const ShiftReport& r = row.report;
    const bool exact = row.encoding == Encoding::Alibi || row.encoding == Encoding::None;
    out << fmt::format(fmt::runtime(layout), to_string(row.encoding), sci(r.max_abs_change),
                       sci(r.check.relative_error()), exact ? t("0 (exact)", "0(精确)") : sci(r.check.tolerance), sci(r.max_weight_change),
                       row.verdict);
  }
  out << '\n';
  for (const ShiftRow& row : rows) {
    switch (row.encoding) {
      case Encoding::Rope:
        if (row.by_design) {
          out << t("  rope: the model takes its frequencies at seq_len = max(position) + 1 (HF's dynamic update), so the\n"
                   "        shifted positions use other frequencies and the scores change, as in the model\n",
                   "  rope:模型在 seq_len = max(position) + 1 处取频率(HF 的动态更新),所以平移后的位置\n"
                   "        用的是另一组频率,得分随之改变,与模型相同\n");
          break;
        }
        out << t.format("  rope: s_ij depends on j − i only (M8); what changes is rounding, here M <= {}\n",
                        "  rope:s_ij 只取决于 j − i (M8);改变的只是舍入误差,这里 M <= {}\n",
                        format_number(row.report.position_budget));
        break;
      case Encoding::Sinusoidal:
        out << t("  sinusoidal: the cross terms q_i·p_j and p_i·k_j depend on i and j separately (M12)\n",
                 "  sinusoidal:交叉项 q_i·p_j 和 p_i·k_j 分别依赖 i 和 j (M12)\n");
        break;
      case Encoding::Alibi:
        out << t("  alibi: the bias −m·|i − j| depends on i − j only, and integer positions subtract exactly\n",
                 "  alibi:偏置 −m·|i − j| 只取决于 i − j,而且整数位置相减没有误差\n");
        break;
      default:
        out << t("  none: no position enters the score, so nothing can change; it is position-blind:\n"
                 "        reordering the tokens only reorders the rows and columns of A\n",
                 "  none:得分中不含位置,所以什么都不会变;它看不到位置:\n"
                 "        打乱词元的顺序只会打乱 A 的行和列\n");
        break;
    }
  }
}

}  // namespace rope::cli
