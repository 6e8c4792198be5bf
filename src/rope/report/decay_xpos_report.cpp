// The printers of rope decay --xpos (decay_xpos_report.hpp): the text and the figure.
#include "rope/report/decay_xpos_report.hpp"

#include <fmt/format.h>
#include <string>

#include "rope/report/text.hpp"

namespace rope {

namespace {

Value xpos_vector_value(const Eigen::VectorXd& v) {
  Value a = Value::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) a.push_back(v[i]);
  return a;
}

}  // namespace

Value xpos_decay_value(const XposDecayRun& run) {
  Value v = Value::object();
  v["dim"] = run.dim;
  v["base"] = run.base;
  v["scale_base"] = run.scale_base;
  v["zeta"] = xpos_vector_value(run.zeta);
  v["distances"] = xpos_vector_value(run.shown);
  v["bound"] = xpos_vector_value(run.at_shown.bound);
  v["xpos_bound"] = xpos_vector_value(run.at_shown.xpos_bound);
  v["zeta_first"] = xpos_vector_value(run.at_shown.zeta_first);
  v["zeta_mean"] = xpos_vector_value(run.at_shown.zeta_mean);
  v["zeta_last"] = xpos_vector_value(run.at_shown.zeta_last);
  return v;
}

Table xpos_decay_table(const XposDecayRun& run) {
  const XposDecay& c = run.curves;
  return Table{{"distance", "bound", "xpos_bound", "zeta_first", "zeta_mean", "zeta_last"},
               {run.x, c.bound, c.xpos_bound, c.zeta_first, c.zeta_mean, c.zeta_last}};
}

void print_xpos_decay(std::ostream& out, const XposDecayRun& run, const Text& t) {
  const int d = run.dim;
  out << t.tr(
      "xPos, d = {0}, base = {1}, s = {2} (docs/multi-axis.md (X1)-(X5)): the score of q at n_q and k at n_k\ncarries ζ_j^(m/s) on pair j, m = n_q − n_k, ζ_j = (2j/d + 0.4)/1.4 from {3:.6g} to {4:.6g}\n",
      d, format_number(run.base), format_number(run.scale_base), run.zeta[0], run.zeta[d / 2 - 1]);
  out << t.tr(
      "  bound: RoFormer's f(m) (M11); xPos bound: f_ζ(m) (X5), the same sum with ζ_i^(m/s) in each term;\n  both divided by f(0) = (d/2 + 1)/2; then ζ_0^(m/s), the mean over pairs and ζ_(d/2−1)^(m/s)\n\n");
  const XposDecay& r = run.at_shown;
  out << fmt::format("{:>12}  {:>12}  {:>12}  {:>12}  {:>12}  {:>12}\n", t.tr("distance m"), t.tr("bound"),
                     t.tr("xPos bound"), "ζ_0^(m/s)", t.tr("mean ζ^(m/s)"), fmt::format("ζ_{}^(m/s)", d / 2 - 1));
  for (Eigen::Index k = 0; k < run.shown.size(); ++k) {
    out << fmt::format("{:>12}  {:>12.6f}  {:>12.6f}  {:>12.6f}  {:>12.6f}  {:>12.6f}\n", format_number(run.shown[k]),
                       r.bound[k], r.xpos_bound[k], r.zeta_first[k], r.zeta_mean[k], r.zeta_last[k]);
  }
  if (!run.request.csv) out << t.tr("(every distance of the figure: {0} FILE)\n", option_name("csv"));
}

plot::Figure xpos_decay_figure(const XposDecayRun& run, const Text& t) {
  const int d = run.dim;
  const XposDecay& c = run.curves;
  plot::Figure fig;
  fig.title =
      t.tr("xPos scale factor ζ^(m/s) next to the decay bound, d = {0}, s = {1}", d, format_number(run.scale_base));
  fig.xlabel = t.tr("relative distance m");
  fig.ylabel = t.tr("value / value at m = 0");
  fig.log_x = run.request.log_x;
  fig.key = plot::Figure::Key::Below;  // the slowest pair runs along the top: a legend there would hide it
  fig.series.push_back({t.tr("RoFormer bound f(m)/f(0)"), run.x, c.bound, 0});
  fig.series.push_back({t.tr("xPos bound (X5) divided by f(0)"), run.x, c.xpos_bound, 1});
  fig.series.push_back({t.tr("ζ₀^(m/s), fastest pair"), run.x, c.zeta_first, 2, true});
  fig.series.push_back({t.tr("mean of ζⱼ^(m/s)"), run.x, c.zeta_mean, 3, true});
  fig.series.push_back({t.tr("ζ^(m/s) of pair {0}, slowest", d / 2 - 1), run.x, c.zeta_last, 4, true});
  return fig;
}

}  // namespace rope
