// The printers of rope attention (attention_report.hpp): the scores, the table of a shift's verdicts and a
// model's score lines.
#include "rope/report/attention_report.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/analysis/teaching/alibi.hpp"
#include "rope/core/constants.hpp"
#include "rope/io/csv.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/json.hpp"
#include "rope/report/model_text.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

std::string sci(double x, int digits) { return x == 0.0 ? std::string("0") : sci_with_digits(x, digits); }

/// One cell per entry, 6 decimals, exact zeros as a plain 0 (the causal mask); the bias in its shortest
/// exact form while every entry has one of at most 9 characters (−0.5, −1.5, −0.125).
const MatrixFormat kAttentionMatrix{6, false, false, 3, "  ", false, true};
const MatrixFormat kBiasMatrix{6, true, false, 3, "  ", false, true};

/// The score formula of each encoding, as printed.
std::string formula(Encoding e, const Text& t) {
  switch (e) {
    case Encoding::Rope:
      return t.tr("s_ij = <R_i q_i, R_j k_j>/√d, R_p the rotation of position p (docs/math.md (M5), (M8))");
    case Encoding::Sinusoidal:
      return t.tr("s_ij = <q_i + p_i, k_j + p_j>/√d, p_t the sinusoidal encoding of position t (docs/math.md (M12))");
    case Encoding::Alibi:
      return "s_ij = q_i·k_j/√d − m·|i − j| (Press et al. 2021, arXiv:2108.12409)";
    default:
      return t.tr("s_ij = q_i·k_j/√d: no position enters the score");
  }
}

std::string title_of(Encoding e, const AttentionResult& s, const AttentionRequest& opt, const Text& t) {
  switch (e) {
    case Encoding::Rope:
      if (s.settings.spec) {
        return t.tr("RoPE of {0}, base = {1}", s.settings.spec->name, format_number(s.settings.spec->config.base));
      }
      return fmt::format("RoPE, base = {}", format_number(opt.base));
    case Encoding::Sinusoidal:
      return t.tr("additive sinusoidal, base = {0}", format_number(opt.base));
    case Encoding::Alibi:
      return t.tr("ALiBi, m = {0} (head {1} of {2})", format_number(s.slope), opt.head, opt.heads);
    default:
      return t.tr("no position encoding");
  }
}

/// "0.5, 0.25, …, 0.00390625": all slopes up to 8 heads, else the first four and the last.
std::string slope_list(int heads) {
  const std::vector<double> m = alibi_slopes(heads);
  std::vector<std::string> shown;
  for (std::size_t h = 0; h < m.size(); ++h) {
    if (m.size() <= 8 || h < 4 || h + 1 == m.size()) shown.push_back(format_number(m[h]));
    if (m.size() > 8 && h == 4) shown.push_back("…");
  }
  return fmt::format("{}", fmt::join(shown, ", "));
}

std::vector<double> row_values(const Eigen::MatrixXd& m, Eigen::Index r) {
  std::vector<double> out;
  for (Eigen::Index c = 0; c < m.cols(); ++c) out.push_back(m(r, c));
  return out;
}

}  // namespace

std::vector<std::string> model_score_lines(const ModelRope& model, const AttentionSettings& settings,
                                           const Eigen::VectorXd& positions, const Text& t) {
  std::vector<std::string> lines;
  const std::optional<AttentionScale>& a = model.model.attention_scale;
  const std::string scale = a ? fmt::format("·{:.6g}", a->value) : std::string("/√d");
  lines.push_back(
      settings.query_scaling
          ? t.tr("s_ij = s(p_i)·<R_i q_i, R_j k_j>{0}, R_p the model's rotation, s(p) its query scaling (S21)", scale)
          : t.tr("s_ij = <R_i q_i, R_j k_j>{0}, R_p the model's rotation (docs/math.md (M8), scaling.md (S19))",
                 scale));
  if (a) {
    lines.push_back(t.tr("softmax scale {0}, the model's attention's own: {1}", attention_scale_text(*a).in(t.lang()),
                         a->from.in(t.lang())));
    if (a->softcap) {
      lines.push_back(t.tr("then capped: s_ij → {0}·tanh(s_ij / {0}) before the softmax ({1})",
                           format_number(*a->softcap), a->softcap_from.in(t.lang())));
    }
  } else {
    lines.push_back(t.tr("softmax scale 1/√d: {0} gives none of its own", model.spec.name));
  }
  if (const std::optional<QueryScaling>& q = settings.query_scaling) {
    lines.push_back(
        t.tr("q_i × s(p_i) after RoPE, s(p) = 1 + {0}·ln(1 + ⌊p / {1}⌋), every layer ({2}): {3} at positions {4} … {5}",
             format_number(q->beta), format_number(q->original), q->from.in(t.lang()), scaling_range(*q, positions),
             format_number(positions.minCoeff()), format_number(positions.maxCoeff())));
  }
  return lines;
}

void print_shift_table(std::ostream& out, const AttentionRequest& opt, const std::vector<ShiftRow>& rows, const Text& t,
                       double a2, std::optional<double> scale, const std::optional<int>& digits_asked) {
  const long shift = opt.shift.value_or(0);
  out << t.tr("shift test: every position moves by C = {0} (positions 0 … {1} → {2} … {3}), same q_i and k_j\n", shift,
              opt.tokens - 1, shift, shift + opt.tokens - 1);
  if (a2 > 1.0) {
    out << t.tr("  S includes a² = {0} (the model's attention factor in cos and sin)\n", readable(a2));
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
  const int digits = digits_for(compared, digits_asked, 3);
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
                       sci(r.max_weight_change, digits), w[3], row.verdict.in(t.lang()));
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

Value attention_value(const AttentionRun& run) {
  const AttentionRequest& opt = run.request;
  const Text en(Lang::En);
  Value v = Value::object();
  v["tokens"] = opt.tokens;
  v["dim"] = static_cast<int>(run.qk.q.cols());
  v["seed"] = opt.user ? Value() : Value(opt.seed);
  v["causal"] = opt.causal;
  v["shift"] = opt.shift;
  Value encodings = Value::array();
  for (const AttentionResult& r : run.results) {
    Value e = Value::object();
    e["encoding"] = std::string(to_string(r.encoding));
    e["title"] = title_of(r.encoding, r, opt, en);
    e["a00"] = r.a(0, 0);
    if (r.encoding == Encoding::Alibi) e["slope"] = r.slope;
    if (opt.tokens <= kMaxPrintedTokens) {
      Value rows = Value::array();
      for (Eigen::Index i = 0; i < r.a.rows(); ++i) rows.push_back(row_values(r.a, i));
      e["weights"] = std::move(rows);
    }
    encodings.push_back(std::move(e));
  }
  v["encodings"] = std::move(encodings);
  if (opt.shift) {
    Value rows = Value::array();
    for (const ShiftRow& row : run.shifts) {
      Value s = Value::object();
      s["encoding"] = std::string(to_string(row.encoding));
      s["max_abs_change"] = row.report.max_abs_change;
      s["max_relative_change"] = row.report.check.relative_error();
      s["tolerance"] = row.report.check.tolerance;
      s["max_weight_change"] = row.report.max_weight_change;
      s["ok"] = row.ok;
      s["by_design"] = row.by_design;
      s["verdict"] = row.verdict.en;
      rows.push_back(std::move(s));
    }
    v["shift_test"] = std::move(rows);
  }
  v["passed"] = run.passed;
  return v;
}

void print_attention(std::ostream& out, const AttentionRun& run, const Text& t, const std::optional<int>& digits) {
  const AttentionRequest& opt = run.request;
  const int d = static_cast<int>(run.qk.q.cols());
  out << t.tr("rope attention: {0} tokens at positions 0 … {1}, d = {2}{3}{4}\n", opt.tokens, opt.tokens - 1, d,
              opt.user ? "" : t.tr(", seed {0}", opt.seed),
              opt.causal ? t.tr(",\n  causal mask (query i sees keys j <= i)") : "");
  out << (opt.user
              ? t.tr("  q_i, k_j from --q and --k, one query and one key per token; A = softmax of each row of s\n")
              : t.tr(
                    "  q_i, k_j ~ N(0, I), one query and one key per token; A = softmax of each row of the scores s\n"))
      << t.tr("  (row i: query i, column j: key j; each row of A sums to 1)\n");
  if (opt.show_vectors) print_vectors(out, "q", run.qk.q), print_vectors(out, "k", run.qk.k);
  for (const AttentionResult& r : run.results) {
    out << fmt::format("\n{}\n", title_of(r.encoding, r, opt, t));
    if (r.encoding == Encoding::Rope && opt.model) {
      print_summary(out, model_score_lines(*opt.model, r.settings, run.positions, t));
    } else {
      out << "  " << formula(r.encoding, t) << '\n';
    }
    if (r.encoding == Encoding::Rope && opt.model) {
      out << t.tr(
          "  R_p q is the model's rotation (scaling.md (S19)): its layout, its rotating channels, a·R_p on them\n");
      print_summary(out, spec_summary(*opt.model, t));
      for (const Message& w : opt.model->spec.params.warnings) out << t.tr("  warning: ") << w.in(t.lang()) << '\n';
    }
    if (r.encoding == Encoding::Alibi) {
      out << t.tr("  the slopes of the {0} heads (Press et al. §3): {1}\n", opt.heads, slope_list(opt.heads));
    }
    if (opt.tokens <= kMaxPrintedTokens) {
      out << t.tr("\nattention A_ij\n");
      print_matrix(out, r.a, kAttentionMatrix);
      if (r.encoding == Encoding::Alibi) {
        out << t.tr("\nALiBi bias −m·|i − j|, added to q_i·k_j/√d\n");
        print_matrix(out, r.bias, kBiasMatrix);
      }
    }
  }
  if (opt.tokens > kMaxPrintedTokens) {  // the heatmap's option only where no figure was asked for
    out << (opt.figure ? t.tr("\n(the {0}×{0} matrix A: {1} FILE)\n", opt.tokens, option_name("csv"))
                       : t.tr("\n(the {0}×{0} matrix A: {1} FILE, or {2} FILE for a heatmap)\n", opt.tokens,
                              option_name("csv"), option_name("png")));
  }
  if (opt.shift) {
    out << '\n';
    const double a = opt.model ? opt.model->spec.attention_factor() : 1.0;
    print_shift_table(out, opt, run.shifts, t, a * a, opt.model ? run.results.front().settings.scale : std::nullopt,
                      digits);
  }
}

}  // namespace rope
