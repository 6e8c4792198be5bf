// The printers of rope permute's report (permute_report.hpp).
#include "rope/report/permute_report.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "rope/report/digits.hpp"
#include "rope/report/json.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

/// `prefix` and the order in full up to 64 rows, else its first 16 and the number of rows; broken into
/// lines of at most 100 columns, each ended by '\n'.
std::string permute_order_text(const std::string& prefix, const std::vector<long>& order) {
  const std::size_t shown = order.size() <= 64 ? order.size() : 16;
  std::vector<std::string> items;
  for (std::size_t r = 0; r < shown; ++r) items.push_back(std::to_string(order[r]));
  if (shown < order.size()) items.push_back("…");
  std::string text;
  for (const std::string& line : wrapped_list(prefix, items)) text += line + "\n";
  if (shown < order.size()) text.insert(text.size() - 1, fmt::format(" ({} rows)", order.size()));
  return text;
}

std::string permute_source(const PermuteRun& run, const Text& t) {
  if (!run.spec) return t.tr("the command line");
  const RopeSpec& spec = *run.spec;
  return (run.gguf ? t.tr("{0} (GGUF, architecture {1})", spec.name, spec.model_type) : spec.name) +
         layer_text(spec, t);
}

}  // namespace

Value permute_value(const PermuteRun& run) {
  const PermuteDemo& d = run.demo;
  const PermuteSettings& s = d.settings;
  Value v;
  v["source"] = run.spec ? Value(run.spec->name) : Value();
  v["head_dim"] = s.head_dim;
  v["n_head"] = s.n_head;
  v["n_head_kv"] = s.n_head_kv;
  v["base"] = s.base;
  v["seed"] = s.seed;
  v["model_dim"] = s.width;
  v["position"] = s.m;
  v["max_distance"] = s.max_distance;
  v["q_order"] = d.q_order;
  v["k_order"] = d.k_order;
  v["k_order_bug"] = d.k_order_bug;
  v["scores"] = d.scores;
  v["max_fix_difference"] = d.max_fix_difference;
  v["tolerance"] = d.tolerance;
  v["max_bug_difference"] = d.k_order_bug ? Value(d.max_bug_difference) : Value();
  v["mean_bug_difference"] = d.k_order_bug ? Value(d.mean_bug_difference) : Value();
  v["score_rms"] = d.score_rms;
  v["passed"] = d.passed();
  return v;
}

Table permute_table(const PermuteRun& run) {
  const PermuteDemo& d = run.demo;
  Table table{{"distance", "score_hf", "score_gguf"}, {d.distances, d.score_hf, d.score_gguf}};
  if (d.k_order_bug) {
    table.header.push_back("score_bug");
    table.columns.push_back(d.score_bug);
  }
  return table;
}

void print_permute(std::ostream& out, const PermuteRun& run, const Text& t, const std::optional<int>& digits,
                   bool csv_given) {
  const PermuteDemo& d = run.demo;
  const PermuteSettings& s = d.settings;
  const long hd = s.head_dim;
  out << t.tr("rope permute: llama.cpp's q/k row order, from {0}:\n  head_dim {1}, {2} query heads, {3} KV heads\n",
              permute_source(run, t), hd, s.n_head, s.n_head_kv);
  out << t.tr(
      "convert_hf_to_gguf.py reorders the rows of q_proj and k_proj, head by head (G1):\n"
      "  GGUF row h·hd + 2j + s holds HF row h·hd + s·hd/2 + j   (s = 0, 1; j < hd/2)\n"
      "so HF's rotate_half pair (j, j + hd/2) becomes llama.cpp's NORM pair (2j, 2j+1), same frequency θ_j.\n\n");
  out << t.tr("the row map (GGUF row r holds HF row order[r]):\n");
  out << permute_order_text(t.tr("  q_proj, permute(q, n_head = {0}):      ", s.n_head), d.q_order);
  out << permute_order_text(t.tr("  k_proj, permute(k, n_head_kv = {0}):   ", s.n_head_kv), d.k_order);
  if (d.k_order_bug && s.n_head != s.n_head_kv) {
    out << permute_order_text(t.tr("  k_proj permuted with n_head = {0} (the bug): ", s.n_head), *d.k_order_bug);
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
  const std::vector<std::string> shown = compared({d.max_fix_difference, d.tolerance}, digits);
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
  if (!csv_given) out << t.tr("(head 0's scores at every distance: {0} FILE)\n", option_name("csv"));
  if (!d.passed()) out << t.tr("\nPERMUTATION CHECK FAILED\n");
}

plot::Figure permute_figure(const PermuteRun& run, const Text& t) {
  const PermuteDemo& d = run.demo;
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
  fig.title = t.tr("llama.cpp's q/k row order: head_dim {0}, {1} query heads, {2} KV heads", hd, d.settings.n_head,
                   d.settings.n_head_kv);
  fig.xlabel = t.tr("GGUF row r");
  fig.ylabel = t.tr("the Hugging Face row it holds");
  fig.key = plot::Figure::Key::Below;
  auto [x, y] = series(d.k_order);
  plot::Series correct{t.tr("q and k, each permuted with its own head count (n_head, n_head_kv): correct"), x, y, 2};
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
    plot::Series bug{t.tr("k permuted with n_head: the GQA bug (llama.cpp #2376)"), bx, by, 5};
    bug.dashed = joined_lines;
    bug.points = !joined_lines;
    fig.series.push_back(bug);
  }
  fig.lines.push_back({plot::ReferenceLine::Axis::X, static_cast<double>(hd) - 0.5, t.tr("next head"), -1});
  return fig;
}

}  // namespace rope
