// The printers of rope precision (precision_report.hpp): the text and the figure.
#include "rope/report/precision_report.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rope/report/digits.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

/// Colour per type, line style per strategy.
plot::Series precision_series(const CurveErrors& c, const Eigen::VectorXd& x, PrecisionMetric metric) {
  // A log axis has no place for 0 (exact) or for infinity (overflow): those points are left out of the
  // figure (they are in the CSV).
  const Eigen::VectorXd& y = metric_values(c, metric);
  std::vector<double> xs, ys;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    if (std::isfinite(y[i]) && y[i] > 0) xs.push_back(x[i]), ys.push_back(y[i]);
  }
  plot::Series s;
  s.label = c.spec.name();
  s.x = Eigen::Map<const Eigen::VectorXd>(xs.data(), static_cast<Eigen::Index>(xs.size()));
  s.y = Eigen::Map<const Eigen::VectorXd>(ys.data(), static_cast<Eigen::Index>(ys.size()));
  s.color = static_cast<int>(c.spec.type);
  s.dashed = c.spec.type != DType::F64 && c.spec.strategy == Strategy::AngleF32;
  s.line_width = c.spec.type != DType::F64 && c.spec.strategy == Strategy::CastResult ? 1.2 : 2.5;
  return s;
}

/// A table cell: the error with the table's digits, "overflow" where the type overflowed.
std::string precision_cell(double v, int digits) {
  return std::isinf(v) ? std::string("overflow") : sci_with_digits(v, digits);
}

/// The errors of a vector, an overflow (infinity) as null.
Value precision_errors_value(const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

}  // namespace

Value precision_value(const PrecisionRun& run) {
  const PrecisionRequest& q = run.request;
  const PrecisionSettings& s = q.settings;
  Value v = Value::object();
  v["dim"] = s.dim;
  v["base"] = s.base;
  v["layout"] = std::string(to_string(s.layout));
  v["samples"] = s.samples;
  v["seed"] = s.seed;
  v["distance"] = s.distance;
  v["max_position"] = q.max_position;
  v["threshold"] = q.threshold;
  v["positions"] = precision_errors_value(run.grid);
  Value curves = Value::array();
  for (const CurveErrors& c : run.curves) {
    Value one = Value::object();
    one["name"] = c.spec.name();
    one["column"] = c.spec.column();
    one["type"] = std::string(to_string(c.spec.type));
    one["strategy"] = std::string(to_string(c.spec.strategy));
    one["angle"] = precision_errors_value(c.angle);
    one["vector"] = precision_errors_value(c.vector);
    one["identity"] = precision_errors_value(c.identity);
    curves.push_back(one);
  }
  v["curves"] = curves;
  Value table = Value::object();
  table["positions"] = run.at;
  Value rows = Value::array();
  for (const CurveErrors& c : run.summary) {
    Value one = Value::object();
    one["name"] = c.spec.name();
    one["angle"] = precision_errors_value(c.angle);
    one["vector"] = precision_errors_value(c.vector);
    one["identity"] = precision_errors_value(c.identity);
    rows.push_back(one);
  }
  table["curves"] = rows;
  v["table"] = table;
  Value crossings = Value::array();
  for (std::size_t k = 0; k < run.specs.size(); ++k) {
    Value one = Value::object();
    one["name"] = run.specs[k].name();
    one["position"] = run.crossings[k];
    crossings.push_back(one);
  }
  v["crossings"] = crossings;
  Value merges = Value::array();
  for (const PositionMerges& r : run.merges) {
    Value one = Value::object();
    one["type"] = std::string(to_string(r.type));
    one["exact_up_to"] = max_exact_integer(r.type);
    one["distinct"] = r.distinct;
    one["merged"] = r.merged;
    one["overflow"] = r.overflow;
    Value groups = Value::array();
    for (const auto& g : r.first_groups) groups.push_back(std::vector<double>{g.value, g.first, g.last});
    one["first_groups"] = groups;
    merges.push_back(one);
  }
  v["merges"] = merges;
  return v;
}

Table precision_table(const PrecisionRun& run) {
  Table table{{"position"}, {run.grid}};
  for (const CurveErrors& c : run.curves) {
    for (const auto& [name, v] :
         {std::pair{"angle", &c.angle}, std::pair{"vector", &c.vector}, std::pair{"identity", &c.identity}}) {
      table.header.push_back(c.spec.column() + "_" + name);
      table.columns.push_back(*v);
    }
  }
  return table;
}

std::vector<std::string> precision_left_out(const PrecisionRun& run) {
  std::vector<std::string> left_out;
  for (const CurveErrors& c : run.curves) {
    const plot::Series series = precision_series(c, run.grid, run.request.metric);
    if (series.x.size() == 0) left_out.push_back(series.label);
  }
  return left_out;
}

plot::Figure precision_figure(const PrecisionRun& run, const Text& f) {
  const PrecisionRequest& opt = run.request;
  const PrecisionSettings& s = opt.settings;
  plot::Figure fig;
  fig.log_x = true;
  fig.log_y = true;
  fig.key = plot::Figure::Key::Below;
  fig.xrange = std::pair{1.0, std::max(2.0, opt.max_position)};
  fig.xlabel = f.tr("position m");
  switch (opt.metric) {
    case PrecisionMetric::Angle:
      fig.title = f.tr("RoPE angle error in low precision, d = {0}, base = {1}", s.dim, format_number(s.base));
      fig.ylabel = f.tr("maxᵢ |φᵢ − m·θᵢ| (rad)");
      fig.lines.push_back(
          {plot::ReferenceLine::Axis::Y, opt.threshold, f.tr("threshold {0} rad", format_number(opt.threshold)), -1});
      break;
    case PrecisionMetric::Vector:
      fig.title =
          f.tr("error of the rotated vector Rₘ q in low precision, d = {0}, base = {1}", s.dim, format_number(s.base));
      fig.ylabel = f.tr("‖Rₘ q − exact‖ / ‖q‖ (RMS)");
      break;
    case PrecisionMetric::Identity:
      fig.title = f.tr("error of ⟨Rₘ q, Rₙ k⟩ = qᵀ Rₙ₋ₘ k in low precision, n = m + {0}, d = {1}",
                       format_number(s.distance), s.dim);
      fig.ylabel = f.tr("|⟨Rₘ q, Rₙ k⟩ − qᵀ Rₙ₋ₘ k| (RMS)");
      break;
  }
  for (const CurveErrors& c : run.curves) {
    plot::Series series = precision_series(c, run.grid, opt.metric);
    if (series.x.size() != 0) fig.series.push_back(std::move(series));
  }
  return fig;
}

void print_precision(std::ostream& out, const PrecisionRun& run, const Text& t, const std::optional<int>& asked,
                     bool wide) {
  const PrecisionRequest& opt = run.request;
  const PrecisionSettings& s = opt.settings;
  out << t.tr(
      "rope precision: d = {0}, base = {1}, {2} layout, positions up to {3},\n"
      "  {4} random pairs q, k ~ N(0, I), seed {5}\n",
      s.dim, format_number(s.base), to_string(s.layout), format_number(opt.max_position), s.samples, s.seed);
  out << t.tr("errors against a long double reference (docs/precision.md):\n");
  out << t.tr("  angle     max_i |φ_i − m·θ_i| in rad, the angle as the strategy computes it (P7)\n");
  out << t.tr("  vector    ‖R_m q − exact‖ / ‖q‖, root mean square over the pairs (P8)\n");
  out << t.tr(
      "  identity  |⟨R_m q, R_n k⟩ − qᵀ R_{{n−m}} k|, n = m + {0}, both sides in the type,\n"
      "            root mean square (P8)\n",
      format_number(s.distance));
  out << t.tr(
      "strategies: cast-inputs = m and θ cast to the type, angle and cos/sin in it (P3);\n"
      "  angle-f32 = angle and cos/sin in float32, then cast (P4);\n"
      "  cast-result = all in float64, the result cast (P5)\n");

  const std::vector<double>& at = run.at;
  for (const auto& [title, m] : {std::pair{t.tr("angle error (rad)"), PrecisionMetric::Angle},
                                 std::pair{t.tr("vector error (relative)"), PrecisionMetric::Vector},
                                 std::pair{t.tr("identity error (absolute)"), PrecisionMetric::Identity}}) {
    // A column compares the curves at one position: the table shows the significant digits that tell its
    // different errors apart in every column (digits.hpp, at least 3), one count for the table, or --digits N.
    std::vector<std::vector<double>> columns(at.size());
    for (const CurveErrors& c : run.summary) {
      for (std::size_t i = 0; i < at.size(); ++i)
        columns[i].push_back(metric_values(c, m)[static_cast<Eigen::Index>(i)]);
    }
    const int digits = digits_for(columns, asked, 3);
    std::size_t w = 10;
    for (const auto& column : columns) {
      for (const double v : column) w = std::max(w, precision_cell(v, digits).size());
    }
    out << '\n' << title << '\n';
    std::string header = fmt::format("  {:<18}", t.tr("position m"));
    for (double p : at) header += fmt::format(" {:>{}}", format_number(p), w);
    out << header << '\n';
    for (const CurveErrors& c : run.summary) {
      std::string line = fmt::format("  {:<18}", c.spec.name());
      const Eigen::VectorXd& v = metric_values(c, m);
      for (Eigen::Index i = 0; i < v.size(); ++i) line += fmt::format(" {:>{}}", precision_cell(v[i], digits), w);
      out << line << '\n';
    }
  }

  out << '\n'
      << t.tr("first position where the angle error exceeds {0} rad (every integer 0 … {1} checked, (P9)):\n",
              format_number(opt.threshold), format_number(opt.max_position));
  for (std::size_t k = 0; k < run.specs.size(); ++k) {
    const std::optional<double>& crossing = run.crossings[k];
    out << fmt::format("  {:<18} {}\n", run.specs[k].name(),
                       crossing ? format_number(*crossing) : t.tr("none up to {0}", format_number(opt.max_position)));
  }

  out << '\n' << t.tr("integer positions 0 … {0} the type cannot keep apart (P2):\n", format_number(opt.max_position));
  out << fmt::format("  {:<6} {:>16} {:>10} {:>10} {:>10}  {}\n", t.tr("type"), t.tr("exact up to"), t.tr("distinct"),
                     t.tr("merged"), t.tr("overflow"), t.tr("first merges (value ← positions)"));
  for (const PositionMerges& r : run.merges) {
    std::string groups;
    // The default table fits 100 columns: the first two merges; --wide: all of first_groups.
    for (std::size_t k = 0; k < r.first_groups.size() && (wide || k < 2); ++k) {
      const auto& g = r.first_groups[k];
      groups += fmt::format("{}{} ← {}{}{}", groups.empty() ? "" : "; ", format_number(g.value), format_number(g.first),
                            g.last == g.first + 1 ? ", " : " … ", format_number(g.last));
    }
    out << fmt::format("  {:<6} {:>16} {:>10} {:>10} {:>10}  {}\n", to_string(r.type),
                       format_number(max_exact_integer(r.type)), r.distinct, r.merged, r.overflow,
                       groups.empty() ? "-" : groups);
  }
  const std::vector<std::string> left_out = opt.figure ? precision_left_out(run) : std::vector<std::string>{};
  if (!left_out.empty()) {
    out << t.tr(
        "note: the figure leaves out {0} curve(s) with no error to draw on its log axis (exact or "
        "overflowing at every position): {1}\n",
        left_out.size(), fmt::join(left_out, ", "));
  }
  if (!opt.csv) {
    out << t.tr("(the {0} log-spaced positions 1 … {1}: {2} FILE)\n", run.grid.size(), format_number(opt.max_position),
                option_name("csv"));
  }
}

}  // namespace rope
