#include "rope/analysis/calculators/precision_run.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/csv.hpp"

namespace rope {

PrecisionMetric parse_precision_metric(std::string_view text) {
  if (text == "angle") return PrecisionMetric::Angle;
  if (text == "vector") return PrecisionMetric::Vector;
  if (text == "identity") return PrecisionMetric::Identity;
  throw InvalidArgument(error_msg("{0} must be '{1}', '{2}' or '{3}' (got '{4}')", option_name("metric"), "angle",
                                  "vector", "identity", text));
}

const Eigen::VectorXd& metric_values(const CurveErrors& c, PrecisionMetric m) {
  return m == PrecisionMetric::Angle ? c.angle : m == PrecisionMetric::Vector ? c.vector : c.identity;
}

namespace {

std::vector<double> precision_table_positions(const PrecisionRequest& q) {
  std::vector<double> at;
  for (double m : q.at) {
    if (m <= q.max_position && (at.empty() || m > at.back())) at.push_back(m);
  }
  if (at.empty() || at.back() < q.max_position) at.push_back(q.max_position);
  return at;
}

}  // namespace

PrecisionRun run_precision(const PrecisionRequest& q) {
  const PrecisionSettings& s = q.settings;
  check_precision_settings(s);
  if (!(q.max_position >= 1 && q.max_position <= kMaxPrecisionPosition) ||
      q.max_position != std::floor(q.max_position)) {
    throw InvalidArgument(error_msg("{0} must be an integer between {1} and {2} (got {3})", option_name("max_position"),
                                    1, format_number(kMaxPrecisionPosition), format_number(q.max_position)));
  }
  if (q.points < 2 || q.points > kMaxPrecisionPoints) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("points"), 2,
                                    kMaxPrecisionPoints, q.points));
  }
  if (static_cast<double>(q.points) * static_cast<double>(s.samples) * s.dim > kMaxPrecisionWork) {
    throw InvalidArgument(error_msg("{0} × {1} × {2} must be at most {3} (got {4} × {5} × {6})", option_name("points"),
                                    option_name("samples"), option_name("dim"), fmt::format("{:g}", kMaxPrecisionWork),
                                    q.points, s.samples, s.dim));
  }
  if (!(q.threshold > 0) || !std::isfinite(q.threshold)) {
    throw InvalidArgument(error_msg("{0} must be a positive number of radians (got {1})", option_name("threshold"),
                                    format_number(q.threshold)));
  }
  for (double m : q.at) {
    if (!(m >= 0 && m <= kMaxPrecisionPosition)) {
      throw InvalidArgument(error_msg("{0} positions must be between {1} and {2} (got {3})", option_name("at"), 0,
                                      format_number(kMaxPrecisionPosition), format_number(m)));
    }
  }
  PrecisionRun run;
  run.request = q;
  for (const DType type : q.dtypes) {  // in the order given, each once
    if (std::find(run.types.begin(), run.types.end(), type) == run.types.end()) run.types.push_back(type);
  }
  std::vector<Strategy> strategies;
  for (const Strategy strategy : q.strategies) {
    if (std::find(strategies.begin(), strategies.end(), strategy) == strategies.end()) strategies.push_back(strategy);
  }
  run.specs = precision_curves(run.types, strategies);
  run.grid = integer_log_positions(q.max_position, q.points);
  run.curves = precision_errors(s, run.specs, run.grid);
  run.at = precision_table_positions(q);
  const Eigen::VectorXd at = Eigen::Map<const Eigen::VectorXd>(run.at.data(), static_cast<Eigen::Index>(run.at.size()));
  run.summary = precision_errors(s, run.specs, at);
  for (const CurveSpec& c : run.specs) run.crossings.push_back(angle_crossing(s, c, q.threshold, q.max_position));
  for (const DType type : run.types) run.merges.push_back(position_merges(type, q.max_position));
  return run;
}

}  // namespace rope
