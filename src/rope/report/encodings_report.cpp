// The printers of rope encodings (encodings_report.hpp).
#include "rope/report/encodings_report.hpp"

#include <cmath>
#include <fmt/format.h>
#include <sstream>
#include <string>

#include "rope/core/constants.hpp"
#include "rope/io/csv.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

const char* encodings_name_of(Encoding e, const Text& t) {
  switch (e) {
    case Encoding::Sinusoidal:
      return t.tr("sinusoidal");
    case Encoding::LearnedAbsolute:
      return t.tr("learned");
    case Encoding::T5Bias:
      return t.tr("T5 bias");
    case Encoding::Alibi:
      return "ALiBi";
    case Encoding::Rope:
      return "RoPE";
    default:
      return "none";
  }
}

std::string encodings_sci(double x) { return x == 0.0 ? std::string("0") : fmt::format("{:.2e}", x); }

/// A count as an integer while it is exact in a double, else with 4 significant digits.
std::string encodings_count(double x) { return x < 9e15 ? fmt::format("{:.0f}", x) : fmt::format("{:.4g}", x); }

std::string encodings_percent(double part, double whole) { return fmt::format("{:.2g}%", 100.0 * part / whole); }

void print_encodings_unwrapped(std::ostream& out, const EncodingsRun& run, const Text& t,
                               const std::optional<int>& digits) {
  const EncodingsRequest& q = run.request;
  const int n = q.tokens;
  const int d = q.dim;
  const double d_model = static_cast<double>(q.heads) * d;
  const double L = static_cast<double>(q.context);
  const T5Buckets& t5 = run.t5;
  const ShiftReport& rope_shift = run.shifts.back();
  const auto name = [&](Encoding e) { return encodings_name_of(e, t); };
  out << t.tr(
      "rope encodings: five position encodings and the claims of the comparison table that explainers print\n"
      "(RoPE, absolute, T5, ALiBi: explicit relative position, long-range decay, cost, extrapolation), each\n"
      "claim next to the number rope computes for it or the source it is cited from\n");
  out << t.tr("  one head of N = {0} tokens, d = {1}, base = {2}, seed {3}; a model of {4} heads (d_model = {5}),\n", n,
              d, format_number(q.base), q.seed, q.heads, encodings_count(d_model));
  out << t.tr("  trained on L = {0} positions. [computed]: by this run; [cited]: published; [not checked]: neither\n\n",
              q.context);
  out << fmt::format("  {:<11} {}\n", name(Encoding::Sinusoidal),
                     t.tr("adds p_t = (sin tθ_i, cos tθ_i) to x (Vaswani et al. 2017, (M12))"));
  out << fmt::format("  {:<11} {}\n", name(Encoding::LearnedAbsolute),
                     t.tr("adds row t of a trained L × d_model table E to x (BERT, GPT-2)"));
  out << fmt::format("  {:<11} {}\n", name(Encoding::T5Bias),
                     t.tr("adds a trained r_b to s_ij, b the bucket of j − i (Raffel et al. 2019 §2.1)"));
  out << fmt::format("  {:<11} {}\n", "ALiBi", t.tr("adds −m·|i − j| to s_ij, m fixed per head (Press et al. 2021)"));
  out << fmt::format("  {:<11} {}\n", "RoPE", t.tr("rotates q_i by R_i and k_j by R_j (Su et al. 2021, (M8))"));

  // 1. Explicit relative position.
  out << t.tr("\n1. Explicit relative position: does the score depend on j − i only?  [computed]\n");
  out << t.tr("   the table: RoPE yes, absolute no, T5 yes, ALiBi yes. Checked: right.\n");
  out << t.tr("   shift test (as {0}): max |Δ s_ij| when every position moves by C = {1}\n",
              option_name("attention.shift"), q.shift);
  const std::string why[] = {
      t.tr("no: the cross terms q_i·p_j and p_i·k_j depend on i and j separately (M12)"),
      t.tr("no: the same cross terms, with a random E[t] ~ N(0, I) in place of a trained table"),
      t.tr("yes, exactly: the bucket depends on j − i only (random r_b in place of trained ones)"),
      t.tr("yes, exactly: −m·|i − j| depends on i − j only"),
      "",
  };
  for (std::size_t c = 0; c < std::size(kEncodingsColumns); ++c) {
    std::string verdict = why[c];
    if (kEncodingsColumns[c] == Encoding::Rope) {
      // The error against its tolerance, with the digits that tell them apart (digits.hpp), or --digits N.
      const std::vector<std::string> shown =
          compared_sci({rope_shift.check.relative_error(), rope_shift.check.tolerance}, digits);
      verdict = t.tr("{0}: rounding, |Δ|/S = {1} <= {2:g}·ε·(d + M) = {3} (M8), (M13)",
                     run.rope_passed ? t.tr("yes") : t.tr("NO"),
                     rope_shift.check.relative_error() == 0.0 ? "0" : shown[0], kToleranceSafety, shown[1]);
    }
    out << fmt::format("     {:<11} {:>9}  {}\n", name(kEncodingsColumns[c]),
                       encodings_sci(run.shifts[c].max_abs_change), verdict);
  }
  out << t.tr(
      "   T5's buckets (32, max_distance 128, bidirectional; Hugging Face T5Attention._relative_position_bucket):\n");
  const std::vector<long>& starts = run.t5_starts;
  std::string row_dist = fmt::format("     {:<14}", t.tr("|j − i| from"));
  std::string row_before = fmt::format("     {:<14}", "j <= i");
  std::string row_after = fmt::format("     {:<14}", "j > i");
  for (std::size_t s = 0; s < starts.size(); ++s) {
    row_dist += fmt::format("{:>4}", starts[s]);
    row_before += fmt::format("{:>4}", run.t5_before[s]);
    row_after += starts[s] == 0 ? std::string("   -") : fmt::format("{:>4}", run.t5_after[s]);
  }
  out << row_dist << '\n' << row_before << '\n' << row_after << '\n';
  out << t.tr("     every |j − i| >= {0} shares one bucket per direction\n", starts.back());

  // 2. Long-range decay.
  const Eigen::VectorXd& at = run.distances;
  out << t.tr("\n2. Long-range decay: does the score fall with the distance |j − i|?  [computed]\n");
  out << t.tr(
      "   the table: RoPE yes (adaptive), absolute no, T5 no, ALiBi yes (linear). Checked: half right. What "
      "decays for RoPE is an upper bound and the all-ones score, not typical scores; and the p·p term of the "
      "absolute sinusoidal encoding is exactly half of that all-ones score.\n");
  std::string header = fmt::format("     {:<30}", "|j − i|");
  for (const double m : at) header += fmt::format("{:>16}", format_number(m));
  out << header << '\n';
  const auto row = [&](const std::string& label, auto value) {
    std::string line = fmt::format("     {:<30}", label);
    for (Eigen::Index k = 0; k < at.size(); ++k) line += fmt::format("{:>16}", value(k));
    out << line << '\n';
  };
  row(t.tr("ALiBi bias, m = {0}", format_number(run.slopes.front())),
      [&](Eigen::Index k) { return format_number(0.0 - run.slopes.front() * at[k]); });
  row(t.tr("ALiBi bias, m = {0}", format_number(run.slopes.back())),
      [&](Eigen::Index k) { return format_number(0.0 - run.slopes.back() * at[k]); });
  row(t.tr("RoPE bound f(m), (M11)"), [&](Eigen::Index k) { return fmt::format("{:.4f}", run.bound[k]); });
  row(t.tr("RoPE <R_m q, k>, {0} random", kEncodingsDecaySamples),
      [&](Eigen::Index k) { return fmt::format("{:.2f} ± {:.2f}", run.random.mean[k], run.random.stddev[k]); });
  row(t.tr("RoPE score of q = k = 1, (M14)"), [&](Eigen::Index k) { return fmt::format("{:.4f}", run.ones[k]); });
  row(t.tr("sinusoidal p_0·p_m"), [&](Eigen::Index k) { return fmt::format("{:.4f}", run.sinusoidal[k]); });
  out << t.tr("     ALiBi: a linear penalty, m = {0} … {1} for the {2} heads, without bound\n",
              format_number(run.slopes.front()), format_number(run.slopes.back()), q.heads);
  out << t.tr(
      "     RoPE: f(m) is RoFormer's upper bound on the size of the score (§3.4.3), up to a factor set by\n"
      "       q and k; for random q, k ~ N(0, I) the score <R_m q, k> has mean 0 and sd √d = {0:.2f} at every\n"
      "       distance (M15): typical scores do not decay (docs/math.md)\n",
      std::sqrt(static_cast<double>(d)));
  out << t.tr(
      "     sinusoidal: p_m·p_n = Σ_i cos((m − n)θ_i), half of RoPE's all-ones score (M12), (M14); the cross "
      "terms q·p_n and p_m·k do not decay\n");
  out << t.tr("     T5 bias: trained values, so no decay is built in; beyond |j − i| = {0} the bias is constant\n",
              starts.back());
  out << t.tr("     learned: trained values; nothing to compute\n");

  // 3. Parameters and work.
  const double learned_params = L * d_model;
  const double t5_params = static_cast<double>(t5.num_buckets) * q.heads;
  const double qk_work = L * L * d;
  out << t.tr("\n3. Parameters and extra work  [computed]\n");
  out << t.tr(
      "   the table: RoPE ≈0, absolute low, T5 high, ALiBi ≈0. Checked: T5's \"high\" is wrong for parameters, "
      "and \"absolute: low\" mixes sinusoidal (none) with learned (the most).\n");
  out << fmt::format("     {:<11} {:>14}  {}\n", name(Encoding::Sinusoidal), "0", t.tr("p_t is a formula"));
  out << fmt::format("     {:<11} {:>14}  L × d_model = {} × {}\n", name(Encoding::LearnedAbsolute),
                     encodings_count(learned_params), q.context, encodings_count(d_model));
  out << fmt::format(
      "     {:<11} {:>14}  {}\n", name(Encoding::T5Bias), encodings_count(t5_params),
      t.tr("buckets × heads = {0} × {1}, once per layer stack: all layers share it", t5.num_buckets, q.heads));
  out << fmt::format("     {:<11} {:>14}  {}\n", "ALiBi", "0",
                     t.tr("the slopes are fixed: 2^(−8h/n) for n = {0}", q.heads));
  out << fmt::format("     {:<11} {:>14}  {}\n", "RoPE", "0", t.tr("the frequencies θ_i = base^(−2i/d) are fixed"));
  out << t.tr("   work per head and layer at N = L = {0}, against QKᵀ's N²·d = {1} multiply-adds:\n", q.context,
              encodings_count(qk_work));
  out << t.tr("     RoPE rotates q and k: 6·N·d = {0} operations (M9), {1} of QKᵀ\n", encodings_count(6 * L * d),
              encodings_percent(6 * L * d, qk_work));
  out << t.tr("     ALiBi and T5 add one bias per score: N² = {0} additions, {1} of QKᵀ (T5 also looks up buckets)\n",
              encodings_count(L * L), encodings_percent(L * L, qk_work));
  out << t.tr("     sinusoidal and learned add p_t once, at the input: N·d_model = {0} additions per sequence\n",
              encodings_count(L * d_model));
  out << t.tr(
      "     [cited] Press et al. 2021, Fig. 1: their T5 bias model ran out of memory on a 32 GB GPU at the\n"
      "     longest inputs\n");

  // 4. Extrapolation.
  const Eigen::Index first = run.first_beyond;
  out << t.tr("\n4. Inputs longer than the trained length L\n");
  out << t.tr(
      "   the table: RoPE yes (with extension), absolute no, T5 no, ALiBi yes. Checked: agrees with the sources.\n");
  out << fmt::format(
      "     {:<11} {}\n", name(Encoding::LearnedAbsolute),
      t.tr("[computed] the table has rows 0 … {0}: position {1} has no embedding at all", q.context - 1, q.context));
  out << fmt::format(
      "     {:<11} {}\n", name(Encoding::Sinusoidal),
      t.tr("[cited] defined at every position, but perplexity rises beyond L (Press et al. 2021, Fig. 1)"));
  out << fmt::format("     {:<11} {}\n", name(Encoding::T5Bias),
                     t.tr("[computed] every |j − i| >= {0} reuses the last bucket; [cited] perplexity still rises "
                          "beyond L (Press et al. 2021, Fig. 1)",
                          starts.back()));
  out << fmt::format("     {:<11} {}\n", "ALiBi",
                     t.tr("[cited] trained on 1024 tokens, it reaches at 2048 the perplexity of a sinusoidal model "
                          "trained on 2048 (Press et al. 2021, abstract)"));
  if (first + 1 == run.theta.size()) {  // one pair: "pair 3 of 4", not "pairs 3 … 3 of 4"
    out << fmt::format("     {:<11} {}\n", "RoPE",
                       t.tr("[computed] within L = {0}, pair {1} of {2} never completes a turn (M16), so longer inputs "
                            "show it angles never trained on; [cited] perplexity rises beyond L (Press et al. "
                            "2021, Fig. 1) unless rescaled: position interpolation (Chen et al. 2023, "
                            "arXiv:2306.15595) and the methods of {3} (docs/scaling.md)",
                            q.context, first, run.theta.size(), option_name("scaling_methods")));
  } else if (first < run.theta.size()) {
    out << fmt::format(
        "     {:<11} {}\n", "RoPE",
        t.tr("[computed] within L = {0}, pairs {1} … {2} of {3} never complete a turn (M16), so longer inputs "
             "show them angles never trained on; [cited] perplexity rises beyond L (Press et al. "
             "2021, Fig. 1) unless rescaled: position interpolation (Chen et al. 2023, "
             "arXiv:2306.15595) and the methods of {4} (docs/scaling.md)",
             q.context, first, run.theta.size() - 1, run.theta.size(), option_name("scaling_methods")));
  } else {
    out << fmt::format("     {:<11} {}\n", "RoPE",
                       t.tr("[computed] within L = {0} every pair completes a turn (M16); [cited] perplexity rises\n"
                            "                 beyond L (Press et al. 2021, Fig. 1) unless rescaled (docs/scaling.md)",
                            q.context));
  }

  out << t.tr(
      "\n5. Short-context accuracy (all yes) and ease of extension  [not checked]\n"
      "   claims about trained models, given without a source; rope computes nothing for them\n");
}

Value encodings_vector_value(const Eigen::VectorXd& v) {
  Value a = Value::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) a.push_back(v[i]);
  return a;
}

}  // namespace

Value encodings_value(const EncodingsRun& run) {
  const EncodingsRequest& q = run.request;
  Value v = Value::object();
  v["tokens"] = q.tokens;
  v["dim"] = q.dim;
  v["heads"] = q.heads;
  v["context"] = q.context;
  v["shift"] = q.shift;
  v["seed"] = q.seed;
  v["base"] = q.base;
  Value shifts = Value::array();
  for (std::size_t c = 0; c < run.shifts.size(); ++c) {
    Value one = Value::object();
    one["encoding"] = std::string(to_string(kEncodingsColumns[c]));
    one["max_abs_change"] = run.shifts[c].max_abs_change;
    one["relative_error"] = run.shifts[c].check.relative_error();
    one["tolerance"] = run.shifts[c].check.tolerance;
    shifts.push_back(one);
  }
  v["shift_test"] = shifts;
  Value t5 = Value::object();
  t5["starts"] = run.t5_starts;
  t5["before"] = run.t5_before;
  t5["after"] = run.t5_after;
  v["t5"] = t5;
  Value decay = Value::object();
  decay["distances"] = encodings_vector_value(run.distances);
  decay["alibi_first"] = encodings_vector_value(-run.slopes.front() * run.distances);
  decay["alibi_last"] = encodings_vector_value(-run.slopes.back() * run.distances);
  decay["bound"] = encodings_vector_value(run.bound);
  decay["random_mean"] = encodings_vector_value(run.random.mean);
  decay["random_sd"] = encodings_vector_value(run.random.stddev);
  decay["ones"] = encodings_vector_value(run.ones);
  decay["sinusoidal"] = encodings_vector_value(run.sinusoidal);
  v["decay"] = decay;
  v["first_pair_beyond"] = static_cast<long>(run.first_beyond);
  v["passed"] = run.passed();
  return v;
}

void print_encodings(std::ostream& out, const EncodingsRun& run, const Text& t, const std::optional<int>& digits) {
  // The report is prose beside numbers: its long lines are wrapped to the projector width.
  std::ostringstream report;
  print_encodings_unwrapped(report, run, t, digits);
  out << wrap_lines(report.str());
}

}  // namespace rope
