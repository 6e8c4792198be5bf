// rope precision: what float32, float16 and bfloat16 cost RoPE at long positions, docs/precision.md
// (P1)–(P9): error curves per type and strategy against a long double reference, the position where
// the angle error passes a threshold, and the positions a type merges. Table, CSV, log–log figure.
#include <algorithm>
#include <cmath>
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <memory>

#include "rope/cli/choice_option.hpp"
#include "rope/cli/commands.hpp"
#include "rope/report/digits.hpp"
#include "rope/cli/exit_codes.hpp"
#include "rope/cli/figure_options.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/output.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/error.hpp"
#include "rope/core/parse.hpp"
#include "rope/analysis/precision.hpp"

namespace rope::cli {

inline constexpr long kMaxPrecisionPoints = 10000;
/// Bound on points × samples × d, from its measured cost: about 5.5·10^5 units a second on one core
/// (d = 512, 100 and 400 samples, 48 points: 4.2 s and 18.3 s), so 3·10^7 is about a minute. (It was
/// 2·10^9: d = 4096, 10 000 samples, 48 points took 65 minutes.)
inline constexpr double kMaxPrecisionWork = 3e7;

enum class Metric { Angle, Vector, Identity };

struct PrecisionOptions {
  PrecisionSettings settings;
  double max_position = 1048576;
  std::vector<DType> dtypes{DType::F64, DType::F32, DType::F16, DType::BF16};
  std::vector<Strategy> strategies{Strategy::CastInputs, Strategy::AngleF32, Strategy::CastResult};
  long points = 100;
  std::vector<double> at{7, 1000, 32768, 1048576};
  double threshold = 1e-2;
  Metric metric = Metric::Identity;
  std::string csv;
  FigureOptions figure;
  bool wide = false;          ///< --wide: every merge group of the position table
  std::optional<int> digits;  ///< --digits N: significant digits of the error tables (digits.hpp); nullopt: the policy
};

namespace {

Metric parse_metric(std::string_view text) {
  if (text == "angle") return Metric::Angle;
  if (text == "vector") return Metric::Vector;
  if (text == "identity") return Metric::Identity;
  throw InvalidArgument(error_msg("{0} must be '{1}', '{2}' or '{3}' (got '{4}')", option_name("metric"), "angle",
                                  "vector", "identity", text));
}

const Eigen::VectorXd& values(const CurveErrors& c, Metric m) {
  return m == Metric::Angle ? c.angle : m == Metric::Vector ? c.vector : c.identity;
}

/// Colour per type, line style per strategy.
plot::Series series_of(const CurveErrors& c, const Eigen::VectorXd& x, Metric metric) {
  // A log axis has no place for 0 (exact) or for infinity (overflow): those points are left out of the
  // figure (they are in the CSV).
  const Eigen::VectorXd& y = values(c, metric);
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

/// The figure; a curve with no point to draw (exact everywhere, or overflowing) is left out and named
/// in `left_out`.
plot::Figure make_figure(const PrecisionOptions& opt, Metric metric, const Eigen::VectorXd& x,
                         const std::vector<CurveErrors>& curves, std::vector<std::string>& left_out) {
  const FigureOptions& f = opt.figure;
  const PrecisionSettings& s = opt.settings;
  plot::Figure fig;
  fig.log_x = true;
  fig.log_y = true;
  fig.key = plot::Figure::Key::Below;
  fig.xrange = std::pair{1.0, std::max(2.0, opt.max_position)};
  fig.xlabel = f.tr("position m");
  switch (metric) {
    case Metric::Angle:
      fig.title = f.tr("RoPE angle error in low precision, d = {0}, base = {1}", s.dim, format_number(s.base));
      fig.ylabel = f.tr("maxᵢ |φᵢ − m·θᵢ| (rad)");
      fig.lines.push_back(
          {plot::ReferenceLine::Axis::Y, opt.threshold, f.tr("threshold {0} rad", format_number(opt.threshold)), -1});
      break;
    case Metric::Vector:
      fig.title =
          f.tr("error of the rotated vector R_m q in low precision, d = {0}, base = {1}", s.dim, format_number(s.base));
      fig.ylabel = f.tr("‖R_m q − exact‖ / ‖q‖ (RMS)");
      break;
    case Metric::Identity:
      fig.title = f.tr("error of <R_m q, R_n k> = q^T R_{{n−m}} k in low precision, n = m + {0}, d = {1}",
                       format_number(s.distance), s.dim);
      fig.ylabel = f.tr("|<R_m q, R_n k> − q^T R_{n−m} k| (RMS)");
      break;
  }
  for (const CurveErrors& c : curves) {
    plot::Series series = series_of(c, x, metric);
    if (series.x.size() == 0) {
      left_out.push_back(series.label);
    } else {
      fig.series.push_back(std::move(series));
    }
  }
  return fig;
}

std::vector<double> table_positions(const PrecisionOptions& opt) {
  std::vector<double> at;
  for (double m : opt.at) {
    if (m <= opt.max_position && (at.empty() || m > at.back())) at.push_back(m);
  }
  if (at.empty() || at.back() < opt.max_position) at.push_back(opt.max_position);
  return at;
}

/// A table cell: the error with the table's digits, "overflow" where the type overflowed.
std::string cell(double v, int digits) { return std::isinf(v) ? std::string("overflow") : sci_with_digits(v, digits); }

}  // namespace

int run_precision(const PrecisionOptions& opt, std::ostream& out) {
  const PrecisionSettings& s = opt.settings;
  check_figure_options(opt.figure);
  const Text t = opt.figure.tr();
  const Metric metric = opt.metric;
  check_precision_settings(s);
  if (!(opt.max_position >= 1 && opt.max_position <= kMaxPrecisionPosition) ||
      opt.max_position != std::floor(opt.max_position)) {
    throw InvalidArgument(error_msg("{0} must be an integer between {1} and {2} (got {3})", option_name("max_position"),
                                    1, format_number(kMaxPrecisionPosition), format_number(opt.max_position)));
  }
  if (opt.points < 2 || opt.points > kMaxPrecisionPoints) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("points"), 2,
                                    kMaxPrecisionPoints, opt.points));
  }
  if (static_cast<double>(opt.points) * static_cast<double>(s.samples) * s.dim > kMaxPrecisionWork) {
    throw InvalidArgument(error_msg("{0} × {1} × {2} must be at most {3} (got {4} × {5} × {6})", option_name("points"),
                                    option_name("samples"), option_name("dim"), fmt::format("{:g}", kMaxPrecisionWork),
                                    opt.points, s.samples, s.dim));
  }
  if (!(opt.threshold > 0) || !std::isfinite(opt.threshold)) {
    throw InvalidArgument(error_msg("{0} must be a positive number of radians (got {1})", option_name("threshold"),
                                    format_number(opt.threshold)));
  }
  for (double m : opt.at) {
    if (!(m >= 0 && m <= kMaxPrecisionPosition)) {
      throw InvalidArgument(error_msg("{0} positions must be between {1} and {2} (got {3})", option_name("at"), 0,
                                      format_number(kMaxPrecisionPosition), format_number(m)));
    }
  }
  std::vector<DType> types;  // in the order given, each once
  for (const DType type : opt.dtypes) {
    if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
  }
  std::vector<Strategy> strategies;
  for (const Strategy strategy : opt.strategies) {
    if (std::find(strategies.begin(), strategies.end(), strategy) == strategies.end()) strategies.push_back(strategy);
  }
  const std::vector<CurveSpec> specs = precision_curves(types, strategies);

  const Eigen::VectorXd grid = integer_log_positions(opt.max_position, opt.points);
  const std::vector<CurveErrors> curves = precision_errors(s, specs, grid);
  Table table{{"position"}, {grid}};
  for (const CurveErrors& c : curves) {
    for (const auto& [name, v] :
         {std::pair{"angle", &c.angle}, std::pair{"vector", &c.vector}, std::pair{"identity", &c.identity}}) {
      table.header.push_back(c.spec.column() + "_" + name);
      table.columns.push_back(*v);
    }
  }
  if (!opt.csv.empty()) write_output(opt.csv, to_csv(table), out);
  std::vector<std::string> left_out;
  if (opt.figure.wanted()) draw(make_figure(opt, metric, grid, curves, left_out), opt.figure);
  if (opt.csv == "-") return kOk;

  out << t.tr(
      "rope precision: d = {0}, base = {1}, {2} layout, positions up to {3},\n"
      "  {4} random pairs q, k ~ N(0, I), seed {5}\n",
      s.dim, format_number(s.base), to_string(s.layout), format_number(opt.max_position), s.samples, s.seed);
  out << t.tr("errors against a long double reference (docs/precision.md):\n");
  out << t.tr("  angle     max_i |φ_i − m·θ_i| in rad, the angle as the strategy computes it (P7)\n");
  out << t.tr("  vector    ‖R_m q − exact‖ / ‖q‖, root mean square over the pairs (P8)\n");
  out << t.tr(
      "  identity  |<R_m q, R_n k> − q^T R_{{n−m}} k|, n = m + {0}, both sides in the type,\n"
      "            root mean square (P8)\n",
      format_number(s.distance));
  out << t.tr(
      "strategies: cast-inputs = m and θ cast to the type, angle and cos/sin in it (P3);\n"
      "  angle-f32 = angle and cos/sin in float32, then cast (P4);\n"
      "  cast-result = all in float64, the result cast (P5)\n");

  const std::vector<double> at = table_positions(opt);
  const Eigen::VectorXd at_vec = Eigen::Map<const Eigen::VectorXd>(at.data(), static_cast<Eigen::Index>(at.size()));
  const std::vector<CurveErrors> summary = precision_errors(s, specs, at_vec);
  for (const auto& [title, m] :
       {std::pair{t.tr("angle error (rad)"), Metric::Angle}, std::pair{t.tr("vector error (relative)"), Metric::Vector},
        std::pair{t.tr("identity error (absolute)"), Metric::Identity}}) {
    // A column compares the curves at one position: the table shows the significant digits that tell its
    // different errors apart in every column (digits.hpp, at least 3), one count for the table, or --digits N.
    std::vector<std::vector<double>> columns(at.size());
    for (const CurveErrors& c : summary) {
      for (std::size_t i = 0; i < at.size(); ++i) columns[i].push_back(values(c, m)[static_cast<Eigen::Index>(i)]);
    }
    const int digits = digits_for(columns, opt.digits, 3);
    std::size_t w = 10;
    for (const auto& column : columns) {
      for (const double v : column) w = std::max(w, cell(v, digits).size());
    }
    out << '\n' << title << '\n';
    std::string header = fmt::format("  {:<18}", t.tr("position m"));
    for (double p : at) header += fmt::format(" {:>{}}", format_number(p), w);
    out << header << '\n';
    for (const CurveErrors& c : summary) {
      std::string line = fmt::format("  {:<18}", c.spec.name());
      const Eigen::VectorXd& v = values(c, m);
      for (Eigen::Index i = 0; i < v.size(); ++i) line += fmt::format(" {:>{}}", cell(v[i], digits), w);
      out << line << '\n';
    }
  }

  out << '\n'
      << t.tr("first position where the angle error exceeds {0} rad (every integer 0 … {1} checked, (P9)):\n",
              format_number(opt.threshold), format_number(opt.max_position));
  for (const CurveSpec& c : specs) {
    const auto crossing = angle_crossing(s, c, opt.threshold, opt.max_position);
    out << fmt::format("  {:<18} {}\n", c.name(),
                       crossing ? format_number(*crossing) : t.tr("none up to {0}", format_number(opt.max_position)));
  }

  out << '\n' << t.tr("integer positions 0 … {0} the type cannot keep apart (P2):\n", format_number(opt.max_position));
  out << fmt::format("  {:<6} {:>16} {:>10} {:>10} {:>10}  {}\n", t.tr("type"), t.tr("exact up to"), t.tr("distinct"),
                     t.tr("merged"), t.tr("overflow"), t.tr("first merges (value ← positions)"));
  for (DType type : types) {
    const PositionMerges r = position_merges(type, opt.max_position);
    std::string groups;
    // The default table fits 100 columns: the first two merges; --wide: all of first_groups.
    for (std::size_t k = 0; k < r.first_groups.size() && (opt.wide || k < 2); ++k) {
      const auto& g = r.first_groups[k];
      groups += fmt::format("{}{} ← {}{}{}", groups.empty() ? "" : "; ", format_number(g.value), format_number(g.first),
                            g.last == g.first + 1 ? ", " : " … ", format_number(g.last));
    }
    out << fmt::format("  {:<6} {:>16} {:>10} {:>10} {:>10}  {}\n", to_string(type),
                       format_number(max_exact_integer(type)), r.distinct, r.merged, r.overflow,
                       groups.empty() ? "-" : groups);
  }
  if (!left_out.empty()) {
    out << t.tr(
        "note: the figure leaves out {0} curve(s) with no error to draw on its log axis (exact or "
        "overflowing at every position): {1}\n",
        left_out.size(), fmt::join(left_out, ", "));
  }
  if (opt.csv.empty()) {
    out << t.tr("(the {0} log-spaced positions 1 … {1}: --csv FILE)\n", grid.size(), format_number(opt.max_position));
  }
  return kOk;
}

Command add_precision_command(CLI::App& app) {
  auto opt = std::make_shared<PrecisionOptions>();
  PrecisionSettings& s = opt->settings;
  CLI::App* sub = app.add_subcommand(
      "precision", "How much precision RoPE loses at long positions in float32, float16 and bfloat16");
  add_int_option(*sub, "-d,--dim", s.dim, fmt::format("dimension d: even, 2 … {}", kMaxPrecisionDim));
  add_base_option(*sub, s.base);
  add_real_option(*sub, "--max-position", opt->max_position,
                  fmt::format("largest position P, an integer 1 … {}", format_number(kMaxPrecisionPosition)));
  add_choice_option(*sub, "--dtype", opt->dtypes, kDTypeWords, parse_dtype,
                    "types to compare: f64, f32, f16, bf16 (repeat or list; default all)", "TYPE")
      ->delimiter(',');
  add_choice_option(*sub, "--strategy", opt->strategies, {"cast-inputs", "angle-f32", "cast-result"}, parse_strategy,
                    "where the low precision enters: cast-inputs, angle-f32, cast-result (default all)", "NAME")
      ->delimiter(',');
  add_long_option(*sub, "--points", opt->points,
                  fmt::format("log-spaced positions 1 … P in the CSV and figure (2 … {})", kMaxPrecisionPoints));
  add_long_option(*sub, "--samples", s.samples, fmt::format("random pairs q, k (1 … {})", kMaxPrecisionSamples));
  add_real_option(*sub, "--distance", s.distance, "n − m in the identity error");
  add_reals_option(*sub, "--at", opt->at, "positions of the printed tables (those <= P, and P)");
  add_real_option(*sub, "--threshold", opt->threshold, "angle error in rad whose first crossing is printed");
  add_choice_option(*sub, "--metric", opt->metric, {"angle", "vector", "identity"}, parse_metric,
                    "what the figure shows: angle, vector or identity", "NAME")
      ->default_str("identity");
  add_seed_option(*sub, s.seed, "seed of the random pairs (same seed, same output)");
  add_layout_option(*sub, s.layout);
  sub->add_option("--csv", opt->csv,
                  "write position and, per curve, its angle, vector and identity errors to FILE ('-' for stdout)")
      ->type_name("FILE");
  add_figure_options(*sub, opt->figure);
  add_wide_option(*sub, opt->wide);
  add_digits_option(*sub, opt->digits, "3", kDigitsHelp);
  sub->get_option("--lang")->description("language of the text and the figure: en or zh (中文)");
  sub->footer(
      "Example:\n  rope precision\n  rope precision --dtype f32,bf16 --max-position 65536 --png precision.png\n"
      "  rope precision --metric angle --threshold 0.01 --csv precision.csv");
  return {sub, [opt](std::ostream& out) { return run_precision(*opt, out); }};
}

}  // namespace rope::cli
