// rope permute: the q/k row order llama.cpp's converter applies (convert_hf_to_gguf.py LlamaModel.permute),
// the proof that NORM on permuted weights equals rotate_half on Hugging Face's, and the GQA bug of
// permuting k with the query head count (ggml-org/llama.cpp #2376, #3018). rope/analysis/permutation.hpp
// does the work.
#include <CLI/CLI.hpp>
#include <cmath>
#include <fmt/format.h>
#include <memory>

#include "rope/analysis/permutation.hpp"
#include "rope/cli/commands.hpp"
#include "rope/report/digits.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/utf8.hpp"
#include "rope/models/gguf/gguf_config.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/scaling/scaling.hpp"

namespace rope::cli {

struct PermuteOptions {
  PermuteSettings settings;
  std::optional<int> head_dim;
  std::optional<long> heads, kv_heads;
  std::optional<double> base;
  std::string config;
  std::string layer_type;  ///< --layer-type: the RoPE (rotary dim, base) of this layer type of --config's model
  std::string csv;
  FigureOptions figure;
  std::optional<int> digits;  ///< --digits N: significant digits of the difference and its tolerance (digits.hpp)
};

namespace {

/// `prefix` and the order in full up to 64 rows, else its first 16 and the number of rows; broken into
/// lines of at most 100 columns, each ended by '\n'.
std::string order_text(const std::string& prefix, const std::vector<long>& order) {
  const std::size_t shown = order.size() <= 64 ? order.size() : 16;
  std::vector<std::string> items;
  for (std::size_t r = 0; r < shown; ++r) items.push_back(std::to_string(order[r]));
  if (shown < order.size()) items.push_back("…");
  std::string text;
  for (const std::string& line : wrapped_list(prefix, items)) text += line + "\n";
  if (shown < order.size()) text.insert(text.size() - 1, fmt::format(" ({} rows)", order.size()));
  return text;
}

plot::Figure make_figure(const PermuteDemo& d, const FigureOptions& f) {
  const long hd = d.settings.head_dim;
  const long shown = std::min<long>(static_cast<long>(d.k_order.size()), 2 * hd);  // two KV heads at most
  const auto series = [&](const std::vector<long>& order) {
    Eigen::VectorXd x(shown), y(shown);
    for (long r = 0; r < shown; ++r) {
      x[r] = static_cast<double>(r);
      y[r] = static_cast<double>(order[static_cast<std::size_t>(r)]);
    }
    return std::make_pair(x, y);
  };
  plot::Figure fig;
  fig.title = f.tr("llama.cpp's q/k row order: head_dim {0}, {1} query heads, {2} KV heads", hd, d.settings.n_head,
                   d.settings.n_head_kv);
  fig.xlabel = f.tr("GGUF row r");
  fig.ylabel = f.tr("the Hugging Face row it holds");
  fig.key = plot::Figure::Key::Below;
  auto [x, y] = series(d.k_order);
  plot::Series correct{f.tr("q and k, each permuted with its own head count (n_head, n_head_kv): correct"), x, y, 2};
  // Joined by lines, a zigzag of more than about 16 rows per head fills a solid band that hides the other
  // order: then both are drawn as points only (two rising lines of points per head).
  const bool joined_lines = hd <= 16;
  plot::Series joined{"", x, y, 2};  // the points of the correct order, joined
  joined.line_width = 1.5;
  if (joined_lines) fig.series.push_back(joined);
  correct.points = true;
  fig.series.push_back(correct);
  if (d.k_order_bug) {
    auto [bx, by] = series(*d.k_order_bug);
    plot::Series bug{f.tr("k permuted with n_head: the GQA bug (llama.cpp #2376)"), bx, by, 5};
    bug.dashed = joined_lines;
    bug.points = !joined_lines;
    fig.series.push_back(bug);
  }
  fig.lines.push_back({plot::ReferenceLine::Axis::X, static_cast<double>(hd) - 0.5, f.tr("next head"), -1});
  return fig;
}

}  // namespace

int run_permute(const PermuteOptions& opt, std::ostream& out) {
  PermuteSettings s = opt.settings;
  const Text t = opt.figure.tr();
  std::string source = t.tr("the command line");
  if (!opt.config.empty()) {
    // The model's RoPE as every command resolves it (models/resolve.hpp): a typed --head-dim or --base is the
    // model's head_dim or rope_theta, its scaling kept; the rows per head are its rotating channels.
    RopeOverrides o;
    o.head_dim = opt.head_dim;
    o.base = opt.base;
    o.layer_type = opt.layer_type;  // a model whose layer types differ in head_dim, rotary dim or base (Gemma 3, 4)
    const ModelRope r = resolve_model_rope({"", opt.config}, o);
    const AttentionShape a = read_attention_shape(opt.config);
    s.head_dim = r.spec.rotary_dim;
    s.n_head = a.n_head;
    s.n_head_from = fmt::format("{}: {}", escape_controls(opt.config),
                                a.gguf ? a.architecture + ".attention.head_count" : std::string("num_attention_heads"));
    s.n_head_kv = a.n_head_kv;
    s.base = r.spec.config.base;
    s.inv_freq = r.spec.params.inv_freq;
    source = (a.gguf ? t.tr("{0} (GGUF, architecture {1})", r.spec.name, r.spec.model_type) : r.spec.name) +
             layer_text(r.spec, t);
  } else {  // plain RoPE of the typed size and base
    if (opt.head_dim) s.head_dim = *opt.head_dim;
    if (opt.base) s.base = *opt.base;
  }
  if (opt.heads) {
    s.n_head = *opt.heads;
    s.n_head_from.clear();  // typed: the refusal names the count, not the file
  }
  if (opt.kv_heads) s.n_head_kv = *opt.kv_heads;
  check_figure_options(opt.figure);
  const PermuteDemo d = permute_demo(s);
  const int exit_code = d.passed() ? kOk : kVerifyFailed;
  if (!opt.csv.empty()) {
    Table table{{"distance", "score_hf", "score_gguf"}, {d.distances, d.score_hf, d.score_gguf}};
    if (d.k_order_bug) {
      table.header.push_back("score_bug");
      table.columns.push_back(d.score_bug);
    }
    write_output(opt.csv, to_csv(table), out);
  }
  draw(make_figure(d, opt.figure), opt.figure);
  if (opt.csv == "-") return exit_code;

  const long hd = s.head_dim;
  out << t.tr("rope permute: llama.cpp's q/k row order, from {0}:\n  head_dim {1}, {2} query heads, {3} KV heads\n",
              source, hd, s.n_head, s.n_head_kv);
  out << t.tr(
      "convert_hf_to_gguf.py reorders the rows of q_proj and k_proj, head by head (G1):\n"
      "  GGUF row h·hd + 2j + s holds HF row h·hd + s·hd/2 + j   (s = 0, 1; j < hd/2)\n"
      "so HF's rotate_half pair (j, j + hd/2) becomes llama.cpp's NORM pair (2j, 2j+1), same frequency θ_j.\n\n");
  out << t.tr("the row map (GGUF row r holds HF row order[r]):\n");
  out << order_text(t.tr("  q_proj, permute(q, n_head = {0}):      ", s.n_head), d.q_order);
  out << order_text(t.tr("  k_proj, permute(k, n_head_kv = {0}):   ", s.n_head_kv), d.k_order);
  if (d.k_order_bug && s.n_head != s.n_head_kv) {
    out << order_text(t.tr("  k_proj permuted with n_head = {0} (the bug): ", s.n_head), *d.k_order_bug);
  } else if (!d.k_order_bug) {
    out << t.tr(
        "  k_proj permuted with n_head = {0}: the converter's reshape fails ({1} rows are not {2} heads of two halves)\n",
        s.n_head, d.k_order.size(), s.n_head);
  }
  out << t.tr(
      "\nscores of random HF weights (seed {0}, model dim {1}),\n  query at m = {2}, key at m + δ, δ = 0 … {3}, every head "
      "({4} scores):\n",
      s.seed, s.width, format_number(s.m), s.max_distance, d.scores);
  out << t.tr("  (a) rotate_half on the HF weights (Hugging Face)\n  (b) NORM on the permuted weights (llama.cpp)\n");
  // The difference against its tolerance, with the digits that tell them apart (digits.hpp), or --digits N.
  const std::vector<std::string> shown = compared({d.max_fix_difference, d.tolerance}, opt.digits);
  out << t.tr("  max |(b) − (a)| = {0} (tolerance 2·γ_hd·Σ|terms| = {1}){2}  {3}\n", shown[0], shown[1],
              d.max_fix_difference == 0.0 ? t.tr(": equal bit for bit") : "", d.passed() ? t.tr("PASS") : t.tr("FAIL"));
  if (s.n_head == s.n_head_kv) {
    out << t.tr("  no GQA (n_head = n_head_kv): permuting k with n_head is the same permutation, no bug to show\n");
  } else if (d.k_order_bug) {
    out << t.tr("  (c) NORM with k permuted by n_head instead of n_head_kv (llama.cpp #2376, #3018)\n");
    out << t.tr(
        "  |(c) − (a)| up to {0:.6g}, {1:.6g} on average; the scores themselves have size (rms) {2:.6g}:\n"
        "  no error is raised, the model just attends elsewhere (\"gibberish after conversion\")\n",
        d.max_bug_difference, d.mean_bug_difference, d.score_rms);
  }
  if (opt.csv.empty()) out << t.tr("(head 0's scores at every distance: --csv FILE)\n");
  if (exit_code != kOk) out << t.tr("\nPERMUTATION CHECK FAILED\n");
  return exit_code;
}

Command add_permute_command(CLI::App& app) {
  auto opt = std::make_shared<PermuteOptions>();
  PermuteSettings& s = opt->settings;
  CLI::App* sub =
      app.add_subcommand("permute", "The q/k row order of llama.cpp's converter, its proof, and the GQA bug");
  add_int_option(*sub, "--head-dim", opt->head_dim, s.head_dim, "rows per head: even, 2 … 4096");
  add_long_option(*sub, "--heads", opt->heads, s.n_head, "query heads n_head");
  add_long_option(*sub, "--kv-heads", opt->kv_heads, s.n_head_kv,
                  "key/value heads n_head_kv (GQA: fewer than --heads)");
  add_base_option(*sub, opt->base, s.base);
  sub->add_option("--config", opt->config, "read the heads and the RoPE from a GGUF file or a Hugging Face config.json")
      ->type_name("FILE");
  sub->add_option("--layer-type", opt->layer_type,
                  "with --config: the RoPE of this layer type (rope inspect lists them) or of this layer index; "
                  "layer types may differ in head size and base (Gemma 3, Gemma 4)")
      ->type_name("NAME")
      ->needs("--config");
  add_int_option(*sub, "--model-dim", s.width,
                 fmt::format("columns of the random weights (the model width): 1 … {}", kMaxPermuteWidth));
  add_seed_option(*sub, s.seed, "seed of the random weights and inputs (same seed, same output)");
  add_real_option(*sub, "--position", s.m, "the query's position m (|m| <= 1e9)");
  add_long_option(*sub, "--max-distance", s.max_distance,
                  fmt::format("keys at m + δ, δ = 0 … max-distance (0 … {})", kMaxPermuteDistance));
  sub->add_option("--csv", opt->csv, "write distance,score_hf,score_gguf[,score_bug] (head 0) to FILE ('-' for stdout)")
      ->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  add_digits_option(*sub, opt->digits, "3", kDigitsHelp);
  sub->footer(
      "Example:\n  rope permute\n  rope permute --head-dim 128 --heads 64 --kv-heads 8 --png permute.png\n"
      "  rope permute --config data/gguf/llama-3.1-8b.gguf");
  return {sub, [opt](std::ostream& out) { return run_permute(*opt, out); }};
}

}  // namespace rope::cli
