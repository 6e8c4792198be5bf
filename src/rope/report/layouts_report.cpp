// The printers of rope layouts (layouts_report.hpp): the text, and the figure of the cos/sin cache.
#include "rope/report/layouts_report.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <string>
#include <utility>
#include <vector>

#include "rope/core/constants.hpp"
#include "rope/core/rotation.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/report/digits.hpp"
#include "rope/report/json.hpp"
#include "rope/report/model_text.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

/// P is printed as a 0/1 matrix up to this d (2d − 1 characters a row: it fits 80 columns), and perm in
/// full up to kMaxFullPerm.
constexpr int kMaxPrintedMatrix = 32;
constexpr int kMaxFullPerm = 64;

/// "perm = [0, 2, 4, 6, 1, 3, 5, 7]", broken into lines of at most 100 columns; for a large d the first
/// three and the last of each half.
std::vector<std::string> perm_lines(const std::vector<int>& perm) {
  const int d = static_cast<int>(perm.size());
  if (d > kMaxFullPerm) return {fmt::format("  perm = [0, 2, 4, …, {}, 1, 3, 5, …, {}]", d - 2, d - 1)};
  std::vector<std::string> items;
  for (int c : perm) items.push_back(std::to_string(c));
  return wrapped_list("  perm = ", items);
}

Value check_value(const LayoutIdentityCheck& c) {
  Value v = Value::object();
  v["samples"] = c.samples;
  v["difference"] = c.check.difference;
  v["tolerance"] = c.check.tolerance * c.check.scale;
  v["passed"] = c.check.passed();
  return v;
}

}  // namespace

Value layouts_value(const LayoutsRun& run) {
  const LayoutsDemo& demo = run.demo;
  const LayoutsSettings& s = demo.settings;
  Value v = Value::object();
  v["dim"] = demo.dim;
  v["base"] = s.base;
  v["m"] = s.m;
  v["n"] = s.n;
  v["seed"] = s.seed;
  v["score_interleaved"] = demo.at.interleaved;
  v["score_mixed"] = demo.at.mixed;
  v["score_fixed"] = demo.at.fixed;
  v["max_distance"] = s.max_distance;
  v["max_mixed_change"] = demo.max_mixed_change;
  v["mean_mixed_change"] = demo.mean_mixed_change;
  v["max_fixed_change"] = demo.max_fixed_change;
  v["conjugation_error"] = demo.conjugation_error;
  v["identity_interleaved"] = check_value(demo.identity_interleaved);
  v["identity_half"] = check_value(demo.identity_half);
  v["passed"] = demo.passed();
  return v;
}

std::string layouts_csv(const LayoutsRun& run) {
  const LayoutsDemo& demo = run.demo;
  const Table table{{"distance", "score_interleaved", "score_mixed", "score_fixed"},
                    {demo.distances, demo.score_interleaved, demo.score_mixed, demo.score_fixed}};
  return to_csv(table);
}

void print_layouts(std::ostream& out, const LayoutsRun& run, const Text& t, const std::optional<int>& digits) {
  const int shown_digits = digits.value_or(kTableDigits);  // the scores and their changes: 6 digits, or --digits N
  const LayoutsDemo& demo = run.demo;
  const ModelRope& rope = run.rope;
  const LayoutsSettings& s = demo.settings;
  const int d = demo.dim;
  std::string frequencies_text = fmt::format("base = {}", format_number(s.base));
  if (!rope.plain) {
    const ModelRope& rr = rope;
    frequencies_text =
        t.tr("base = {0}, {1} scaling f = {2} from {3}{4}", format_number(s.base), to_string(rr.spec.config.type),
             format_number(rr.spec.params.factor), model_name(rr.spec, t.lang()), layer_text(rr.spec, t));
  }
  out << t.tr("rope layouts: d = {0}, {1} (docs/math.md (M5), (M6), (M8))\n", d, frequencies_text);
  out << t.tr(
      "Meta's Llama code pairs channels (2i, 2i+1), the interleaved layout; Hugging Face's rotate_half\n"
      "pairs channels (i, i + d/2), the half layout. Pair i turns by m·θ_i in both.\n\n");
  if (!rope.plain && rope.spec.from_model) {
    out << t.tr("{0} uses the {1}\n\n", model_name(rope.spec, t.lang()), layout_description(rope.spec).in(t.lang()));
  }

  out << t.tr("which channels form pair i:\n");
  out << fmt::format("{:>6}  {:>20}  {:>20}  {:>20}\n", t.tr("pair i"), "θ_i", t.tr("interleaved (Meta)"),
                     t.tr("half (rotate_half)"));
  for (int i = 0; i < d / 2; ++i) {
    const auto [a, b] = pair_channels(d, i, Layout::Interleaved);
    const auto [c, e] = pair_channels(d, i, Layout::Half);
    out << fmt::format("{:>6}  {:>20}  {:>20}  {:>20}\n", i, with_digits(demo.theta[i], shown_digits),
                       fmt::format("({}, {})", a, b), fmt::format("({}, {})", c, e));
  }

  const std::vector<int> perm = layout_perm(d);
  out << t.tr("\nthe permutation P from the interleaved to the half layout (M6):\n");
  out << "  (P x)_i = x_(2i), (P x)_(i+d/2) = x_(2i+1): P x = x[perm],\n";
  for (const std::string& line : perm_lines(perm)) out << line << '\n';
  if (d <= kMaxPrintedMatrix) {
    out << t.tr("  P, with P[c, perm[c]] = 1:\n");
    Eigen::MatrixXd p = Eigen::MatrixXd::Zero(d, d);
    for (int r = 0; r < d; ++r) p(r, perm[static_cast<std::size_t>(r)]) = 1.0;
    MatrixFormat zero_one;
    zero_one.digits = 0;
    print_matrix(out, p, zero_one, "    ");
  }
  out << t.tr("  R_half = P R_int Pᵀ at m = {0} and n = {1}: max |difference| = {2} {3}\n", format_number(s.m),
              format_number(s.n), readable(demo.conjugation_error, shown_digits),
              demo.conjugation_error == 0.0 ? t.tr("(exact: P only moves entries)") : t.tr("— NOT EXACT"));

  if (run.user_vectors) {
    out << t.tr("\nq and k from --q and --k, taken as a query and a key made by Meta-format weights (interleaved).\n");
  } else {
    out << t.tr("\nq, k ~ N(0, I), seed {0}, stand for a query and a key made by Meta-format weights (interleaved).\n",
                s.seed);
  }
  if (run.show_vectors) {
    print_vectors(out, "q", demo.q.transpose());
    print_vectors(out, "k", demo.k.transpose());
  }
  out << t.tr("the score of q and k, the query at m = {0} and the key at n = {1}:\n", format_number(s.m),
              format_number(s.n));
  const double bug = std::abs(demo.at.mixed - demo.at.interleaved);
  const double fix = std::abs(demo.at.fixed - demo.at.interleaved);
  // The default lines fit 100 columns: the three scores, then their formulas once below; --wide: a
  // formula on each line, as before.
  const char* formulas[] = {"<R_int,m q, R_int,n k>      ", "<R_half,m q, R_half,n k>    ",
                            "<R_half,m Pq, R_half,n Pk>  "};
  const auto f = [&](int i) { return run.wide ? std::string(formulas[i]) : std::string(); };
  out << fmt::format("  {:<39}{}= {}  {}\n", t.tr("(a) Meta's interleaved kernel"), f(0),
                     readable(demo.at.interleaved, shown_digits), t.tr("(the trained score)"));
  out << fmt::format("  {:<39}{}= {}\n", t.tr("(b) rotate_half, weights unconverted"), f(1),
                     readable(demo.at.mixed, shown_digits));
  out << fmt::format("  {:<39}{}= {}\n", t.tr("(c) rotate_half, weights permuted by P"), f(2),
                     readable(demo.at.fixed, shown_digits));
  if (!run.wide) {
    out << "  (a) <R_int,m q, R_int,n k>, (b) <R_half,m q, R_half,n k>, (c) <R_half,m Pq, R_half,n Pk>\n";
  }
  out << t.tr("  the bug changes the score by |(b) − (a)| = {0}; the fix by |(c) − (a)| = {1}{2}\n",
              readable(bug, shown_digits), readable(fix, shown_digits), fix == 0.0 ? "" : t.tr(" — THE FIX FAILED"));

  const long distances = s.max_distance + 1;
  out << t.tr("\nover n − m = 0 … {0} ({1} distance{2}, the query at m = {3}):\n", s.max_distance, distances,
              distances == 1 || (t.lang() == Lang::Zh) ? "" : "s", format_number(s.m));
  out << t.tr("  the bug changes the score by up to {0:.6g}, by {1:.6g} on average;\n", demo.max_mixed_change,
              demo.mean_mixed_change);
  out << t.tr("  a score itself is of size √d = {0:.6g} for q, k ~ N(0, I) (M15)\n", std::sqrt(static_cast<double>(d)));
  out << t.tr("  the fix changes it by at most {0}{1}\n", readable(demo.max_fixed_change, shown_digits),
              demo.max_fixed_change == 0.0 ? t.tr(": equal bit for bit at every distance") : t.tr(" — THE FIX FAILED"));

  out << t.tr("\neach layout alone satisfies ⟨R_m q, R_n k⟩ = qᵀ R_{{n−m}} k (M8) on these {0} pairs of positions;\n",
              demo.identity_interleaved.samples);
  out << t.tr("tolerance κ·ε·(d + M)·‖q‖‖k‖ (M13), M = the largest |m| + |n| + |n − m|:\n");
  // The two names in one column, padded by their width on a terminal (the Chinese names are wider).
  const std::size_t name_width =
      std::max({std::size_t{11}, columns(layout_name(Layout::Interleaved, t)), columns(layout_name(Layout::Half, t))});
  for (const LayoutIdentityCheck* c : {&demo.identity_interleaved, &demo.identity_half}) {
    // The error against its tolerance, with the digits that tell them apart (digits.hpp), or --digits N.
    const std::vector<std::string> shown = compared({c->check.difference, c->check.tolerance * c->check.scale}, digits);
    out << fmt::format("  {}  max |Δ| = {}  {} {}  {}\n", pad(layout_name(c->layout, t), name_width), shown[0],
                       t.tr("tolerance"), shown[1], c->check.passed() ? t.tr("PASS") : t.tr("FAIL"));
  }
  out << t.tr(
      "so the bug breaks no identity and raises no error: it pairs channels that were never trained\n"
      "together, with other frequencies, and the model silently computes other attention scores.\n");
  if (!run.csv) out << t.tr("(the scores at every distance: {0} FILE)\n", option_name("csv"));
  if (!demo.passed()) out << t.tr("\nLAYOUT CHECK FAILED\n");
}

plot::Figure layouts_figure(const LayoutsRun& run, const Text& t) {
  if (run.cache) return cache_figure(*run.cache, t);
  const LayoutsDemo& demo = run.demo;
  plot::Figure fig;
  fig.title = t.tr("Meta-format q, k scored by each kernel: d = {0}, query at m = {1}", demo.dim,
                   format_number(demo.settings.m));
  fig.xlabel = t.tr("distance n − m (key at n)");
  fig.ylabel = t.tr("score");
  fig.key = plot::Figure::Key::Below;
  // (a) wide and (c) thin, dashed and black on top of it: (c) runs inside (a) wherever they are equal.
  plot::Series reference{t.tr("(a) interleaved kernel (Meta): the trained score"), demo.distances,
                         demo.score_interleaved, 0};
  reference.line_width = 7;
  fig.series.push_back(reference);
  fig.series.push_back({t.tr("(b) rotate_half, weights not converted: the bug"), demo.distances, demo.score_mixed, 1});
  plot::Series fixed{t.tr("(c) rotate_half on P q, P k: the fix, equal to (a)"), demo.distances, demo.score_fixed, 6};
  fixed.dashed = true;
  fixed.line_width = 2;
  fig.series.push_back(fixed);
  fig.lines.push_back({plot::ReferenceLine::Axis::Y, 0.0, "", -1});
  return fig;
}

plot::Figure cache_figure(const LayoutCache& cache, const Text& t) {
  const int d = cache.dim;
  const int half = d / 2;
  const int P = cache.positions;
  const int gap = std::max(1, d / 16);                        // NaN columns between the tables
  const int pad = std::max(3, (2 * d + 2 * gap + half) / 7);  // NaN columns on the left, where bands are named
  const int cols = pad + d + gap + d + gap + half;
  const int rows = 3 * P + 2;
  Eigen::MatrixXd z = Eigen::MatrixXd::Constant(rows, cols, std::nan(""));
  const int x0s[] = {0, d + gap, 2 * d + 2 * gap};  // where each table starts
  for (std::size_t k = 0; k < cache.tables.size(); ++k) {
    const LayoutCacheTable& table = cache.tables[k];
    const Eigen::MatrixXd* bands[] = {&table.cos, &table.sin, &table.angle};
    for (int band = 0; band < 3; ++band) {
      z.block(band * (P + 1), pad + x0s[k], P, bands[band]->cols()) = *bands[band];
    }
  }
  plot::Figure fig;
  // The title and the axis title are centred on the plot, which the colour bar pushes left: at most about 60
  // characters, or their start is cut off at the figure's left edge (the lesson page at 1920×1080). The
  // tables in the order of the names above them: cat(freqs, freqs), repeat_interleave(2), d/2 columns.
  fig.title = t.tr("The cos/sin cache in memory: d = {0}, positions 0 … {1} downward", d, P - 1);
  fig.xlabel = t.tr("channel (cat(freqs, freqs) | repeat_interleave(2) | d/2)");
  plot::Heatmap h;
  h.z = z;
  h.x0 = -pad;
  h.rows_downward = true;
  h.colorbar_label = t.tr("value (angle: m·θ/π wrapped to (−1, 1])");
  fig.heatmap = h;
  fig.ytics = false;  // the bands are named instead
  // Each table's channels from 0: the x axis restarts at every table.
  for (std::size_t k = 0; k < cache.tables.size(); ++k) {
    const int width = static_cast<int>(cache.tables[k].cos.cols());
    for (const int c : {0, width / 2}) fig.xtics.emplace_back(x0s[k] + c, std::to_string(c));
  }
  // The partners of pair 0 in each table: a black bar across the cos band from one channel to the other.
  const double y_bar = P / 2.0;
  const auto bar = [&](const std::string& label, double x0, double x1, double y0, double y1) {
    plot::Series s{label, Eigen::Vector2d(x0, x1), Eigen::Vector2d(y0, y1), 6};
    s.line_width = 5;
    s.points = false;
    fig.series.push_back(s);
  };
  for (std::size_t k = 0; k < cache.tables.size(); ++k) {
    const LayoutCacheTable& table = cache.tables[k];
    const std::string label = k == 0 ? t.tr("pair 0's two channels (partners)") : "";
    if (table.partner_a != table.partner_b) {
      bar(label, x0s[k] + table.partner_a, x0s[k] + table.partner_b, y_bar, y_bar);
    } else {
      // Half-width: column 0 serves both channels of pair 0 (x1·cos − x2·sin, x2·cos + x1·sin): one column,
      // read in the cos and the sin band.
      bar(label, x0s[k] + table.partner_a, x0s[k] + table.partner_a, y_bar, P + 1 + y_bar);
    }
  }
  const double top = -1.9;  // the tables' names clear of the frame's top edge (row −0.5) and under the title
  using Anchor = plot::Label::Anchor;
  fig.labels.push_back({x0s[0] + (d - 1) / 2.0, top, t.tr("half layout"), Anchor::Center, std::nullopt, std::nullopt});
  fig.labels.push_back(
      {x0s[1] + (d - 1) / 2.0, top, t.tr("interleaved layout"), Anchor::Center, std::nullopt, std::nullopt});
  fig.labels.push_back({x0s[2] + (half - 1) / 2.0, top, "gpt-oss", Anchor::Center, std::nullopt, std::nullopt});
  fig.labels.push_back({-(pad + 1) / 2.0, (P - 1) / 2.0, "cos", Anchor::Center, std::nullopt, std::nullopt});
  fig.labels.push_back({-(pad + 1) / 2.0, P + 1 + (P - 1) / 2.0, "sin", Anchor::Center, std::nullopt, std::nullopt});
  fig.labels.push_back(
      {-(pad + 1) / 2.0, 2 * (P + 1) + (P - 1) / 2.0, t.tr("angle/π"), Anchor::Center, std::nullopt, std::nullopt});
  fig.key = plot::Figure::Key::Below;
  return fig;
}

}  // namespace rope
