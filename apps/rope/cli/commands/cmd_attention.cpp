// rope attention: the attention matrix softmax(QKᵀ/√d) of random queries and keys under RoPE, the
// additive sinusoidal encoding, ALiBi or no encoding, and the shift test: move every position by C and
// see whether the scores change (docs/math.md (M8), (M12), (M13); Press et al. 2021 for ALiBi).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/printing.hpp"
#include "rope/cli/figures/attention_figure.hpp"
#include "rope/cli/figures/motion_figures.hpp"
#include "rope/analysis/motion.hpp"
#include "rope/analysis/alibi.hpp"
#include "rope/analysis/attention.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/random.hpp"

namespace rope::cli {

/// Matrices are printed up to this many tokens; beyond, the CSV or the figure shows them.
inline constexpr int kMaxPrintedTokens = 16;
/// A heatmap with more rows than the figure has pixels shows nothing more (and makes gnuplot slow).
inline constexpr int kMaxFigureTokens = 512;
/// |C| for --shift: beyond, the (M13) tolerance of RoPE grows past 1e-5 of the score.
inline constexpr long kMaxShift = 1'000'000'000;

/// --heads and --head when not typed.
inline constexpr int kDefaultHeads = 8;
inline constexpr int kDefaultHead = 1;

struct AttentionOptions {
  int tokens = 8;
  int dim = 8;
  std::optional<Encoding> encoding;  ///< --encoding; nullopt: rope
  std::optional<long> shift;         ///< --shift C: run the shift test
  bool causal = false;
  bool compare = false;
  std::uint64_t seed = kDefaultSeed;
  std::optional<double> base;  ///< --base, for rope and sinusoidal
  std::optional<int> heads;    ///< --heads, for alibi
  std::optional<int> head;     ///< --head, for alibi
  std::string csv;
  FigureOptions figure;

  Encoding encoding_value() const { return encoding.value_or(Encoding::Rope); }
  double base_value() const { return base.value_or(kDefaultBase); }
  int heads_value() const { return heads.value_or(kDefaultHeads); }
  int head_value() const { return head.value_or(kDefaultHead); }
};

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
  for (std::string* path : {&f.png, &f.svg, &f.pdf, &f.output, &f.keep_script, &f.gif}) *path = with_suffix(*path, suffix);
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

Setup setup_for(const AttentionOptions& opt, Encoding encoding) {
  Setup s;
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
      return t("s_ij = <R_i q_i, R_j k_j>/√d, R_p the rotation of position p (docs/math.md (M5), (M8))",
               "s_ij = <R_i q_i, R_j k_j>/√d,R_p 是位置 p 的旋转(docs/math.md (M5), (M8))");
    case Encoding::Sinusoidal:
      return t("s_ij = <q_i + p_i, k_j + p_j>/√d, p_t the sinusoidal encoding of position t (docs/math.md (M12))",
               "s_ij = <q_i + p_i, k_j + p_j>/√d,p_t 是位置 t 的正弦编码(docs/math.md (M12))");
    case Encoding::Alibi: return "s_ij = q_i·k_j/√d − m·|i − j| (Press et al. 2021, arXiv:2108.12409)";
    default: return t("s_ij = q_i·k_j/√d: no position enters the score", "s_ij = q_i·k_j/√d:得分中不含任何位置");
  }
}

std::string title_of(Encoding e, const Setup& s, const AttentionOptions& opt, const Text& t) {
  switch (e) {
    case Encoding::Rope: return fmt::format("RoPE, base = {}", format_number(opt.base_value()));
    case Encoding::Sinusoidal: return t.format("additive sinusoidal, base = {}", "加性正弦编码,base = {}", format_number(opt.base_value()));
    case Encoding::Alibi:
      return t.format("ALiBi, m = {} (head {} of {})", "ALiBi,m = {0}(共 {2} 个头中的第 {1} 个)", format_number(s.slope), opt.head_value(),
                      opt.heads_value());
    default: return t("no position encoding", "无位置编码");
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

std::string sci(double x) { return x == 0.0 ? std::string("0") : fmt::format("{:.2e}", x); }

/// One row of the shift table and whether it is what the encoding promises.
struct ShiftRow {
  Encoding encoding;
  ShiftReport report;
  bool ok;
  std::string verdict;
};

ShiftRow judge(Encoding e, const ShiftReport& r, const Text& t) {
  const std::string bug = t("CHANGED (a bug)", "改变了(这是错误)");
  switch (e) {
    case Encoding::Rope:
      return {e, r, r.check.passed(),
              r.check.passed() ? t("invariant: rounding only, within the tolerance", "不变:只有舍入误差,在容差之内")
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

void print_shift_table(std::ostream& out, const AttentionOptions& opt, const std::vector<ShiftRow>& rows, const Text& t) {
  const long shift = opt.shift.value_or(0);
  out << t.format("shift test: every position moves by C = {} (positions 0 … {} → {} … {}), same q_i and k_j\n",
                  "平移检验:每个位置都移动 C = {}(位置 0 … {} → {} … {}),q_i 和 k_j 不变\n", shift, opt.tokens - 1, shift,
                  shift + opt.tokens - 1);
  out << t.format("  |Δ|/S with S = ‖q_i‖‖k_j‖/√d; tolerance {:g}·ε·(d + M) on it, M = |i| + |j| + |i + C| + |j + C| (M13)\n\n",
                  "  |Δ|/S,其中 S = ‖q_i‖‖k_j‖/√d;它的容差为 {:g}·ε·(d + M),M = |i| + |j| + |i + C| + |j + C| (M13)\n\n",
                  kToleranceSafety);
  out << fmt::format("  {:<11}  {:>12}  {:>10}  {:>10}  {:>12}  {}\n", t("encoding", "编码"), "max |Δ s_ij|", "max |Δ|/S",
                     t("tolerance", "容差"), "max |Δ A_ij|", t("result", "结果"));
  for (const ShiftRow& row : rows) {
    const ShiftReport& r = row.report;
    const bool exact = row.encoding == Encoding::Alibi || row.encoding == Encoding::None;
    out << fmt::format("  {:<11}  {:>12}  {:>10}  {:>10}  {:>12}  {}\n", to_string(row.encoding), sci(r.max_abs_change),
                       sci(r.check.relative_error()), exact ? t("0 (exact)", "0(精确)") : sci(r.check.tolerance), sci(r.max_weight_change),
                       row.verdict);
  }
  out << '\n';
  for (const ShiftRow& row : rows) {
    switch (row.encoding) {
      case Encoding::Rope:
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

void check_options(const AttentionOptions& opt) {
  if (opt.tokens < 1 || opt.tokens > kMaxAttentionTokens) {
    throw InvalidArgument(fmt::format("--tokens must be between 1 and {} (got {})", kMaxAttentionTokens, opt.tokens));
  }
  check_dimension(opt.dim, kMaxAttentionDim, "--dim");
  const Encoding encoding = opt.encoding_value();
  if (opt.compare && opt.encoding) {
    throw InvalidArgument("--compare draws every encoding: leave out --encoding");
  }
  check_base(opt.base_value());
  if (opt.base && !opt.compare && encoding != Encoding::Rope && encoding != Encoding::Sinusoidal) {
    throw InvalidArgument(fmt::format("--base applies to --encoding rope and sinusoidal (got --encoding {})", to_string(encoding)));
  }
  if ((opt.heads || opt.head) && !opt.compare && encoding != Encoding::Alibi) {
    throw InvalidArgument(fmt::format("--heads and --head apply to --encoding alibi (got --encoding {})", to_string(encoding)));
  }
  const int heads = opt.heads_value();
  const int head = opt.head_value();
  if (heads < 1 || heads > kMaxAlibiHeads) {
    throw InvalidArgument(fmt::format("--heads must be between 1 and {} (got {})", kMaxAlibiHeads, heads));
  }
  if (head < 1 || head > heads) {
    throw InvalidArgument(fmt::format("--head must be between 1 and --heads = {} (got {})", heads, head));
  }
  const long shift = opt.shift.value_or(0);
  if (shift < -kMaxShift || shift > kMaxShift) {
    throw InvalidArgument(fmt::format("--shift must be between -{} and {} (got {})", kMaxShift, kMaxShift, shift));
  }
  check_figure_options(opt.figure);
  if (opt.figure.animated() && !opt.shift) throw InvalidArgument("--gif animates the shift test: add --shift C");
  if ((opt.figure.wanted() || opt.figure.animated()) && opt.tokens > kMaxFigureTokens) {
    throw InvalidArgument(fmt::format("a figure shows at most {} tokens (got --tokens {}): use --csv for more",
                                      kMaxFigureTokens, opt.tokens));
  }
  if (opt.compare && opt.csv == "-") {
    throw InvalidArgument("--compare writes one CSV per encoding: give --csv FILE, not '-'");
  }
}

}  // namespace

int run_attention(const AttentionOptions& opt, std::ostream& out) {
  check_options(opt);
  std::vector<Encoding> encodings;
  if (opt.compare) {
    encodings.assign(std::begin(kAllEncodings), std::end(kAllEncodings));
  } else {
    encodings.push_back(opt.encoding_value());
  }
  const Text t = opt.figure.tr();
  const QueriesKeys qk = random_queries_keys(opt.tokens, opt.dim, opt.seed);
  const Eigen::VectorXd positions = token_positions(opt.tokens);

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
    Result r{e, setup_for(opt, e), {}, {}};
    r.a = attention_weights(qk.q, qk.k, positions, r.setup.settings);
    if (e == Encoding::Alibi) r.bias = alibi_bias(positions, r.setup.slope);
    if (opt.shift) {
      shifts.push_back(judge(e, shift_test(qk.q, qk.k, positions, static_cast<double>(*opt.shift), r.setup.settings), t));
    }
    results.push_back(std::move(r));
  }
  const bool all_ok = std::all_of(shifts.begin(), shifts.end(), [](const ShiftRow& s) { return s.ok; });

  for (const Result& r : results) {
    const std::string name(to_string(r.encoding));
    if (!opt.csv.empty()) write_output(opt.compare ? with_suffix(opt.csv, name) : opt.csv, to_csv(r.a, "key_"), out);
    if (opt.figure.wanted()) {
      draw(attention_figure(opt.figure, r.encoding, r.setup.slope, opt.tokens, opt.dim, opt.causal, r.a), opt.compare ? figure_with_suffix(opt.figure, name) : opt.figure);
      if (r.encoding == Encoding::Alibi) draw(bias_figure(opt.figure, r.setup.slope, opt.head_value(), opt.heads_value(), opt.tokens, r.bias), figure_with_suffix(opt.figure, "alibi_bias"));
    }
    if (opt.figure.animated()) {  // every position + c_k, c_k from 0 to C (rope/analysis/motion.hpp)
      const std::vector<long> shifts = motion::integer_sweep(*opt.shift, opt.figure.frame_count());
      std::vector<plot::Figure> frames;
      for (const Eigen::MatrixXd& a : motion::shifted_weights(qk.q, qk.k, positions, r.setup.settings, shifts)) {
        frames.push_back(attention_figure(opt.figure, r.encoding, r.setup.slope, opt.tokens, opt.dim, opt.causal, a));
      }
      as_shift_frames(frames, shifts, opt.figure);
      draw_animation(std::move(frames), opt.compare ? figure_with_suffix(opt.figure, name) : opt.figure);
    }
  }
  if (opt.csv == "-") return all_ok ? kOk : kVerifyFailed;

  out << t.format("rope attention: {} tokens at positions 0 … {}, d = {}, seed {}{}\n",
                  "rope attention:{} 个词元,位置 0 … {},d = {},种子 {}{}\n", opt.tokens, opt.tokens - 1, opt.dim, opt.seed,
                  opt.causal ? t(", causal mask (query i sees keys j <= i)", ",因果掩码(查询 i 只看键 j <= i)") : "");
  out << t("  q_i, k_j ~ N(0, I), one query and one key per token; A = softmax of each row of the scores s\n"
           "  (row i: query i, column j: key j; each row of A sums to 1)\n",
           "  q_i, k_j ~ N(0, I),每个词元一个查询和一个键;A = 对得分 s 的每一行做 softmax\n"
           "  (第 i 行:查询 i,第 j 列:键 j;A 的每一行之和为 1)\n");
  for (const Result& r : results) {
    out << fmt::format("\n{}\n  {}\n", title_of(r.encoding, r.setup, opt, t), formula(r.encoding, t));
    if (r.encoding == Encoding::Alibi) {
      out << t.format("  the slopes of the {} heads (Press et al. §3): {}\n", "  {} 个头的斜率(Press et al. §3):{}\n",
                      opt.heads_value(), slope_list(opt.heads_value()));
    }
    if (opt.tokens <= kMaxPrintedTokens) {
      out << t("\nattention A_ij\n", "\n注意力 A_ij\n");
      print_matrix(out, r.a, kAttentionMatrix);
      if (r.encoding == Encoding::Alibi) {
        out << t("\nALiBi bias −m·|i − j|, added to q_i·k_j/√d\n", "\nALiBi 偏置 −m·|i − j|,加到 q_i·k_j/√d 上\n");
        print_matrix(out, r.bias, kBiasMatrix);
      }
    }
  }
  if (opt.tokens > kMaxPrintedTokens) {
    out << t.format("\n(the {0}×{0} matrix A: --csv FILE, or --png FILE for a heatmap)\n",
                    "\n({0}×{0} 的矩阵 A:用 --csv FILE 输出,或用 --png FILE 画热图)\n", opt.tokens);
  }
  if (opt.shift) {
    out << '\n';
    print_shift_table(out, opt, shifts, t);
  }
  if (opt.figure.wanted() && (opt.compare || encodings.front() == Encoding::Alibi)) {
    out << t("\nfigures:", "\n图:");
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
      "attention", "The attention matrix softmax(QKᵀ/√d) under RoPE, sinusoidal, ALiBi or no encoding, and the shift test");
  add_int_option(*sub, "-n,--tokens", opt->tokens, fmt::format("number of tokens N (1 … {})", kMaxAttentionTokens));
  add_int_option(*sub, "-d,--dim", opt->dim, fmt::format("head dimension d: even, 2 … {}", kMaxAttentionDim));
  add_choice_option(*sub, "-e,--encoding", opt->encoding, {"rope", "sinusoidal", "alibi", "none"}, parse_encoding,
                    "rope, sinusoidal, alibi or none", "ENC")
      ->default_str(std::string(to_string(Encoding::Rope)));
  add_long_option(*sub, "--shift", opt->shift, 0,
                  "run the shift test: move every position by the integer C, report how much the scores change")
      ->default_str("");  // optional: no shift test without it
  sub->add_flag("--causal", opt->causal, "causal mask: query i sees keys j <= i only");
  sub->add_flag("--compare", opt->compare,
                "every encoding, with the same q and k; figures and CSV go to FILE_rope, FILE_sinusoidal, …");
  add_seed_option(*sub, opt->seed, "seed of the random q_i and k_j (same seed, same output)");
  add_base_option(*sub, opt->base);
  add_int_option(*sub, "--heads", opt->heads, kDefaultHeads, "ALiBi: number of heads n, for the slopes (1 … 1024)");
  add_int_option(*sub, "--head", opt->head, kDefaultHead, "ALiBi: which head's slope, 1 … n (1 is the steepest)");
  sub->add_option("--csv", opt->csv, "write A to FILE: the header key_0,…,key_(N−1), then one row per query i ('-' for stdout)")
      ->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  add_animation_options(*sub, opt->figure, "animate the shift test to a GIF: the shift grows from 0 to C");
  sub->footer(
      "Figures: FILE gets the heatmap of A; with --encoding alibi, FILE_alibi_bias gets the bias;\n"
      "with --compare, FILE itself is not written: FILE_rope, FILE_sinusoidal, FILE_alibi, FILE_alibi_bias\n"
      "and FILE_none are (same extension).\n"
      "Exit codes: 0 ok; 1 the shift test failed (RoPE beyond rounding, ALiBi or none not exactly 0).\n\n"
      "Example:\n  rope attention --tokens 6 --dim 8 --shift 100\n"
      "  rope attention --tokens 6 --dim 8 --shift 100 --encoding sinusoidal\n"
      "  rope attention --tokens 32 --dim 64 --compare --causal --png attention.png");
  return {sub, [opt](std::ostream& out) { return run_attention(*opt, out); }};
}

}  // namespace rope::cli
