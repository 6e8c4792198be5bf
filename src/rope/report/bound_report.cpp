// The printers of rope bound (bound_report.hpp): the text and the figure.
#include "rope/report/bound_report.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "rope/report/text.hpp"

namespace rope {

namespace {

std::string bound_base_text(double b) { return fmt::format("{:.6g}", b); }

}  // namespace

Value bound_value(const BoundRun& run) {
  const BoundScan& scan = run.scan;
  Value v = Value::object();
  v["context"] = scan.context;
  v["dim"] = scan.dim;
  v["per_decade"] = scan.per_decade;
  v["default_range"] = run.default_range;
  Value bases = Value::array();
  for (std::size_t b = 0; b < scan.bases.size(); ++b) {
    Value one = Value::object();
    one["base"] = scan.bases[b];
    one["min_b"] = scan.minimum[b].value;
    one["argmin_m"] = scan.minimum[b].at;
    one["passes"] = scan.minimum[b].passes();
    bases.push_back(one);
  }
  v["bases"] = bases;
  v["smallest_passing"] = scan.smallest_passing;
  v["always_passes_from"] = scan.always_passes_from;
  Value intervals = Value::array();
  for (const auto& [first, last] : scan.pass_intervals) intervals.push_back(std::vector<double>{first, last});
  v["pass_intervals"] = intervals;
  return v;
}

Table bound_table(const BoundRun& run) {
  const BoundScan& scan = run.scan;
  const auto n = static_cast<Eigen::Index>(scan.bases.size());
  Eigen::VectorXd base(n), value(n), at(n), pass(n);
  for (Eigen::Index b = 0; b < n; ++b) {
    const BoundMinimum& m = scan.minimum[static_cast<std::size_t>(b)];
    base[b] = scan.bases[static_cast<std::size_t>(b)];
    value[b] = m.value;
    at[b] = static_cast<double>(m.at);
    pass[b] = m.passes() ? 1.0 : 0.0;
  }
  return Table{{"base", "min_B", "argmin_m", "passes"}, {base, value, at, pass}};
}

void print_bound(std::ostream& out, const BoundRun& run, const Text& t) {
  const BoundScan& scan = run.scan;
  const std::size_t n = scan.bases.size();
  out << t.tr("Base of RoPE bounds context length (Men et al. 2024; docs/calculators.md (C1)–(C4)):\n");
  out << t.tr("  criterion: B(m) = Σ_i cos(m·θ_i) ≥ 0 for every integer m from 0 to L = {0}, d = {1}\n", scan.context,
              scan.dim);
  out << t.tr("  grid: {0} bases 10^(k/{1}) from {2} to {3}", n, scan.per_decade, bound_base_text(scan.bases.front()),
              bound_base_text(scan.bases.back()));
  if (run.default_range) {
    out << t.tr(
        " (default range F/4 … 8F around the fit F = 0.0424·L^1.628 = {0} of the paper's Fig. 1 for d = 128, (C5))",
        bound_base_text(0.0424 * std::pow(static_cast<double>(scan.context), 1.628)));
  }
  out << '\n';
  out << t.tr("  every integer m ≤ L is covered for every base: min B(m) is exact, not sampled\n\n");

  std::size_t passing = 0;
  for (const auto& m : scan.minimum) passing += m.passes() ? 1 : 0;
  out << t.tr("{0} of {1} grid bases pass.\n", passing, n);
  if (scan.smallest_passing) {
    const auto it = std::find(scan.bases.begin(), scan.bases.end(), *scan.smallest_passing);
    const BoundMinimum& m = scan.minimum[static_cast<std::size_t>(it - scan.bases.begin())];
    out << t.tr("smallest passing base: {0} (min B = {1:.5f} at m = {2})\n", bound_base_text(*scan.smallest_passing),
                m.value, m.at);
    if (scan.smallest_passing == scan.bases.front()) {
      out << t.tr("  note: the lowest grid base passes; smaller passing bases may lie below the range (lower {0})\n",
                  option_name("base_range"));
    }
  } else {
    out << t.tr("no grid base passes: raise {0}\n", option_name("base_range"));
  }
  if (scan.always_passes_from) {
    out << t.tr("every grid base from {0} to the top of the range ({1}) passes\n",
                bound_base_text(*scan.always_passes_from), bound_base_text(scan.bases.back()));
  } else if (scan.smallest_passing) {
    out << t.tr("the top of the range fails: no base above which all pass within it (raise {0})\n",
                option_name("base_range"));
  }
  if (scan.pass_intervals.size() > 1) {
    out << t.tr(
        "\nThe pass set is NOT monotone in the base: {0} separate pass intervals on this grid.\n"
        "A larger base can fail where a smaller one passes, and a finer grid can find other passing bases,\n"
        "so \"the\" smallest base depends on the grid; read the whole curve ({1}, {2}).\n",
        scan.pass_intervals.size(), option_name("png"), option_name("csv"));
  } else if (!scan.pass_intervals.empty()) {
    out << t.tr(
        "\nOne pass interval on this grid; the pass set need not be monotone in general (a finer grid may split it).\n");
  }
  if (!scan.pass_intervals.empty()) {
    out << t.tr("pass intervals (first … last passing grid base of each run):\n");
    for (std::size_t i = 0; i < scan.pass_intervals.size() && i < kMaxIntervalsShown; ++i) {
      const auto& [first, last] = scan.pass_intervals[i];
      out << fmt::format("  {:>12} … {}\n", bound_base_text(first), bound_base_text(last));
    }
    if (scan.pass_intervals.size() > kMaxIntervalsShown) {
      out << t.tr("  … and {0} more ({1} FILE has every grid base)\n", scan.pass_intervals.size() - kMaxIntervalsShown,
                  option_name("csv"));
    }
  }
  if (!run.request.csv) {
    out << t.tr("(min B(m), its m and the verdict of every grid base: {0} FILE)\n", option_name("csv"));
  }
}

plot::Figure bound_figure(const BoundRun& run, const Text& t) {
  const BoundScan& scan = run.scan;
  const auto n = static_cast<Eigen::Index>(scan.bases.size());
  Eigen::VectorXd x(n), y(n);
  for (Eigen::Index b = 0; b < n; ++b) {
    x[b] = scan.bases[static_cast<std::size_t>(b)];
    y[b] = scan.minimum[static_cast<std::size_t>(b)].value;
  }
  plot::Figure fig;
  fig.title = t.tr("Base of RoPE bounds context length: min B(m) over 0 ≤ m ≤ {0}, d = {1}", scan.context, scan.dim);
  fig.xlabel = t.tr("base (log scale)");
  fig.ylabel = "min B(m),  B(m) = Σᵢ cos(m·θᵢ)";
  fig.log_x = true;
  fig.key = plot::Figure::Key::Below;
  double lo = std::min(0.0, y.minCoeff());
  double hi = std::max(0.0, y.maxCoeff());
  const double pad = 0.05 * (hi - lo + 1e-12);
  lo -= pad;
  hi += pad;
  // Shading: each grid base owns the cell from half a grid step below it to half a step above (on
  // the log axis), shaded over the full height green where it passes, vermillion where it fails.
  const double half_step = std::pow(10.0, 0.5 / scan.per_decade);
  Eigen::VectorXd cells(2 * n), pass_upper(2 * n), fail_upper(2 * n);
  for (Eigen::Index b = 0; b < n; ++b) {
    const bool ok = scan.minimum[static_cast<std::size_t>(b)].passes();
    cells[2 * b] = x[b] / half_step;
    cells[2 * b + 1] = x[b] * half_step;
    pass_upper[2 * b] = pass_upper[2 * b + 1] = ok ? hi : lo;
    fail_upper[2 * b] = fail_upper[2 * b + 1] = ok ? lo : hi;
  }
  const Eigen::VectorXd bottom = Eigen::VectorXd::Constant(2 * n, lo);
  fig.series.push_back({t.tr("min B(m) over 0 ≤ m ≤ L"), x, y, 0});
  fig.bands.push_back({t.tr("passes: B(m) ≥ 0 for every m ≤ L"), cells, bottom, pass_upper, 2});
  fig.bands.push_back({t.tr("fails"), cells, bottom, fail_upper, 1});
  // The passing bases below the region where all pass, as dots: a pass interval of one grid base is
  // a sliver of shading only.
  std::vector<double> px, py;
  for (Eigen::Index b = 0; b < n; ++b) {
    if (scan.minimum[static_cast<std::size_t>(b)].passes() &&
        (!scan.always_passes_from || x[b] < *scan.always_passes_from)) {
      px.push_back(x[b]);
      py.push_back(y[b]);
    }
  }
  if (!px.empty()) {
    plot::Series dots{t.tr("passing bases below the all-pass region"),
                      Eigen::Map<const Eigen::VectorXd>(px.data(), static_cast<Eigen::Index>(px.size())),
                      Eigen::Map<const Eigen::VectorXd>(py.data(), static_cast<Eigen::Index>(py.size())), 2};
    dots.points = true;
    fig.series.push_back(dots);
  }
  fig.lines.push_back({plot::ReferenceLine::Axis::Y, 0.0, "B = 0", -1});
  if (scan.smallest_passing) {
    fig.lines.push_back({plot::ReferenceLine::Axis::X, *scan.smallest_passing,
                         t.tr("smallest passing {0}", bound_base_text(*scan.smallest_passing)), -1});
  }
  if (scan.always_passes_from && scan.always_passes_from != scan.smallest_passing) {
    fig.lines.push_back({plot::ReferenceLine::Axis::X, *scan.always_passes_from,
                         t.tr("all pass from {0}", bound_base_text(*scan.always_passes_from)), -1});
  }
  fig.xrange = std::pair{cells[0], cells[2 * n - 1]};
  fig.yrange = std::pair{lo, hi};
  return fig;
}

}  // namespace rope
