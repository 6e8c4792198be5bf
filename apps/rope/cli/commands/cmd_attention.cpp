// rope attention: the attention matrix softmax(QKᵀ/√d) of random queries and keys under RoPE, the
// additive sinusoidal encoding, ALiBi or no encoding, and the shift test: move every position by C and
// see whether the scores change (docs/math.md (M8), (M12), (M13); Press et al. 2021 for ALiBi). The computation
// is rope/analysis/teaching/attention_run.hpp, its report (text, JSON) rope/report/attention_report.hpp.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "rope/analysis/teaching/alibi.hpp"
#include "rope/analysis/teaching/attention_run.hpp"
#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/commands/attention_options.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/figures/attention_figure.hpp"
#include "rope/cli/figures/motion_figures.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/vector_options.hpp"
#include "rope/cli/report_output.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/report/attention_report.hpp"

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
}

/// The request of the options (checked): the user's vectors set N and d, a model its head_dim; the files of
/// the figures listed after the report (with --compare or ALiBi, which write more than FILE).
AttentionRequest attention_request(const AttentionOptions& typed) {
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
  AttentionRequest r;
  if (opt.compare) {
    r.encodings.assign(std::begin(kAllEncodings), std::end(kAllEncodings));
  } else {
    r.encodings.push_back(opt.encoding_value());
  }
  // With a model: its spec (S19), its head_dim (a typed --dim overrides it, as the origin says); the
  // user's vectors must have the model's d.
  if (opt.scaling.any()) {
    r.model = resolve(opt.scaling,
                      {opt.dim, kDefaultAttentionDim, opt.base, kDefaultBase, std::nullopt, Layout::Interleaved});
    check_dimension(r.model->spec.head_dim, kMaxAttentionDim, "head_dim");
    if (user && user->q.cols() != r.model->spec.head_dim) {
      throw InvalidArgument(error_msg("--q and --k have {0} numbers, but the model's head dimension d is {1}",
                                      user->q.cols(), r.model->spec.head_dim));
    }
  }
  r.tokens = opt.tokens;
  r.dim = r.model ? r.model->spec.head_dim : opt.dim.value_or(kDefaultAttentionDim);
  if (user) r.user = QueriesKeys{user->q, user->k};
  r.compare = opt.compare;
  r.shift = opt.shift;
  r.causal = opt.causal;
  r.seed = opt.seed;
  r.base = opt.base_value();
  r.heads = opt.heads_value();
  r.head = opt.head_value();
  r.frames = opt.figure.animated() ? opt.figure.frame_count() : 0;
  r.wide = opt.wide;
  r.show_vectors = opt.show_vectors;
  r.figure = opt.figure.wanted();
  r.csv_stdout = csv_to_standard_output(opt.csv);
  return r;
}

/// The CSV, the heatmaps and the GIF of the run (every one computed first: a bad input leaves no file behind).
void write_files(const AttentionOptions& opt, const AttentionRun& run, std::ostream& out) {
  const int dim = static_cast<int>(run.qk.q.cols());
  for (std::size_t ri = 0; ri < run.results.size(); ++ri) {
    const AttentionResult& r = run.results[ri];
    const std::string name(to_string(r.encoding));
    if (!opt.csv.empty()) write_output(opt.compare ? with_suffix(opt.csv, name) : opt.csv, to_csv(r.a, "key_"), out);
    if (opt.figure.wanted()) {
      draw(attention_figure(opt.figure, r.encoding, r.slope, run.request.tokens, dim, opt.causal, r.a,
                            opt.compare ? std::optional(run.shared_max) : std::nullopt, r.settings.scale),
           opt.compare ? figure_with_suffix(opt.figure, name) : opt.figure);
      if (r.encoding == Encoding::Alibi)
        draw(bias_figure(opt.figure, r.slope, opt.head_value(), opt.heads_value(), run.request.tokens, r.bias),
             figure_with_suffix(opt.figure, "alibi_bias"));
    }
    if (opt.figure.animated()) {
      const std::optional<double> shared = opt.compare ? std::optional(run.frames_max) : std::nullopt;
      std::vector<plot::Figure> frames;
      for (const Eigen::MatrixXd& a : run.frame_weights[ri]) {
        frames.push_back(attention_figure(opt.figure, r.encoding, r.slope, run.request.tokens, dim, opt.causal, a,
                                          shared, r.settings.scale));
      }
      as_shift_frames(frames, run.frame_shifts, opt.figure, shared);
      draw_animation(std::move(frames), opt.compare ? figure_with_suffix(opt.figure, name) : opt.figure);
    }
  }
}

}  // namespace

int run_attention(const AttentionOptions& opt, std::ostream& out) {
  const AttentionRun run = rope::run_attention(attention_request(opt));
  write_files(opt, run, out);
  emit_report(out, run, {opt.json, opt.figure.tr().lang(), opt.digits, opt.csv});
  return run.passed ? kOk : kVerifyFailed;
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
  sub->add_flag("--json", opt->json,
                "print JSON: the settings, each encoding's A_00 (and A up to 16 tokens) and the shift test's rows");
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
