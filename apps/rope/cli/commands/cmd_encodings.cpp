// rope encodings: the comparison table of position encodings that explainers print (blog posts on RoPE often have one:
// explicit relative position, long-range decay, parameters, extrapolation) for absolute sinusoidal, learned
// absolute, T5 bias, ALiBi and RoPE, each claim next to the number rope computes for it, or its source.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>
#include <sstream>

#include "rope/cli/commands.hpp"
#include "rope/report/digits.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/report/printing.hpp"
#include "rope/analysis/teaching/alibi.hpp"
#include "rope/analysis/teaching/attention.hpp"
#include "rope/io/csv.hpp"
#include "rope/analysis/calculators/decay.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/random.hpp"
#include "rope/analysis/verify/sinusoidal.hpp"

namespace rope::cli {

/// The learned table of the shift test has tokens + shift rows of d numbers: at most 14096 × 1024.
inline constexpr long kMaxEncodingsShift = 10'000;
inline constexpr long kMaxContext = 10'000'000;
/// Bound on tokens² × d: the shift test computes every score of five encodings twice (a matrix product
/// of N × d by d × N each), and the work grows as N²·d. At the limit (4096 tokens at d = 256, 2048 at
/// d = 1024) about 20 s of CPU (measured in docs/errors.md's Limits).
inline constexpr double kMaxEncodingsWork = 4294967296.0;  // 2^32
/// Random pairs behind the "mean ± sd" of RoPE's score at each distance (M15).
inline constexpr long kDecaySamples = 1000;

struct EncodingsOptions {
  int tokens = 16;
  int dim = 64;
  int heads = 8;
  long context = 512;
  long shift = 100;
  std::uint64_t seed = kDefaultSeed;
  double base = kDefaultBase;
  Lang lang = Lang::En;
  std::optional<int> digits;  ///< --digits N: significant digits of RoPE's |Δ|/S and its tolerance (digits.hpp)
};

namespace {

/// The five encodings in the order of the columns.
constexpr Encoding kColumns[] = {Encoding::Sinusoidal, Encoding::LearnedAbsolute, Encoding::T5Bias, Encoding::Alibi,
                                 Encoding::Rope};

const char* name_of(Encoding e, const Text& t) {
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

std::string sci(double x) { return x == 0.0 ? std::string("0") : fmt::format("{:.2e}", x); }

/// A count as an integer while it is exact in a double, else with 4 significant digits.
std::string count(double x) { return x < 9e15 ? fmt::format("{:.0f}", x) : fmt::format("{:.4g}", x); }

std::string percent(double part, double whole) { return fmt::format("{:.2g}%", 100.0 * part / whole); }

void check_options(const EncodingsOptions& opt) {
  if (opt.tokens < 1 || opt.tokens > kMaxAttentionTokens) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("tokens"), 1,
                                    kMaxAttentionTokens, opt.tokens));
  }
  check_dimension(opt.dim, kMaxAttentionDim, "--dim");
  check_base(opt.base);
  if (opt.heads < 1 || opt.heads > kMaxAlibiHeads) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", option_name("heads"), 1, kMaxAlibiHeads, opt.heads));
  }
  if (opt.context < 1 || opt.context > kMaxContext) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", option_name("context"), 1, kMaxContext, opt.context));
  }
  if (opt.shift < 0 || opt.shift > kMaxEncodingsShift) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3}): the learned table has no negative positions",
                  option_name("shift"), 0, kMaxEncodingsShift, opt.shift));
  }
  const double work = static_cast<double>(opt.tokens) * opt.tokens * opt.dim;
  if (work > kMaxEncodingsWork) {
    throw InvalidArgument(
        error_msg("{0}² × {1} must be at most {2} (got {3}² × {4} = {5}): the shift test computes every score of five "
                  "encodings twice; lower the tokens or the dimension",
                  option_name("tokens"), option_name("dim"), "2^32", opt.tokens, opt.dim, fmt::format("{:g}", work)));
  }
  if (opt.tokens + opt.shift > opt.context) {
    throw InvalidArgument(
        error_msg("{0} + {1} must be <= {2}: the learned table has rows 0 … {3} only (got {4} + {5} = {6})",
                  option_name("tokens"), option_name("shift"), option_name("context"), opt.context - 1, opt.tokens,
                  opt.shift, opt.tokens + opt.shift));
  }
}

}  // namespace

int run_encodings(const EncodingsOptions& opt, std::ostream& out) {
  check_options(opt);
  const Text t(opt.lang);
  const int n = opt.tokens;
  const int d = opt.dim;
  const double d_model = static_cast<double>(opt.heads) * d;
  const double L = static_cast<double>(opt.context);
  const std::vector<double> slopes = alibi_slopes(opt.heads);
  const Eigen::VectorXd theta = frequencies(d, opt.base);
  const T5Buckets t5;

  // The same q_i, k_j for every encoding; the trained tables of learned and T5 replaced by random ones.
  const QueriesKeys qk = random_queries_keys(n, d, opt.seed);
  const Eigen::VectorXd positions = token_positions(n);
  Random rng(opt.seed + 1);
  Eigen::MatrixXd table(n + opt.shift, d);  // the rows 0 … N − 1 + C that the test reads
  for (Eigen::Index r = 0; r < table.rows(); ++r) {
    for (int c = 0; c < d; ++c) table(r, c) = rng.normal();
  }
  Eigen::VectorXd t5_bias(t5.num_buckets);
  for (int b = 0; b < t5.num_buckets; ++b) t5_bias[b] = rng.normal();

  std::vector<ShiftReport> shifts;
  for (Encoding e : kColumns) {
    AttentionSettings s;
    s.encoding = e;
    s.base = opt.base;
    s.alibi_slope = slopes.front();
    s.t5_bias = t5_bias;
    s.learned_table = table;
    shifts.push_back(shift_test(qk.q, qk.k, positions, static_cast<double>(opt.shift), s));
  }
  const ShiftReport& rope_shift = shifts.back();
  const bool rope_ok = rope_shift.check.passed();
  const bool exact_ok = shifts[2].max_abs_change == 0.0 && shifts[3].max_abs_change == 0.0;

  const auto name = [&](Encoding e) { return name_of(e, t); };
  out << t.tr(
      "rope encodings: five position encodings and the claims of the comparison table that explainers print\n"
      "(RoPE, absolute, T5, ALiBi: explicit relative position, long-range decay, cost, extrapolation), each\n"
      "claim next to the number rope computes for it or the source it is cited from\n");
  out << t.tr("  one head of N = {0} tokens, d = {1}, base = {2}, seed {3}; a model of {4} heads (d_model = {5}),\n", n,
              d, format_number(opt.base), opt.seed, opt.heads, count(d_model));
  out << t.tr("  trained on L = {0} positions. [computed]: by this run; [cited]: published; [not checked]: neither\n\n",
              opt.context);
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
  out << t.tr("   shift test (as rope attention --shift): max |Δ s_ij| when every position moves by C = {0}\n",
              opt.shift);
  const std::string why[] = {
      t.tr("no: the cross terms q_i·p_j and p_i·k_j depend on i and j separately (M12)"),
      t.tr("no: the same cross terms, with a random E[t] ~ N(0, I) in place of a trained table"),
      t.tr("yes, exactly: the bucket depends on j − i only (random r_b in place of trained ones)"),
      t.tr("yes, exactly: −m·|i − j| depends on i − j only"),
      "",
  };
  for (std::size_t c = 0; c < std::size(kColumns); ++c) {
    std::string verdict = why[c];
    if (kColumns[c] == Encoding::Rope) {
      // The error against its tolerance, with the digits that tell them apart (digits.hpp), or --digits N.
      const std::vector<std::string> shown =
          compared_sci({rope_shift.check.relative_error(), rope_shift.check.tolerance}, opt.digits);
      verdict =
          t.tr("{0}: rounding, |Δ|/S = {1} <= {2:g}·ε·(d + M) = {3} (M8), (M13)", rope_ok ? t.tr("yes") : t.tr("NO"),
               rope_shift.check.relative_error() == 0.0 ? "0" : shown[0], kToleranceSafety, shown[1]);
    }
    out << fmt::format("     {:<11} {:>9}  {}\n", name(kColumns[c]), sci(shifts[c].max_abs_change), verdict);
  }
  out << t.tr(
      "   T5's buckets (32, max_distance 128, bidirectional; Hugging Face T5Attention._relative_position_bucket):\n");
  std::vector<long> starts;  // the smallest |j − i| of each bucket of one direction
  for (long dist = 0, last = -1; dist <= 4 * t5.max_distance; ++dist) {
    const int b = t5_relative_position_bucket(-dist, t5);
    if (b != last) starts.push_back(dist), last = b;
  }
  std::string row_dist = fmt::format("     {:<14}", t.tr("|j − i| from"));
  std::string row_before = fmt::format("     {:<14}", "j <= i");
  std::string row_after = fmt::format("     {:<14}", "j > i");
  for (long dist : starts) {
    row_dist += fmt::format("{:>4}", dist);
    row_before += fmt::format("{:>4}", t5_relative_position_bucket(-dist, t5));
    row_after += dist == 0 ? std::string("   -") : fmt::format("{:>4}", t5_relative_position_bucket(dist, t5));
  }
  out << row_dist << '\n' << row_before << '\n' << row_after << '\n';
  out << t.tr("     every |j − i| >= {0} shares one bucket per direction\n", starts.back());

  // 2. Long-range decay.
  const double distances[] = {0, 10, 100, 1000};
  const Eigen::VectorXd at = Eigen::Map<const Eigen::VectorXd>(distances, std::size(distances));
  const RandomScores random = random_scores(theta, at, kDecaySamples, opt.seed);
  const Eigen::VectorXd p0 = sinusoidal_encoding(d, 0.0, opt.base);
  out << t.tr("\n2. Long-range decay: does the score fall with the distance |j − i|?  [computed]\n");
  out << t.tr(
      "   the table: RoPE yes (adaptive), absolute no, T5 no, ALiBi yes (linear). Checked: half right. What "
      "decays for RoPE is an upper bound and the all-ones score, not typical scores; and the p·p term of the "
      "absolute sinusoidal encoding is exactly half of that all-ones score.\n");
  std::string header = fmt::format("     {:<30}", "|j − i|");
  for (double m : distances) header += fmt::format("{:>16}", format_number(m));
  out << header << '\n';
  const auto row = [&](const std::string& label, auto value) {
    std::string line = fmt::format("     {:<30}", label);
    for (Eigen::Index k = 0; k < at.size(); ++k) line += fmt::format("{:>16}", value(k));
    out << line << '\n';
  };
  row(t.tr("ALiBi bias, m = {0}", format_number(slopes.front())),
      [&](Eigen::Index k) { return format_number(0.0 - slopes.front() * at[k]); });
  row(t.tr("ALiBi bias, m = {0}", format_number(slopes.back())),
      [&](Eigen::Index k) { return format_number(0.0 - slopes.back() * at[k]); });
  row(t.tr("RoPE bound f(m), (M11)"), [&](Eigen::Index k) { return fmt::format("{:.4f}", decay_bound(theta, at[k])); });
  row(t.tr("RoPE <R_m q, k>, {0} random", kDecaySamples),
      [&](Eigen::Index k) { return fmt::format("{:.2f} ± {:.2f}", random.mean[k], random.stddev[k]); });
  row(t.tr("RoPE score of q = k = 1, (M14)"),
      [&](Eigen::Index k) { return fmt::format("{:.4f}", ones_score(theta, at[k])); });
  row(t.tr("sinusoidal p_0·p_m"),
      [&](Eigen::Index k) { return fmt::format("{:.4f}", p0.dot(sinusoidal_encoding(d, at[k], opt.base))); });
  out << t.tr("     ALiBi: a linear penalty, m = {0} … {1} for the {2} heads, without bound\n",
              format_number(slopes.front()), format_number(slopes.back()), opt.heads);
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
  const double t5_params = static_cast<double>(t5.num_buckets) * opt.heads;
  const double qk_work = L * L * d;
  out << t.tr("\n3. Parameters and extra work  [computed]\n");
  out << t.tr(
      "   the table: RoPE ≈0, absolute low, T5 high, ALiBi ≈0. Checked: T5's \"high\" is wrong for parameters, "
      "and \"absolute: low\" mixes sinusoidal (none) with learned (the most).\n");
  out << fmt::format("     {:<11} {:>14}  {}\n", name(Encoding::Sinusoidal), "0", t.tr("p_t is a formula"));
  out << fmt::format("     {:<11} {:>14}  L × d_model = {} × {}\n", name(Encoding::LearnedAbsolute),
                     count(learned_params), opt.context, count(d_model));
  out << fmt::format(
      "     {:<11} {:>14}  {}\n", name(Encoding::T5Bias), count(t5_params),
      t.tr("buckets × heads = {0} × {1}, once per layer stack: all layers share it", t5.num_buckets, opt.heads));
  out << fmt::format("     {:<11} {:>14}  {}\n", "ALiBi", "0",
                     t.tr("the slopes are fixed: 2^(−8h/n) for n = {0}", opt.heads));
  out << fmt::format("     {:<11} {:>14}  {}\n", "RoPE", "0", t.tr("the frequencies θ_i = base^(−2i/d) are fixed"));
  out << t.tr("   work per head and layer at N = L = {0}, against QKᵀ's N²·d = {1} multiply-adds:\n", opt.context,
              count(qk_work));
  out << t.tr("     RoPE rotates q and k: 6·N·d = {0} operations (M9), {1} of QKᵀ\n", count(6 * L * d),
              percent(6 * L * d, qk_work));
  out << t.tr("     ALiBi and T5 add one bias per score: N² = {0} additions, {1} of QKᵀ (T5 also looks up buckets)\n",
              count(L * L), percent(L * L, qk_work));
  out << t.tr("     sinusoidal and learned add p_t once, at the input: N·d_model = {0} additions per sequence\n",
              count(L * d_model));
  out << t.tr(
      "     [cited] Press et al. 2021, Fig. 1: their T5 bias model ran out of memory on a 32 GB GPU at the\n"
      "     longest inputs\n");

  // 4. Extrapolation.
  const Eigen::Index first = first_pair_beyond(wavelengths(theta), L);
  out << t.tr("\n4. Inputs longer than the trained length L\n");
  out << t.tr(
      "   the table: RoPE yes (with extension), absolute no, T5 no, ALiBi yes. Checked: agrees with the sources.\n");
  out << fmt::format("     {:<11} {}\n", name(Encoding::LearnedAbsolute),
                     t.tr("[computed] the table has rows 0 … {0}: position {1} has no embedding at all",
                          opt.context - 1, opt.context));
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
  if (first + 1 == theta.size()) {  // one pair: "pair 3 of 4", not "pairs 3 … 3 of 4"
    out << fmt::format("     {:<11} {}\n", "RoPE",
                       t.tr("[computed] within L = {0}, pair {1} of {2} never completes a turn (M16), so longer inputs "
                            "show it angles never trained on; [cited] perplexity rises beyond L (Press et al. "
                            "2021, Fig. 1) unless rescaled: position interpolation (Chen et al. 2023, "
                            "arXiv:2306.15595) and the methods of rope --scaling (docs/scaling.md)",
                            opt.context, first, theta.size()));
  } else if (first < theta.size()) {
    out << fmt::format(
        "     {:<11} {}\n", "RoPE",
        t.tr("[computed] within L = {0}, pairs {1} … {2} of {3} never complete a turn (M16), so longer inputs "
             "show them angles never trained on; [cited] perplexity rises beyond L (Press et al. "
             "2021, Fig. 1) unless rescaled: position interpolation (Chen et al. 2023, "
             "arXiv:2306.15595) and the methods of rope --scaling (docs/scaling.md)",
             opt.context, first, theta.size() - 1, theta.size()));
  } else {
    out << fmt::format("     {:<11} {}\n", "RoPE",
                       t.tr("[computed] within L = {0} every pair completes a turn (M16); [cited] perplexity rises\n"
                            "                 beyond L (Press et al. 2021, Fig. 1) unless rescaled (docs/scaling.md)",
                            opt.context));
  }

  out << t.tr(
      "\n5. Short-context accuracy (all yes) and ease of extension  [not checked]\n"
      "   claims about trained models, given without a source; rope computes nothing for them\n");
  return rope_ok && exact_ok ? kOk : kVerifyFailed;
}

Command add_encodings_command(CLI::App& app) {
  auto opt = std::make_shared<EncodingsOptions>();
  CLI::App* sub = app.add_subcommand(
      "encodings", "Sinusoidal, learned, T5 bias, ALiBi and RoPE compared, each claim with the number behind it");
  add_int_option(*sub, "-n,--tokens", opt->tokens,
                 fmt::format("tokens N of the shift test (1 … {})", kMaxAttentionTokens));
  add_int_option(*sub, "-d,--dim", opt->dim, fmt::format("head dimension d: even, 2 … {}", kMaxAttentionDim));
  add_int_option(*sub, "--heads", opt->heads, "heads of the model: ALiBi's slopes, T5's parameters, d_model = heads·d");
  add_long_option(*sub, "--context", opt->context, fmt::format("trained length L (1 … {})", kMaxContext));
  add_long_option(*sub, "--shift", opt->shift,
                  fmt::format("shift test: move every position by C (0 … {}, tokens + C <= L)", kMaxEncodingsShift));
  add_seed_option(*sub, opt->seed, "seed of q, k and of the random stand-ins for trained tables");
  add_base_option(*sub, opt->base);
  add_lang_option(*sub, opt->lang);
  add_digits_option(*sub, opt->digits, "3", kDigitsHelp);
  sub->footer(
      "Exit codes: 0 ok; 1 RoPE's shift test exceeded its rounding tolerance, or T5's or ALiBi's was not 0.\n\n"
      "Example:\n  rope encodings\n  rope encodings --dim 128 --heads 32 --context 4096");
  // The report is prose beside numbers: its long lines are wrapped to the projector width.
  return {sub, [opt](std::ostream& out) {
            std::ostringstream report;
            const int code = run_encodings(*opt, report);
            out << wrap_lines(report.str());
            return code;
          }};
}

}  // namespace rope::cli
