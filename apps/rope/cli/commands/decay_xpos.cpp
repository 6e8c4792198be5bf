// rope decay --xpos: xPos's scale factor ζ^(m/s) against distance next to RoFormer's bound, docs/multi-axis.md
// (X1), (X5): a helper of cmd_decay.cpp (its options are decay_options.hpp's).
#include <fmt/format.h>

#include <cmath>

#include "rope/analysis/calculators/decay.hpp"
#include "rope/analysis/verify/xpos.hpp"
#include "rope/cli/commands/decay_options.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/io/csv.hpp"

namespace rope::cli {

int run_decay_xpos(const DecayOptions& opt, std::ostream& out) {
  if (opt.kind != DecayKind::Bound || opt.scaling.any() || opt.rerope_window || opt.base_values().size() > 1 ||
      opt.normalize || opt.log_y) {
    throw InvalidArgument(error_msg(
        "--xpos draws plain RoPE's bound with one --base: leave out --kind, --model, --config, --scaling, --rerope, --normalize (the curves are already divided by f(0)) and --log-y"));
  }
  const double s = opt.xpos_scale_base;
  if (!(s > 0) || !std::isfinite(s)) {
    throw InvalidArgument(error_msg("--xpos-scale-base must be a finite number > 0 (got {0})", format_number(s)));
  }
  if (opt.max_distance / s > kMaxXposPower) {
    throw InvalidArgument(error_msg(
        "--max-distance {0} over --xpos-scale-base {1} is over {2}: ζ^(m/s) would leave the range of float64 numbers kept to full precision",
        format_number(opt.max_distance), format_number(s), fmt::format("{:g}", kMaxXposPower)));
  }
  const int d = opt.dim.value_or(kDefaultDecayDim);
  check_dimension(d);
  const double base = opt.base_values().front();
  check_base(base);
  const Eigen::VectorXd theta = frequencies(d, base);
  // xpos_bound is O(d) per distance with a pow per pair: the cells bound is that of cmd_decay (6 columns).
  const long points = opt.point_count();
  if (static_cast<double>(points) * 6 > kMaxCells) {
    throw InvalidArgument(
        error_msg("--points {0} × 6 columns is {1} values, over the limit of {2} (kMaxCells): use fewer points", points,
                  fmt::format("{:g}", static_cast<double>(points) * 6), fmt::format("{:g}", kMaxCells)));
  }
  // (X5) costs a pow, a sin and a cos per pair and distance (about 0.1–0.2 µs on the 2-core machine of
  // docs/errors.md): 1e8 terms is some 10–20 s, where --dim 65536 at 256 001 distances was 10 minutes.
  const double terms = static_cast<double>(points) * static_cast<double>(d / 2);
  if (terms > kMaxXposTerms) {
    throw InvalidArgument(error_msg(
        "--xpos: {0} distances × d/2 = {1} pairs is {2} terms of (X5), over the limit of {3}: use fewer --points or a smaller --dim",
        points, d / 2, fmt::format("{:g}", terms), fmt::format("{:g}", kMaxXposTerms)));
  }
  const Eigen::VectorXd x = opt.log_x ? logspace(opt.max_distance, points) : linspace(opt.max_distance, points);
  const XposDecay c = xpos_decay(theta, s, x);
  if (!opt.csv.empty()) {
    write_output(opt.csv,
                 Table{{"distance", "bound", "xpos_bound", "zeta_first", "zeta_mean", "zeta_last"},
                       {x, c.bound, c.xpos_bound, c.zeta_first, c.zeta_mean, c.zeta_last}},
                 out);
  }
  const FigureOptions& f = opt.figure;
  plot::Figure fig;
  fig.title = f.tr("xPos scale factor ζ^(m/s) next to the decay bound, d = {0}, s = {1}", d, format_number(s));
  fig.xlabel = f.tr("relative distance m");
  fig.ylabel = f.tr("value / value at m = 0");
  fig.log_x = opt.log_x;
  fig.key = plot::Figure::Key::Below;  // the slowest pair runs along the top: a legend there would hide it
  fig.series.push_back({f.tr("RoFormer bound f(m)/f(0)"), x, c.bound, 0});
  fig.series.push_back({f.tr("xPos bound (X5) divided by f(0)"), x, c.xpos_bound, 1});
  fig.series.push_back({f.tr("ζ₀^(m/s), fastest pair"), x, c.zeta_first, 2, true});
  fig.series.push_back({f.tr("mean of ζⱼ^(m/s)"), x, c.zeta_mean, 3, true});
  fig.series.push_back({f.tr("ζ^(m/s) of pair {0}, slowest", d / 2 - 1), x, c.zeta_last, 4, true});
  draw(fig, f);
  if (opt.csv == "-") return kOk;

  const Text t = f.tr();
  out << t.tr(
      "xPos, d = {0}, base = {1}, s = {2} (docs/multi-axis.md (X1)-(X5)): the score of q at n_q and k at n_k\ncarries ζ_j^(m/s) on pair j, m = n_q − n_k, ζ_j = (2j/d + 0.4)/1.4 from {3:.6g} to {4:.6g}\n",
      d, format_number(base), format_number(s), xpos_zeta(d)[0], xpos_zeta(d)[d / 2 - 1]);
  out << t.tr(
      "  bound: RoFormer's f(m) (M11); xPos bound: f_ζ(m) (X5), the same sum with ζ_i^(m/s) in each term;\n  both divided by f(0) = (d/2 + 1)/2; then ζ_0^(m/s), the mean over pairs and ζ_(d/2−1)^(m/s)\n\n");
  std::vector<double> shown{opt.log_x ? 1.0 : 0.0};
  for (double decade = 1; decade <= opt.max_distance; decade *= 10) {
    for (double step : {1.0, 2.0, 5.0}) {
      if (step * decade < opt.max_distance && step * decade > shown.front()) shown.push_back(step * decade);
    }
  }
  if (opt.max_distance > shown.front()) shown.push_back(opt.max_distance);
  const Eigen::VectorXd at = Eigen::Map<const Eigen::VectorXd>(shown.data(), static_cast<Eigen::Index>(shown.size()));
  const XposDecay r = xpos_decay(theta, s, at);
  out << fmt::format("{:>12}  {:>12}  {:>12}  {:>12}  {:>12}  {:>12}\n", t.tr("distance m"), t.tr("bound"),
                     t.tr("xPos bound"), "ζ_0^(m/s)", t.tr("mean ζ^(m/s)"), fmt::format("ζ_{}^(m/s)", d / 2 - 1));
  for (Eigen::Index k = 0; k < at.size(); ++k) {
    out << fmt::format("{:>12}  {:>12.6f}  {:>12.6f}  {:>12.6f}  {:>12.6f}  {:>12.6f}\n", format_number(at[k]),
                       r.bound[k], r.xpos_bound[k], r.zeta_first[k], r.zeta_mean[k], r.zeta_last[k]);
  }
  if (opt.csv.empty()) out << t.tr("(every distance of the figure: --csv FILE)\n");
  return kOk;
}

}  // namespace rope::cli
