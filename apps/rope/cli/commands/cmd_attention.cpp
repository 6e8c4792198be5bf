// rope attention: the attention matrix softmax(QKᵀ/√d) of random queries and keys under RoPE, the
// additive sinusoidal encoding, ALiBi or no encoding, and the shift test: move every position by C and
// see whether the scores change (docs/math.md (M8), (M12), (M13); Press et al. 2021 for ALiBi).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "rope/cli/attention_model_lines.hpp"
#include "rope/cli/attention_shift_table.hpp"
#include "rope/report/digits.hpp"
#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/commands/attention_options.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/report/printing.hpp"
#include "rope/cli/vector_options.hpp"
#include "rope/cli/figures/attention_figure.hpp"
#include "rope/cli/figures/motion_figures.hpp"
#include "rope/analysis/motion.hpp"
#include "rope/analysis/alibi.hpp"
#include "rope/analysis/attention.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"

namespace rope::cli {

namespace {

namespace fs = std::filesystem;

constexpr Encoding kAllEncodings[] = {Encoding::Rope, Encoding::Sinusoidal, Encoding::Alibi, Encoding::None};

/// FILE with "_suffix" before its extension: out/att.png → out/att_rope.png.
std::string with_suffix(const std::string& path, const std::string& suffix) {
  if (path.empty()) return path;
  const fs::path p(path);
  return (p.parent_path() / (p.stem().string() + "_" + suffix + p.extension().string())).string();
}

/// The figure options of one of several figures: every file with "_suffix", and a --title followed by
/// "(suffix)" so that the figures can be told apart.
FigureOptions figure_with_suffix(FigureOptions f, const std::string& suffix) {
  for (std::string* path : {&f.png, &f.svg, &f.pdf, &f.output, &f.keep_script, &f.gif})
    *path = with_suffix(*path, suffix);
  if (!f.title.empty()) f.title += " (" + suffix + ")";
  return f;
}

/// One cell per entry, 6 decimals, exact zeros as a plain 0 (the causal mask); the bias in its shortest
/// exact form while every entry has one of at most 9 characters (−0.5, −1.5, −0.125).
const MatrixFormat kAttentionMatrix{6, false, false, 3, "  ", false, true};
const MatrixFormat kBiasMatrix{6, true, false, 3, "  ", false, true};

struct Setup {
  AttentionSettings settings;
  double slope = 0.0;  ///< ALiBi's m
};

Setup setup_for(const AttentionOptions& opt, Encoding encoding, const std::optional<ModelRope>& model) {
  Setup s;
  if (encoding == Encoding::Rope && model) {
    s.settings.spec = model->spec;
    use_model_attention(s.settings, *model);  // its softmax scale, its query scaling (S21)
  }
  s.settings.encoding = encoding;
  s.settings.base = opt.base_value();
  s.settings.causal = opt.causal;
  if (encoding == Encoding::Alibi) {
    s.slope = alibi_slopes(opt.heads_value())[static_cast<std::size_t>(opt.head_value() - 1)];
    s.settings.alibi_slope = s.slope;
  }
  return s;
}

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

std::string title_of(Encoding e, const Setup& s, const AttentionOptions& opt, const Text& t) {
  switch (e) {
    case Encoding::Rope:
      if (s.settings.spec) {
        return t.tr("RoPE of {0}, base = {1}", s.settings.spec->name, format_number(s.settings.spec->config.base));
      }
      return fmt::format("RoPE, base = {}", format_number(opt.base_value()));
    case Encoding::Sinusoidal:
      return t.tr("additive sinusoidal, base = {0}", format_number(opt.base_value()));
    case Encoding::Alibi:
      return t.tr("ALiBi, m = {0} (head {1} of {2})", format_number(s.slope), opt.head_value(), opt.heads_value());
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

void check_options(const AttentionOptions& opt) {
  if (opt.tokens < 1 || opt.tokens > kMaxAttentionTokens) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("tokens"), 1,
                                    kMaxAttentionTokens, opt.tokens));
  }
  const Encoding encoding = opt.encoding_value();
  if (opt.scaling.any() && (opt.compare || encoding != Encoding::Rope)) {
    throw InvalidArgument(
        error_msg("--model, --config and the scaling options describe RoPE: use them with --encoding rope "
                  "(got {0})",
                  opt.compare ? "--compare" : "--encoding " + std::string(to_string(encoding))));
  }
  if (!opt.scaling.any()) check_dimension(opt.dim.value_or(kDefaultAttentionDim), kMaxAttentionDim, "--dim");
  if (!opt.scaling.any()) check_base(opt.base_value());
  if (opt.base && !opt.compare && encoding != Encoding::Rope && encoding != Encoding::Sinusoidal) {
    throw InvalidArgument(error_msg("{0} applies to {1} rope and sinusoidal (got {2} {3})", option_name("base"),
                                    option_name("encoding"), option_name("encoding"), to_string(encoding)));
  }
  if ((opt.heads || opt.head) && !opt.compare && encoding != Encoding::Alibi) {
    throw InvalidArgument(error_msg("{0} and {1} apply to {2} {3} (got {4} {5})", option_name("heads"),
                                    option_name("head"), option_name("encoding"), "alibi", option_name("encoding"),
                                    to_string(encoding)));
  }
  const int heads = opt.heads_value();
  const int head = opt.head_value();
  if (heads < 1 || heads > kMaxAlibiHeads) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", option_name("heads"), 1, kMaxAlibiHeads, heads));
  }
  if (head < 1 || head > heads) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("head"), 1,
                                    fmt::format("--heads = {}", heads), head));
  }
  const long shift = opt.shift.value_or(0);
  if (shift < -kMaxShift || shift > kMaxShift) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("shift"),
                                    fmt::format("-{}", kMaxShift), kMaxShift, shift));
  }
  check_figure_options(opt.figure);
  if (opt.figure.animated() && !opt.shift)
    throw InvalidArgument(error_msg("--gif animates the shift test: add --shift C"));
  if ((opt.figure.wanted() || opt.figure.animated()) && opt.tokens > kMaxFigureTokens) {
    throw InvalidArgument(error_msg("a figure shows at most {0} tokens (got {1} {2}): use {3} for more",
                                    kMaxFigureTokens, option_name("tokens"), opt.tokens, option_name("csv")));
  }
  if (opt.compare && opt.csv == "-") {
    throw InvalidArgument(error_msg("{0} writes one CSV per encoding: give {1} FILE, not '-'", option_name("compare"),
                                    option_name("csv")));
  }
}

}  // namespace

int run_attention(const AttentionOptions& typed, std::ostream& out) {
  AttentionOptions opt = typed;
  // The user's vectors set N and d; a typed --tokens or --dim must agree with them.
  const auto user = query_key(opt.q, opt.k, opt.scaling.any() ? std::nullopt : opt.dim, kMaxAttentionDim);
  if (user && opt.tokens_given && user->q.rows() != opt.tokens) {
    throw InvalidArgument(
        error_msg("--tokens {0} does not match the {1} vectors of --q and --k", opt.tokens, user->q.rows()));
  }
  if (user) {
    opt.tokens = static_cast<int>(user->q.rows());
    if (!opt.scaling.any()) opt.dim = static_cast<int>(user->q.cols());
  }
  check_options(opt);
  std::vector<Encoding> encodings;
  if (opt.compare) {
    encodings.assign(std::begin(kAllEncodings), std::end(kAllEncodings));
  } else {
    encodings.push_back(opt.encoding_value());
  }
  const Text t = opt.figure.tr();
  // With a model: its spec (S19), its head_dim (a typed --dim overrides it, as the origin says); the
  // user's vectors must have the model's d.
  std::optional<ModelRope> model;
  if (opt.scaling.any()) {
    model = resolve(opt.scaling,
                    {opt.dim, kDefaultAttentionDim, opt.base, kDefaultBase, std::nullopt, Layout::Interleaved});
    check_dimension(model->spec.head_dim, kMaxAttentionDim, "head_dim");
    if (user && user->q.cols() != model->spec.head_dim) {
      throw InvalidArgument(error_msg("--q and --k have {0} numbers, but the model's head dimension d is {1}",
                                      user->q.cols(), model->spec.head_dim));
    }
  }
  const int dim = model ? model->spec.head_dim : opt.dim.value_or(kDefaultAttentionDim);
  const QueriesKeys qk = user ? QueriesKeys{user->q, user->k} : random_queries_keys(opt.tokens, dim, opt.seed);
  const Eigen::VectorXd positions = token_positions(opt.tokens);
  // dynamic and longrope: HF takes the frequencies at seq_len = max(position) + 1, so a shift past L0
  // changes them, and the scores with them: what the model does, not a bug.
  std::optional<std::pair<long, long>> regime_change;
  if (model && opt.shift) {
    const RopeSpec before = spec_at_position(model->spec, opt.tokens - 1.0);
    const RopeSpec after = spec_at_position(model->spec, std::abs(static_cast<double>(*opt.shift) + opt.tokens - 1.0));
    if (before.params.inv_freq != after.params.inv_freq || before.attention_factor() != after.attention_factor()) {
      regime_change = {before.config.seq_len.value_or(0), after.config.seq_len.value_or(0)};
    }
  }

  // Compute everything first, then write files, then print: a bad input leaves no file behind.
  struct Result {
    Encoding encoding;
    Setup setup;
    Eigen::MatrixXd a;
    Eigen::MatrixXd bias;  ///< ALiBi only
  };
  std::vector<Result> results;
  std::vector<ShiftRow> shifts;
  for (Encoding e : encodings) {
    Result r{e, setup_for(opt, e, model), {}, {}};
    r.a = attention_weights(qk.q, qk.k, positions, r.setup.settings);
    if (e == Encoding::Alibi) r.bias = alibi_bias(positions, r.setup.slope);
    if (opt.shift) {
      shifts.push_back(judge_shift(
          e, shift_test(qk.q, qk.k, positions, static_cast<double>(*opt.shift), r.setup.settings), t, opt.wide));
      if (e == Encoding::Rope && regime_change)
        mark_regime_change(shifts.back(), regime_change->first, regime_change->second, t, opt.wide);
      if (e == Encoding::Rope)
        mark_query_scaling_change(shifts.back(), r.setup.settings, positions, static_cast<double>(*opt.shift), t,
                                  opt.wide);
    }
    results.push_back(std::move(r));
  }
  const bool all_ok = std::all_of(shifts.begin(), shifts.end(), [](const ShiftRow& s) { return s.ok; });

  double shared_max = 0.0;  // --compare: one colour range for every heatmap of A
  for (const Result& r : results) shared_max = std::max(shared_max, r.a.maxCoeff());
  // --gif: every frame's weights first, so that --compare can put every encoding's frames on one scale.
  std::vector<std::vector<Eigen::MatrixXd>> frame_weights;
  std::vector<long> frame_shifts;
  double frames_max = 0.0;
  if (opt.figure.animated()) {  // every position + c_k, c_k from 0 to C (rope/analysis/motion.hpp)
    frame_shifts = motion::integer_sweep(*opt.shift, opt.figure.frame_count());
    for (const Result& r : results) {
      frame_weights.push_back(motion::shifted_weights(qk.q, qk.k, positions, r.setup.settings, frame_shifts));
      for (const Eigen::MatrixXd& a : frame_weights.back()) frames_max = std::max(frames_max, a.maxCoeff());
    }
  }
  for (std::size_t ri = 0; ri < results.size(); ++ri) {
    const Result& r = results[ri];
    const std::string name(to_string(r.encoding));
    if (!opt.csv.empty()) write_output(opt.compare ? with_suffix(opt.csv, name) : opt.csv, to_csv(r.a, "key_"), out);
    if (opt.figure.wanted()) {
      draw(attention_figure(opt.figure, r.encoding, r.setup.slope, opt.tokens, dim, opt.causal, r.a,
                            opt.compare ? std::optional(shared_max) : std::nullopt, r.setup.settings.scale),
           opt.compare ? figure_with_suffix(opt.figure, name) : opt.figure);
      if (r.encoding == Encoding::Alibi)
        draw(bias_figure(opt.figure, r.setup.slope, opt.head_value(), opt.heads_value(), opt.tokens, r.bias),
             figure_with_suffix(opt.figure, "alibi_bias"));
    }
    if (opt.figure.animated()) {
      const std::optional<double> shared = opt.compare ? std::optional(frames_max) : std::nullopt;
      std::vector<plot::Figure> frames;
      for (const Eigen::MatrixXd& a : frame_weights[ri]) {
        frames.push_back(attention_figure(opt.figure, r.encoding, r.setup.slope, opt.tokens, dim, opt.causal, a, shared,
                                          r.setup.settings.scale));
      }
      as_shift_frames(frames, frame_shifts, opt.figure, shared);
      draw_animation(std::move(frames), opt.compare ? figure_with_suffix(opt.figure, name) : opt.figure);
    }
  }
  if (opt.csv == "-") return all_ok ? kOk : kVerifyFailed;

  out << t.tr("rope attention: {0} tokens at positions 0 … {1}, d = {2}{3}{4}\n", opt.tokens, opt.tokens - 1, dim,
              user ? "" : t.tr(", seed {0}", opt.seed),
              opt.causal ? t.tr(",\n  causal mask (query i sees keys j <= i)") : "");
  out << (user
              ? t.tr("  q_i, k_j from --q and --k, one query and one key per token; A = softmax of each row of s\n")
              : t.tr(
                    "  q_i, k_j ~ N(0, I), one query and one key per token; A = softmax of each row of the scores s\n"))
      << t.tr("  (row i: query i, column j: key j; each row of A sums to 1)\n");
  if (opt.show_vectors) print_vectors(out, "q", qk.q), print_vectors(out, "k", qk.k);
  for (const Result& r : results) {
    out << fmt::format("\n{}\n", title_of(r.encoding, r.setup, opt, t));
    if (r.encoding == Encoding::Rope && model) {
      print_summary(out, model_score_lines(*model, r.setup.settings, positions, t));
    } else {
      out << "  " << formula(r.encoding, t) << '\n';
    }
    if (r.encoding == Encoding::Rope && model) {
      out << t.tr(
          "  R_p q is the model's rotation (scaling.md (S19)): its layout, its rotating channels, a·R_p on them\n");
      print_summary(out, spec_summary(*model, t));
      for (const Message& w : model->spec.params.warnings) out << t.tr("  warning: ") << w.in(t.lang()) << '\n';
    }
    if (r.encoding == Encoding::Alibi) {
      out << t.tr("  the slopes of the {0} heads (Press et al. §3): {1}\n", opt.heads_value(),
                  slope_list(opt.heads_value()));
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
    out << (opt.figure.wanted()
                ? t.tr("\n(the {0}×{0} matrix A: --csv FILE)\n", opt.tokens)
                : t.tr("\n(the {0}×{0} matrix A: --csv FILE, or --png FILE for a heatmap)\n", opt.tokens));
  }
  if (opt.shift) {
    out << '\n';
    const double a = model ? model->spec.attention_factor() : 1.0;
    print_shift_table(out, opt, shifts, t, a * a, model ? results.front().setup.settings.scale : std::nullopt);
  }
  if (opt.figure.wanted() && (opt.compare || encodings.front() == Encoding::Alibi)) {
    out << t.tr("\nfigures:");
    for (const Result& r : results) {
      const std::string name(to_string(r.encoding));
      const FigureOptions f = opt.compare ? figure_with_suffix(opt.figure, name) : opt.figure;
      for (const std::string* p : {&f.png, &f.svg, &f.pdf, &f.output}) {
        if (!p->empty()) out << ' ' << *p;
      }
      if (r.encoding == Encoding::Alibi) {
        const FigureOptions b = figure_with_suffix(opt.figure, "alibi_bias");
        for (const std::string* p : {&b.png, &b.svg, &b.pdf, &b.output}) {
          if (!p->empty()) out << ' ' << *p;
        }
      }
    }
    out << '\n';
  }
  return all_ok ? kOk : kVerifyFailed;
}

Command add_attention_command(CLI::App& app) {
  auto opt = std::make_shared<AttentionOptions>();
  CLI::App* sub = app.add_subcommand(
      "attention",
      "The attention matrix softmax(QKᵀ/√d) under RoPE, sinusoidal, ALiBi or no encoding, and the shift test");
  CLI::Option* tokens =
      add_int_option(*sub, "-n,--tokens", opt->tokens, fmt::format("number of tokens N (1 … {})", kMaxAttentionTokens));
  add_int_option(*sub, "-d,--dim", opt->dim, kDefaultAttentionDim,
                 fmt::format("head dimension d: even, 2 … {} (with --model: the model's head_dim)", kMaxAttentionDim));
  add_query_key_options(*sub, opt->q, opt->k,
                        "the queries q_i instead of random ones: a vector per token, d numbers each, "
                        "comma-separated, vectors separated by ';' (1,0;0,1), or @FILE (CSV, a row per token)",
                        "the keys k_j instead of random ones, as --q (as many vectors, of the same length)");
  sub->add_flag("--show-vectors", opt->show_vectors, "print every q_i and k_j in full (shortest round-trip decimals)");
  CLI::Option* encoding =
      add_choice_option(*sub, "-e,--encoding", opt->encoding, {"rope", "sinusoidal", "alibi", "none"}, parse_encoding,
                        "rope, sinusoidal, alibi or none", "ENC")
          ->default_str(std::string(to_string(Encoding::Rope)));
  add_long_option(*sub, "--shift", opt->shift, 0,
                  "run the shift test: move every position by the integer C, report how much the scores change")
      ->default_str("");  // optional: no shift test without it
  sub->add_flag("--causal", opt->causal, "causal mask: query i sees keys j <= i only");
  sub->add_flag("--compare", opt->compare,
                "every encoding, with the same q and k; figures and CSV go to FILE_rope, FILE_sinusoidal, …")
      ->excludes(encoding);
  add_seed_option(*sub, opt->seed, "seed of the random q_i and k_j (same seed, same output)");
  add_base_option(*sub, opt->base);
  add_int_option(*sub, "--heads", opt->heads, kDefaultHeads, "ALiBi: number of heads n, for the slopes (1 … 1024)");
  add_int_option(*sub, "--head", opt->head, kDefaultHead, "ALiBi: which head's slope, 1 … n (1 is the steepest)");
  sub->add_option("--csv", opt->csv,
                  "write A to FILE: the header key_0,…,key_(N−1), then one row per query i ('-' for stdout)")
      ->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  add_animation_options(*sub, opt->figure, "animate the shift test to a GIF: the shift grows from 0 to C");
  add_wide_option(*sub, opt->wide);
  add_digits_option(*sub, opt->digits, "3", kDigitsHelp);
  sub->footer(
      "Figures: FILE gets the heatmap of A; with --encoding alibi, FILE_alibi_bias gets the bias;\n"
      "with --compare, FILE itself is not written: FILE_rope, FILE_sinusoidal, FILE_alibi, FILE_alibi_bias\n"
      "and FILE_none are (same extension).\n"
      "Exit codes: 0 ok; 1 the shift test failed (RoPE beyond rounding, ALiBi or none not exactly 0).\n\n"
      "Example:\n  rope attention --tokens 6 --dim 8 --shift 100\n"
      "  rope attention --tokens 6 --dim 8 --shift 100 --encoding sinusoidal\n"
      "  rope attention --tokens 32 --dim 64 --compare --causal --png attention.png\n"
      "  rope attention --tokens 6 --model gpt-oss-20b --shift 100");
  add_scaling_options(*sub, opt->scaling);
  opt->scaling.axis_blocks = true;  // (V6): spec_apply places the pairs inside each axis's block
  return {sub, [opt, tokens](std::ostream& out) {
            opt->tokens_given = tokens->count() > 0;
            return run_attention(*opt, out);
          }};
}

}  // namespace rope::cli
