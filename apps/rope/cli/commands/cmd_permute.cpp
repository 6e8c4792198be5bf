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
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/cli/printing.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/gguf_config.hpp"
#include "rope/models/scaling.hpp"

namespace rope::cli {

struct PermuteOptions {
  PermuteSettings settings;
  std::optional<int> head_dim;
  std::optional<long> heads, kv_heads;
  std::optional<double> base;
  std::string config;
  std::string csv;
  FigureOptions figure;
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
  fig.title = fmt::format(f.text("llama.cpp's q/k row order: head_dim {}, {} query heads, {} KV heads",
                                 "llama.cpp 的 q/k 行顺序:head_dim {},{} 个查询头,{} 个 KV 头"),
                          hd, d.settings.n_head, d.settings.n_head_kv);
  fig.xlabel = f.text("GGUF row r", "GGUF 中的行 r");
  fig.ylabel = f.text("the Hugging Face row it holds", "它来自的 Hugging Face 行");
  fig.key = plot::Figure::Key::Below;
  auto [x, y] = series(d.k_order);
  plot::Series correct{f.text("q and k, each permuted with its own head count (n_head, n_head_kv): correct",
                              "q 与 k 各按自己的头数(n_head、n_head_kv)置换:正确"), x, y, 2};
  plot::Series joined{"", x, y, 2};  // the points of the correct order, joined
  joined.line_width = 1.5;
  fig.series.push_back(joined);
  correct.points = true;
  fig.series.push_back(correct);
  if (d.k_order_bug) {
    auto [bx, by] = series(*d.k_order_bug);
    plot::Series bug{f.text("k permuted with n_head: the GQA bug (llama.cpp #2376)", "k 按 n_head 置换:GQA 错误(llama.cpp #2376)"),
                     bx, by, 5};
    bug.dashed = true;
    fig.series.push_back(bug);
  }
  fig.lines.push_back({plot::ReferenceLine::Axis::X, static_cast<double>(hd) - 0.5, f.text("next head", "下一个头"), -1});
  return fig;
}

}  // namespace

int run_permute(const PermuteOptions& opt, std::ostream& out) {
  PermuteSettings s = opt.settings;
  const Text t = opt.figure.tr();
  std::string source = t("the command line", "命令行");
  if (!opt.config.empty()) {
    const AttentionShape a = read_attention_shape(opt.config);
    const RopeParameters p = rope_parameters(a.model.rope);
    s.head_dim = a.model.rope.rotary_dim();
    s.n_head = a.n_head;
    s.n_head_kv = a.n_head_kv;
    s.base = a.model.rope.base;
    s.inv_freq = p.inv_freq;
    source = a.gguf ? t.format("{} (GGUF, architecture {})", "{}(GGUF,架构 {})", a.model.name, a.model.model_type) : a.model.name;
  }
  if (opt.head_dim) s.head_dim = *opt.head_dim;
  if (opt.heads) s.n_head = *opt.heads;
  if (opt.kv_heads) s.n_head_kv = *opt.kv_heads;
  if (opt.base) s.base = *opt.base;
  if ((opt.head_dim || opt.base) && s.inv_freq) s.inv_freq.reset();  // a typed size or base: plain RoPE of it
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
  out << t.format("rope permute: llama.cpp's q/k row order, from {}:\n  head_dim {}, {} query heads, {} KV heads\n",
                  "rope permute:llama.cpp 的 q/k 行顺序,来自{}:\n  head_dim {},{} 个查询头,{} 个 KV 头\n", source, hd,
                  s.n_head, s.n_head_kv);
  out << t("convert_hf_to_gguf.py reorders the rows of q_proj and k_proj, head by head (G1):\n"
           "  GGUF row h·hd + 2j + s holds HF row h·hd + s·hd/2 + j   (s = 0, 1; j < hd/2)\n"
           "so HF's rotate_half pair (j, j + hd/2) becomes llama.cpp's NORM pair (2j, 2j+1), same frequency θ_j.\n\n",
           "convert_hf_to_gguf.py 逐头重排 q_proj 和 k_proj 的行 (G1):\n"
           "  GGUF 第 h·hd + 2j + s 行取自 HF 第 h·hd + s·hd/2 + j 行(s = 0, 1;j < hd/2)\n"
           "于是 HF rotate_half 的通道对 (j, j + hd/2) 变成 llama.cpp NORM 的相邻通道对 (2j, 2j+1),\n频率 θ_j 不变。\n\n");
  out << t("the row map (GGUF row r holds HF row order[r]):\n", "行映射(GGUF 第 r 行取自 HF 第 order[r] 行):\n");
  out << order_text(t.format("  q_proj, permute(q, n_head = {}):      ", "  q_proj,permute(q, n_head = {}):      ", s.n_head),
                    d.q_order);
  out << order_text(t.format("  k_proj, permute(k, n_head_kv = {}):   ", "  k_proj,permute(k, n_head_kv = {}):   ", s.n_head_kv),
                    d.k_order);
  if (d.k_order_bug && s.n_head != s.n_head_kv) {
    out << order_text(t.format("  k_proj permuted with n_head = {} (the bug): ", "  k_proj 按 n_head = {} 置换(错误):", s.n_head),
                      *d.k_order_bug);
  } else if (!d.k_order_bug) {
    out << t.format("  k_proj permuted with n_head = {}: the converter's reshape fails ({} rows are not {} heads of two halves)\n",
                    "  k_proj 按 n_head = {} 置换:转换器的 reshape 会报错({} 行分不成 {} 个含两半的头)\n", s.n_head,
                    d.k_order.size(), s.n_head);
  }
  out << t.format("\nscores of random HF weights (seed {}, model dim {}),\n  query at m = {}, key at m + δ, δ = 0 … {}, every head "
                  "({} scores):\n",
                  "\n随机 HF 权重(种子 {},模型维度 {})的得分,\n  查询位于 m = {},键位于 m + δ,δ = 0 … {},所有头(共 {} 个得分):\n",
                  s.seed, s.width, format_number(s.m), s.max_distance, d.scores);
  out << t("  (a) rotate_half on the HF weights (Hugging Face)\n  (b) NORM on the permuted weights (llama.cpp)\n",
           "  (a) 在 HF 权重上用 rotate_half(Hugging Face)\n  (b) 在置换后的权重上用 NORM(llama.cpp)\n");
  out << t.format("  max |(b) − (a)| = {} (tolerance 2·γ_hd·Σ|terms| = {:.3g}){}  {}\n",
                  "  最大 |(b) − (a)| = {}(容差 2·γ_hd·Σ|各项| = {:.3g}){}  {}\n", format_number(d.max_fix_difference),
                  d.tolerance, d.max_fix_difference == 0.0 ? t(": equal bit for bit", ":逐位相等") : "",
                  d.passed() ? t("PASS", "通过") : t("FAIL", "失败"));
  if (s.n_head == s.n_head_kv) {
    out << t("  no GQA (n_head = n_head_kv): permuting k with n_head is the same permutation, no bug to show\n",
             "  没有 GQA(n_head = n_head_kv):按 n_head 置换 k 是同一个置换,这里没有错误可演示\n");
  } else if (d.k_order_bug) {
    out << t("  (c) NORM with k permuted by n_head instead of n_head_kv (llama.cpp #2376, #3018)\n",
             "  (c) 用 NORM,但 k 按 n_head 而非 n_head_kv 置换(llama.cpp #2376、#3018)\n");
    out << t.format("  |(c) − (a)| up to {:.6g}, {:.6g} on average; the scores themselves have size (rms) {:.6g}:\n"
                    "  no error is raised, the model just attends elsewhere (\"gibberish after conversion\")\n",
                    "  |(c) − (a)| 最大 {:.6g},平均 {:.6g};得分本身的大小(均方根)为 {:.6g}:\n"
                    "  不会报错,模型只是把注意力放到了别处(“转换后输出乱码”)\n",
                    d.max_bug_difference, d.mean_bug_difference, d.score_rms);
  }
  if (opt.csv.empty()) out << t("(head 0's scores at every distance: --csv FILE)\n", "(第 0 个头在每个距离上的得分:--csv FILE)\n");
  if (exit_code != kOk) out << t("\nPERMUTATION CHECK FAILED\n", "\n置换检验失败\n");
  return exit_code;
}

Command add_permute_command(CLI::App& app) {
  auto opt = std::make_shared<PermuteOptions>();
  PermuteSettings& s = opt->settings;
  CLI::App* sub = app.add_subcommand("permute", "The q/k row order of llama.cpp's converter, its proof, and the GQA bug");
  add_int_option(*sub, "--head-dim", opt->head_dim, s.head_dim, "rows per head: even, 2 … 4096");
  add_long_option(*sub, "--heads", opt->heads, s.n_head, "query heads n_head");
  add_long_option(*sub, "--kv-heads", opt->kv_heads, s.n_head_kv, "key/value heads n_head_kv (GQA: fewer than --heads)");
  add_base_option(*sub, opt->base, s.base);
  sub->add_option("--config", opt->config, "read the heads and the RoPE from a GGUF file or a Hugging Face config.json")
      ->type_name("FILE");
  add_int_option(*sub, "--model-dim", s.width, fmt::format("columns of the random weights (the model width): 1 … {}", kMaxPermuteWidth));
  add_seed_option(*sub, s.seed, "seed of the random weights and inputs (same seed, same output)");
  add_real_option(*sub, "--position", s.m, "the query's position m (|m| <= 1e9)");
  add_long_option(*sub, "--max-distance", s.max_distance, fmt::format("keys at m + δ, δ = 0 … max-distance (0 … {})", kMaxPermuteDistance));
  sub->add_option("--csv", opt->csv, "write distance,score_hf,score_gguf[,score_bug] (head 0) to FILE ('-' for stdout)")
      ->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  sub->footer("Example:\n  rope permute\n  rope permute --head-dim 128 --heads 64 --kv-heads 8 --png permute.png\n"
              "  rope permute --config data/gguf/llama-3.1-8b.gguf");
  return {sub, [opt](std::ostream& out) { return run_permute(*opt, out); }};
}

}  // namespace rope::cli
