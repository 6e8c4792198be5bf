// rope layouts: the interleaved and half layouts side by side, the permutation P between them, and the
// bug of mixing them (Meta-format q/k weights run with rotate_half), docs/math.md (M5), (M6), (M8),
// user-confusions C1. The demonstration itself is rope/layouts.hpp.
#include <cmath>
#include <fmt/format.h>
#include <memory>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "figure_options.hpp"
#include "options.hpp"
#include "output.hpp"
#include "rope/csv.hpp"
#include "rope/error.hpp"
#include "rope/layouts.hpp"
#include "scaling_options.hpp"

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
  bool dim_given = false;
  bool base_given = false;
};

namespace {

/// [0, 2, 4, 6, 1, 3, 5, 7]; for a large d the first three and the last of each half.
std::string perm_text(const std::vector<int>& perm) {
  const int d = static_cast<int>(perm.size());
  if (d <= kMaxFullPerm) return fmt::format("[{}]", fmt::join(perm, ", "));
  return fmt::format("[0, 2, 4, …, {}, 1, 3, 5, …, {}]", d - 2, d - 1);
}

plot::Figure make_figure(const LayoutsDemo& demo, const FigureOptions& f) {
  plot::Figure fig;
  fig.title = fmt::format(f.text("Meta-format q, k scored by each kernel: d = {}, query at m = {}",
                                 "Meta 格式的 q、k 在两种实现下的得分:d = {},query 位于 m = {}"),
                          demo.dim, format_number(demo.settings.m));
  fig.xlabel = f.text("distance n − m (key at n)", "距离 n − m(key 位于 n)");
  fig.ylabel = f.text("score", "得分");
  fig.key = plot::Figure::Key::Below;
  // (a) wide and (c) thin, dashed and black on top of it: (c) runs inside (a) wherever they are equal.
  plot::Series reference{f.text("(a) interleaved kernel (Meta): the trained score", "(a) 相邻配对(Meta):训练得到的得分"),
                         demo.distances, demo.score_interleaved, 0};
  reference.line_width = 7;
  fig.series.push_back(reference);
  fig.series.push_back({f.text("(b) rotate_half, weights not converted: the bug", "(b) rotate_half,权重未转换:错误"),
                        demo.distances, demo.score_mixed, 1});
  plot::Series fixed{f.text("(c) rotate_half on P q, P k: the fix, equal to (a)", "(c) rotate_half 作用于 P q、P k:修正,与 (a) 相同"),
                     demo.distances, demo.score_fixed, 6};
  fixed.dashed = true;
  fixed.line_width = 2;
  fig.series.push_back(fixed);
  fig.lines.push_back({plot::ReferenceLine::Axis::Y, 0.0, "", -1});
  return fig;
}

}  // namespace

int run_layouts(const LayoutsOptions& opt, std::ostream& out) {
  LayoutsSettings settings = opt.settings;
  if (opt.positions.size() != 2) {
    throw InvalidArgument(fmt::format("give --position twice, the query's m then the key's n (got {} value{})",
                                      opt.positions.size(), opt.positions.size() == 1 ? "" : "s"));
  }
  settings.m = opt.positions[0];
  settings.n = opt.positions[1];
  std::string frequencies_text = fmt::format("base = {}", format_number(settings.base));
  if (opt.scaling.any()) {
    const ResolvedRope rr = resolve_rope(opt.scaling, settings.dim, opt.dim_given, settings.base, opt.base_given);
    settings.dim = rr.d;
    settings.base = rr.model.rope.base;
    settings.inv_freq = rr.params.inv_freq;
    frequencies_text = fmt::format("base = {}, {} scaling f = {} from {}", format_number(settings.base),
                                   to_string(rr.model.rope.type), format_number(rr.params.factor), rr.model.name);
  }
  check_figure_options(opt.figure);
  const LayoutsDemo demo = layouts_demo(settings);
  const LayoutsSettings& s = demo.settings;
  const int d = demo.dim;
  const int exit_code = demo.passed() ? kOk : kVerifyFailed;

  if (!opt.csv.empty()) {
    const Table table{{"distance", "score_interleaved", "score_mixed", "score_fixed"},
                      {demo.distances, demo.score_interleaved, demo.score_mixed, demo.score_fixed}};
    write_output(opt.csv, to_csv(table), out);
  }
  draw(make_figure(demo, opt.figure), opt.figure);
  if (opt.csv == "-") return exit_code;

  out << fmt::format("rope layouts: d = {}, {} (docs/math.md (M5), (M6), (M8))\n", d, frequencies_text);
  out << "Meta's Llama code pairs channels (2i, 2i+1), the interleaved layout; Hugging Face's rotate_half\n"
         "pairs channels (i, i + d/2), the half layout. Pair i turns by m·θ_i in both.\n\n";

  out << "which channels form pair i:\n";
  out << fmt::format("{:>6}  {:>20}  {:>20}  {:>20}\n", "pair i", "θ_i", "interleaved (Meta)", "half (rotate_half)");
  for (int i = 0; i < d / 2; ++i) {
    const auto [a, b] = pair_channels(d, i, Layout::Interleaved);
    const auto [c, e] = pair_channels(d, i, Layout::Half);
    out << fmt::format("{:>6}  {:>20}  {:>20}  {:>20}\n", i, format_number(demo.theta[i]), fmt::format("({}, {})", a, b),
                       fmt::format("({}, {})", c, e));
  }

  const std::vector<int> perm = layout_perm(d);
  out << "\nthe permutation P from the interleaved to the half layout (M6):\n";
  out << fmt::format("  (P x)_i = x_(2i), (P x)_(i+d/2) = x_(2i+1): P x = x[perm], perm = {}\n", perm_text(perm));
  if (d <= kMaxPrintedMatrix) {
    out << "  P, with P[c, perm[c]] = 1:\n";
    for (int r = 0; r < d; ++r) {
      std::string row = "   ";
      for (int c = 0; c < d; ++c) row += c == perm[static_cast<std::size_t>(r)] ? " 1" : " 0";
      out << row << '\n';
    }
  }
  out << fmt::format("  R_half = P R_int Pᵀ at m = {} and n = {}: max |difference| = {} {}\n", format_number(s.m),
                     format_number(s.n), format_number(demo.conjugation_error),
                     demo.conjugation_error == 0.0 ? "(exact: P only moves entries)" : "— NOT EXACT");

  out << fmt::format("\nq, k ~ N(0, I), seed {}, stand for a query and a key made by Meta-format weights (interleaved).\n",
                     s.seed);
  out << fmt::format("the score of q and k, the query at m = {} and the key at n = {}:\n", format_number(s.m), format_number(s.n));
  const double bug = std::abs(demo.at.mixed - demo.at.interleaved);
  const double fix = std::abs(demo.at.fixed - demo.at.interleaved);
  out << fmt::format("  (a) Meta's interleaved kernel          <R_int,m q, R_int,n k>      = {}  (the trained score)\n",
                     format_number(demo.at.interleaved));
  out << fmt::format("  (b) rotate_half, weights unconverted   <R_half,m q, R_half,n k>    = {}\n",
                     format_number(demo.at.mixed));
  out << fmt::format("  (c) rotate_half, weights permuted by P <R_half,m Pq, R_half,n Pk>  = {}\n",
                     format_number(demo.at.fixed));
  out << fmt::format("  the bug changes the score by |(b) − (a)| = {}; the fix by |(c) − (a)| = {}{}\n", format_number(bug),
                     format_number(fix), fix == 0.0 ? "" : " — THE FIX FAILED");

  const long distances = s.max_distance + 1;
  out << fmt::format("\nover n − m = 0 … {} ({} distance{}, the query at m = {}):\n", s.max_distance, distances,
                     distances == 1 ? "" : "s", format_number(s.m));
  out << fmt::format("  the bug changes the score by up to {:.6g}, by {:.6g} on average;\n", demo.max_mixed_change,
                     demo.mean_mixed_change);
  out << fmt::format("  a score itself is of size √d = {:.6g} for q, k ~ N(0, I) (M15)\n", std::sqrt(static_cast<double>(d)));
  out << fmt::format("  the fix changes it by at most {}{}\n", format_number(demo.max_fixed_change),
                     demo.max_fixed_change == 0.0 ? ": equal bit for bit at every distance" : " — THE FIX FAILED");

  out << fmt::format("\neach layout alone satisfies <R_m q, R_n k> = q^T R_(n−m) k (M8) on these {} pairs of positions;\n",
                     demo.identity_interleaved.samples);
  out << "tolerance κ·ε·(d + M)·‖q‖‖k‖ (M13), M = the largest |m| + |n| + |n − m|:\n";
  for (const LayoutIdentityCheck* c : {&demo.identity_interleaved, &demo.identity_half}) {
    out << fmt::format("  {:<11}  max |Δ| = {:.3g}  tolerance {:.3g}  {}\n", to_string(c->layout), c->max_abs_error,
                       c->tolerance * c->scale, c->passed() ? "PASS" : "FAIL");
  }
  out << "so the bug breaks no identity and raises no error: it pairs channels that were never trained\n"
         "together, with other frequencies, and the model silently computes other attention scores.\n";
  if (opt.csv.empty()) out << "(the scores at every distance: --csv FILE)\n";
  if (exit_code != kOk) out << "\nLAYOUT CHECK FAILED\n";
  return exit_code;
}

Command add_layouts_command(CLI::App& app) {
  auto opt = std::make_shared<LayoutsOptions>();
  LayoutsSettings& s = opt->settings;
  CLI::App* sub = app.add_subcommand(
      "layouts", "The interleaved and half pair layouts, the permutation P, and the bug of mixing them");
  CLI::Option* dim = add_int_option(*sub, "-d,--dim", s.dim, fmt::format("dimension d: even, 2 … {}", kMaxLayoutsDim));
  CLI::Option* base = add_base_option(*sub, s.base);
  add_seed_option(*sub, s.seed, "seed of the random q, k (same seed, same output)");
  add_reals_option(*sub, "--position", opt->positions, "the query's position m, then the key's n: give it twice");
  add_long_option(*sub, "--max-distance", s.max_distance,
                  fmt::format("the sweep puts the key at m + δ, δ = 0 … max-distance (0 … {})", kMaxLayoutsDistance));
  sub->add_option("--csv", opt->csv,
                  "write distance,score_interleaved,score_mixed,score_fixed to FILE ('-' for stdout)")
      ->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  add_scaling_options(*sub, opt->scaling);
  sub->footer(
      "Example:\n  rope layouts --dim 8\n  rope layouts --dim 128 --position 100 --position 90 --max-distance 512 "
      "--png layouts.png");
  return {sub, [opt, dim, base](std::ostream& out) {
            opt->dim_given = dim->count() > 0;
            opt->base_given = base->count() > 0;
            return run_layouts(*opt, out);
          }};
}

}  // namespace rope::cli
