// rope layouts: the interleaved and half layouts side by side, the permutation P between them, and the
// bug of mixing them (Meta-format q/k weights run with rotate_half), docs/math.md (M5), (M6), (M8),
// a bug reported many times (e.g. huggingface/transformers#25199). The demonstration itself is
// rope/analysis/layouts.hpp.
#include <algorithm>
#include <cmath>
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/cli/commands.hpp"
#include "rope/report/digits.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/report/printing.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/error.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/analysis/layouts.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/cli/vector_options.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope::cli {

/// P is printed as a 0/1 matrix up to this d (2d − 1 characters a row: it fits 80 columns), and perm in
/// full up to kMaxFullPerm.
inline constexpr int kMaxPrintedMatrix = 32;
inline constexpr int kMaxFullPerm = 64;

struct LayoutsOptions {
  LayoutsSettings settings;
  std::vector<double> positions{5, 12};
  std::string csv;
  FigureOptions figure;
  ScalingOptions scaling;
  std::optional<int> dim;      ///< --dim; nullopt: settings.dim
  std::optional<double> base;  ///< --base; nullopt: settings.base
  bool wide = false;           ///< --wide: each score with its formula on its line (111 columns)
  std::optional<int> digits;   ///< --digits N: significant digits of each error and its tolerance (digits.hpp)
  std::string q, k;            ///< --q, --k: the user's query and key (vector_options.hpp); empty: drawn
  bool show_vectors = false;   ///< --show-vectors: print q and k in full
  bool cache = false;          ///< --cache: the figure is the cos/sin cache of each layout, not the score sweep
};

/// The rows (positions 0 … kCachePositions − 1) of the --cache figure.
inline constexpr int kCachePositions = 16;

namespace {

/// "perm = [0, 2, 4, 6, 1, 3, 5, 7]", broken into lines of at most 100 columns; for a large d the first
/// three and the last of each half.
std::vector<std::string> perm_lines(const std::vector<int>& perm) {
  const int d = static_cast<int>(perm.size());
  if (d > kMaxFullPerm) return {fmt::format("  perm = [0, 2, 4, …, {}, 1, 3, 5, …, {}]", d - 2, d - 1)};
  std::vector<std::string> items;
  for (int c : perm) items.push_back(std::to_string(c));
  return wrapped_list("  perm = ", items);
}

plot::Figure make_figure(const LayoutsDemo& demo, const FigureOptions& f) {
  plot::Figure fig;
  fig.title = f.tr("Meta-format q, k scored by each kernel: d = {0}, query at m = {1}", demo.dim,
                   format_number(demo.settings.m));
  fig.xlabel = f.tr("distance n − m (key at n)");
  fig.ylabel = f.tr("score");
  fig.key = plot::Figure::Key::Below;
  // (a) wide and (c) thin, dashed and black on top of it: (c) runs inside (a) wherever they are equal.
  plot::Series reference{f.tr("(a) interleaved kernel (Meta): the trained score"), demo.distances,
                         demo.score_interleaved, 0};
  reference.line_width = 7;
  fig.series.push_back(reference);
  fig.series.push_back({f.tr("(b) rotate_half, weights not converted: the bug"), demo.distances, demo.score_mixed, 1});
  plot::Series fixed{f.tr("(c) rotate_half on P q, P k: the fix, equal to (a)"), demo.distances, demo.score_fixed, 6};
  fixed.dashed = true;
  fixed.line_width = 2;
  fig.series.push_back(fixed);
  fig.lines.push_back({plot::ReferenceLine::Axis::Y, 0.0, "", -1});
  return fig;
}

/// The cos/sin cache as it sits in memory (issue 51, item 6): rows are positions m = 0 … 15, columns the
/// channels of each layout's table, three tables side by side: the half layout (HF Llama's
/// `emb = torch.cat((freqs, freqs), dim=-1)`, channel c uses θ_(c mod d/2)), the interleaved layout (GPT-J's
/// and DeepSeek's `repeat_interleave(2)`, channel c uses θ_(c/2)) and the half-width tables (gpt-oss keeps
/// cos, sin of d/2 columns, column i = pair i, used by both halves of the vector). Three bands of rows: cos,
/// sin and the angle m·θ wrapped to (−π, π] over π, all in [−1, 1] on one diverging palette. A black bar
/// joins the two channels of pair 0 (partners) in each table; a NaN column or row separates the tables.
plot::Figure make_cache_figure(const Eigen::VectorXd& theta, const FigureOptions& f) {
  const int half = static_cast<int>(theta.size());
  const int d = 2 * half;
  const int P = kCachePositions;
  const int gap = std::max(1, d / 16);                        // NaN columns between the tables
  const int pad = std::max(3, (2 * d + 2 * gap + half) / 7);  // NaN columns on the left, where bands are named
  const int cols = pad + d + gap + d + gap + half;
  const int rows = 3 * P + 2;
  Eigen::MatrixXd z = Eigen::MatrixXd::Constant(rows, cols, std::nan(""));
  const int x_half = 0, x_inter = d + gap, x_width = 2 * d + 2 * gap;
  for (int band = 0; band < 3; ++band) {
    for (int m = 0; m < P; ++m) {
      const int r = band * (P + 1) + m;
      const auto value = [&](int pair) {
        const double a = m * theta[pair];
        if (band == 0) return std::cos(a);
        if (band == 1) return std::sin(a);
        return std::remainder(a, 2 * kPi) / kPi;  // (−π, π] over π
      };
      for (int c = 0; c < d; ++c) {
        z(r, pad + x_half + c) = value(c % half);
        z(r, pad + x_inter + c) = value(c / 2);
      }
      for (int c = 0; c < half; ++c) z(r, pad + x_width + c) = value(c);
    }
  }
  plot::Figure fig;
  fig.title = f.tr("The cos/sin cache as it sits in memory: d = {0}, positions 0 … {1} downward", d, P - 1);
  fig.xlabel = f.tr("channel (half: cat(freqs, freqs); interleaved: repeat_interleave(2); gpt-oss: d/2)");
  plot::Heatmap h;
  h.z = z;
  h.x0 = -pad;
  h.rows_downward = true;
  h.colorbar_label = f.tr("value (angle: m·θ/π wrapped to (−1, 1])");
  fig.heatmap = h;
  fig.ytics = false;  // the bands are named instead
  // Each table's channels from 0: the x axis restarts at every table.
  for (const auto& [x0, width] : {std::pair{x_half, d}, std::pair{x_inter, d}, std::pair{x_width, half}}) {
    for (const int c : {0, width / 2}) fig.xtics.emplace_back(x0 + c, std::to_string(c));
  }
  // The partners of pair 0 in each table: a black bar across the cos band from one channel to the other.
  const double y_bar = P / 2.0;
  const auto bar = [&](const std::string& label, double x0, double x1, double y0, double y1) {
    plot::Series s{label, Eigen::Vector2d(x0, x1), Eigen::Vector2d(y0, y1), 6};
    s.line_width = 5;
    s.points = false;
    fig.series.push_back(s);
  };
  bar(f.tr("pair 0's two channels (partners)"), x_half, x_half + half, y_bar, y_bar);
  bar("", x_inter, x_inter + 1, y_bar, y_bar);
  // Half-width: column 0 serves both channels of pair 0 (x1·cos − x2·sin, x2·cos + x1·sin): one column,
  // read in the cos and the sin band.
  bar("", x_width, x_width, y_bar, P + 1 + y_bar);
  const double top = -1.3;
  using Anchor = plot::Label::Anchor;
  fig.labels.push_back({x_half + (d - 1) / 2.0, top, f.tr("half layout"), Anchor::Center});
  fig.labels.push_back({x_inter + (d - 1) / 2.0, top, f.tr("interleaved layout"), Anchor::Center});
  fig.labels.push_back({x_width + (half - 1) / 2.0, top, "gpt-oss", Anchor::Center});
  fig.labels.push_back({-(pad + 1) / 2.0, (P - 1) / 2.0, "cos", Anchor::Center});
  fig.labels.push_back({-(pad + 1) / 2.0, P + 1 + (P - 1) / 2.0, "sin", Anchor::Center});
  fig.labels.push_back({-(pad + 1) / 2.0, 2 * (P + 1) + (P - 1) / 2.0, f.tr("angle/π"), Anchor::Center});
  fig.key = plot::Figure::Key::Below;
  return fig;
}

}  // namespace

int run_layouts(const LayoutsOptions& opt, std::ostream& out) {
  LayoutsSettings settings = opt.settings;
  if (opt.positions.size() != 2) {
    throw InvalidArgument(opt.positions.size() == 1
                              ? error_msg("give {0} twice, the query's m then the key's n (got {1} value)",
                                          option_name("position"), opt.positions.size())
                              : error_msg("give {0} twice, the query's m then the key's n (got {1} values)",
                                          option_name("position"), opt.positions.size()));
  }
  settings.m = opt.positions[0];
  settings.n = opt.positions[1];
  const Text t = opt.figure.tr();
  const std::optional<QueryKey> user = query_key(opt.q, opt.k, opt.dim, kMaxLayoutsDim);
  if (user && user->q.rows() != 1) {
    throw InvalidArgument(
        error_msg("--q and --k: rope layouts takes one query and one key (got {0} vectors each)", user->q.rows()));
  }
  // The vectors set d, unless a model does (then they must match its rotary dimension).
  const bool from_model = !opt.scaling.source.preset.empty() || !opt.scaling.source.file.empty();
  const std::optional<int> dim = user && !from_model ? std::optional<int>(static_cast<int>(user->q.cols())) : opt.dim;
  const ModelRope rope = resolve(
      opt.scaling, {dim, settings.dim, opt.base, settings.base, std::nullopt, Layout::Interleaved, kMaxLayoutsDim});
  if (user && rope.spec.rotary_dim != user->q.cols()) {
    throw InvalidArgument(error_msg("--q and --k have {0} numbers, but the model's rotary dimension d is {1}",
                                    user->q.cols(), rope.spec.rotary_dim));
  }
  if (user) {
    settings.q = user->q.row(0).transpose();
    settings.k = user->k.row(0).transpose();
  }
  settings.dim = rope.spec.rotary_dim;
  settings.base = rope.spec.config.base;
  std::string frequencies_text = fmt::format("base = {}", format_number(settings.base));
  if (!rope.plain) {
    const ModelRope& rr = rope;
    settings.inv_freq = rr.spec.params.inv_freq;
    frequencies_text = t.tr("base = {0}, {1} scaling f = {2} from {3}{4}", format_number(settings.base),
                            to_string(rr.spec.config.type), format_number(rr.spec.params.factor),
                            model_name(rr.spec, t), layer_text(rr.spec, t));
  }
  check_figure_options(opt.figure);
  if (opt.cache && !opt.figure.wanted()) {
    throw InvalidArgument("--cache draws the figure of the cos/sin cache: add --png, --svg, --pdf or --output");
  }
  const LayoutsDemo demo = layouts_demo(settings);
  const LayoutsSettings& s = demo.settings;
  const int d = demo.dim;
  const int exit_code = demo.passed() ? kOk : kVerifyFailed;

  if (!opt.csv.empty()) {
    const Table table{{"distance", "score_interleaved", "score_mixed", "score_fixed"},
                      {demo.distances, demo.score_interleaved, demo.score_mixed, demo.score_fixed}};
    write_output(opt.csv, to_csv(table), out);
  }
  if (opt.cache) {
    const Eigen::VectorXd theta = rope.plain ? frequencies(d, settings.base) : rope.spec.params.inv_freq;
    draw(make_cache_figure(theta, opt.figure), opt.figure);
  } else {
    draw(make_figure(demo, opt.figure), opt.figure);
  }
  if (opt.csv == "-") return exit_code;

  out << t.tr("rope layouts: d = {0}, {1} (docs/math.md (M5), (M6), (M8))\n", d, frequencies_text);
  out << t.tr(
      "Meta's Llama code pairs channels (2i, 2i+1), the interleaved layout; Hugging Face's rotate_half\n"
      "pairs channels (i, i + d/2), the half layout. Pair i turns by m·θ_i in both.\n\n");
  if (!rope.plain && rope.spec.from_model) {
    out << t.tr("{0} uses the {1}\n\n", model_name(rope.spec, t), layout_description(rope.spec).in(t.lang()));
  }

  out << t.tr("which channels form pair i:\n");
  out << fmt::format("{:>6}  {:>20}  {:>20}  {:>20}\n", t.tr("pair i"), "θ_i", t.tr("interleaved (Meta)"),
                     t.tr("half (rotate_half)"));
  for (int i = 0; i < d / 2; ++i) {
    const auto [a, b] = pair_channels(d, i, Layout::Interleaved);
    const auto [c, e] = pair_channels(d, i, Layout::Half);
    out << fmt::format("{:>6}  {:>20}  {:>20}  {:>20}\n", i, format_number(demo.theta[i]),
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
              format_number(s.n), format_number(demo.conjugation_error),
              demo.conjugation_error == 0.0 ? t.tr("(exact: P only moves entries)") : t.tr("— NOT EXACT"));

  if (user) {
    out << t.tr("\nq and k from --q and --k, taken as a query and a key made by Meta-format weights (interleaved).\n");
  } else {
    out << t.tr("\nq, k ~ N(0, I), seed {0}, stand for a query and a key made by Meta-format weights (interleaved).\n",
                s.seed);
  }
  if (opt.show_vectors) {
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
  const auto f = [&](int i) { return opt.wide ? std::string(formulas[i]) : std::string(); };
  out << fmt::format("  {:<39}{}= {}  {}\n", t.tr("(a) Meta's interleaved kernel"), f(0),
                     format_number(demo.at.interleaved), t.tr("(the trained score)"));
  out << fmt::format("  {:<39}{}= {}\n", t.tr("(b) rotate_half, weights unconverted"), f(1),
                     format_number(demo.at.mixed));
  out << fmt::format("  {:<39}{}= {}\n", t.tr("(c) rotate_half, weights permuted by P"), f(2),
                     format_number(demo.at.fixed));
  if (!opt.wide) {
    out << "  (a) <R_int,m q, R_int,n k>, (b) <R_half,m q, R_half,n k>, (c) <R_half,m Pq, R_half,n Pk>\n";
  }
  out << t.tr("  the bug changes the score by |(b) − (a)| = {0}; the fix by |(c) − (a)| = {1}{2}\n", format_number(bug),
              format_number(fix), fix == 0.0 ? "" : t.tr(" — THE FIX FAILED"));

  const long distances = s.max_distance + 1;
  out << t.tr("\nover n − m = 0 … {0} ({1} distance{2}, the query at m = {3}):\n", s.max_distance, distances,
              distances == 1 || (t.lang() == Lang::Zh) ? "" : "s", format_number(s.m));
  out << t.tr("  the bug changes the score by up to {0:.6g}, by {1:.6g} on average;\n", demo.max_mixed_change,
              demo.mean_mixed_change);
  out << t.tr("  a score itself is of size √d = {0:.6g} for q, k ~ N(0, I) (M15)\n", std::sqrt(static_cast<double>(d)));
  out << t.tr("  the fix changes it by at most {0}{1}\n", format_number(demo.max_fixed_change),
              demo.max_fixed_change == 0.0 ? t.tr(": equal bit for bit at every distance") : t.tr(" — THE FIX FAILED"));

  out << t.tr("\neach layout alone satisfies <R_m q, R_n k> = q^T R_(n−m) k (M8) on these {0} pairs of positions;\n",
              demo.identity_interleaved.samples);
  out << t.tr("tolerance κ·ε·(d + M)·‖q‖‖k‖ (M13), M = the largest |m| + |n| + |n − m|:\n");
  for (const LayoutIdentityCheck* c : {&demo.identity_interleaved, &demo.identity_half}) {
    // The error against its tolerance, with the digits that tell them apart (digits.hpp), or --digits N.
    const std::vector<std::string> shown =
        compared({c->check.difference, c->check.tolerance * c->check.scale}, opt.digits);
    out << fmt::format("  {:<11}  max |Δ| = {}  {} {}  {}\n", layout_name(c->layout, t), shown[0], t.tr("tolerance"),
                       shown[1], c->check.passed() ? t.tr("PASS") : t.tr("FAIL"));
  }
  out << t.tr(
      "so the bug breaks no identity and raises no error: it pairs channels that were never trained\n"
      "together, with other frequencies, and the model silently computes other attention scores.\n");
  if (opt.csv.empty()) out << t.tr("(the scores at every distance: --csv FILE)\n");
  if (exit_code != kOk) out << t.tr("\nLAYOUT CHECK FAILED\n");
  return exit_code;
}

Command add_layouts_command(CLI::App& app) {
  auto opt = std::make_shared<LayoutsOptions>();
  LayoutsSettings& s = opt->settings;
  CLI::App* sub = app.add_subcommand(
      "layouts", "The interleaved and half pair layouts, the permutation P, and the bug of mixing them");
  add_int_option(*sub, "-d,--dim", opt->dim, s.dim, fmt::format("dimension d: even, 2 … {}", kMaxLayoutsDim));
  add_base_option(*sub, opt->base, s.base);
  add_seed_option(*sub, s.seed, "seed of the random q, k (same seed, same output)");
  add_reals_option(*sub, "--position", opt->positions, "the query's position m, then the key's n: give it twice");
  add_long_option(*sub, "--max-distance", s.max_distance,
                  fmt::format("the sweep puts the key at m + δ, δ = 0 … max-distance (0 … {})", kMaxLayoutsDistance));
  sub->add_option("--csv", opt->csv,
                  "write distance,score_interleaved,score_mixed,score_fixed to FILE ('-' for stdout)")
      ->type_name("FILE");
  add_query_key_options(*sub, opt->q, opt->k,
                        "the query q instead of a random one: d numbers, comma-separated (x0,x1,…), or @FILE (CSV)",
                        "the key k instead of a random one: d numbers, comma-separated, or @FILE (CSV)");
  sub->add_flag("--show-vectors", opt->show_vectors,
                "print q and k in full (shortest round-trip decimals), so the scores can be recomputed by hand");
  sub->add_flag("--cache", opt->cache,
                "the figure draws the cos/sin cache of each layout as it sits in memory (rows: positions 0 … 15; "
                "columns: channels), pair 0's partners marked, instead of the scores")
      ->group("Figure");
  add_figure_options(*sub, opt->figure);
  add_wide_option(*sub, opt->wide);
  add_digits_option(*sub, opt->digits, "3", kDigitsHelp);
  add_scaling_options(*sub, opt->scaling);
  sub->footer(
      "Example:\n  rope layouts --dim 8\n  rope layouts --dim 128 --position 100 --position 90 --max-distance 512 "
      "--png layouts.png");
  return {sub, [opt](std::ostream& out) { return run_layouts(*opt, out); }};
}

}  // namespace rope::cli
