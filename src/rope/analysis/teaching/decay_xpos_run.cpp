#include "rope/analysis/teaching/decay_xpos_run.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/analysis/calculators/decay.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/message.hpp"
#include "rope/core/types.hpp"
#include "rope/io/csv.hpp"

namespace rope {

namespace {

/// The rules of (X5) between the settings, in the order the command line checked them.
void check_xpos_request(const DecayRequest& r) {
  if (r.kind != DecayKind::Bound || r.model || r.rerope_window || r.bases.size() > 1 || r.normalize || r.log_y) {
    throw InvalidArgument(error_msg(
        "{0} draws plain RoPE's bound with one {1}: leave out {2}, {3}, {4}, {5}, {6}, {7} (the curves are already divided by f(0)) and {8}",
        option_name("xpos"), option_name("base"), option_name("kind"), option_name("model"), option_name("config"),
        option_name("scaling"), option_name("rerope"), option_name("normalize"), option_name("log_y")));
  }
  const double s = *r.xpos_scale_base;
  if (!(s > 0) || !std::isfinite(s)) {
    throw InvalidArgument(
        error_msg("{0} must be a finite number > 0 (got {1})", option_name("xpos_scale_base"), format_number(s)));
  }
  if (r.max_distance / s > kMaxXposPower) {
    throw InvalidArgument(error_msg(
        "{0} {1} over {2} {3} is over {4}: ζ^(m/s) would leave the range of float64 numbers kept to full precision",
        option_name("max_distance"), format_number(r.max_distance), option_name("xpos_scale_base"), format_number(s),
        fmt::format("{:g}", kMaxXposPower)));
  }
}

/// The text's distances: 0 (1 on a log axis), then 1, 2, 5 per decade below the largest, and the largest.
Eigen::VectorXd xpos_shown_distances(double max_distance, bool log_x) {
  std::vector<double> shown{log_x ? 1.0 : 0.0};
  for (double decade = 1; decade <= max_distance; decade *= 10) {
    for (double step : {1.0, 2.0, 5.0}) {
      if (step * decade < max_distance && step * decade > shown.front()) shown.push_back(step * decade);
    }
  }
  if (max_distance > shown.front()) shown.push_back(max_distance);
  return Eigen::Map<const Eigen::VectorXd>(shown.data(), static_cast<Eigen::Index>(shown.size()));
}

}  // namespace

XposDecayRun run_xpos_decay(const DecayRequest& request) {
  check_xpos_request(request);
  XposDecayRun run;
  run.request = request;
  run.scale_base = *request.xpos_scale_base;
  run.dim = request.dim.value_or(kDefaultDecayDim);
  check_dimension(run.dim);
  run.base = request.bases.front();
  check_base(run.base);
  const Eigen::VectorXd theta = frequencies(run.dim, run.base);
  // xpos_bound is O(d) per distance with a pow per pair: the cells bound is that of decay (6 columns).
  const long points = request.point_count();
  if (static_cast<double>(points) * 6 > kMaxCells) {
    throw InvalidArgument(error_msg(
        "{0} {1} × 6 columns is {2} values, over the limit of {3} (kMaxCells): use fewer points", option_name("points"),
        points, fmt::format("{:g}", static_cast<double>(points) * 6), fmt::format("{:g}", kMaxCells)));
  }
  // (X5) costs a pow, a sin and a cos per pair and distance (about 0.1–0.2 µs on the 2-core machine of
  // docs/errors.md): 1e8 terms is some 10–20 s; d = 65536 at 256 001 distances would take about 10 minutes.
  const double terms = static_cast<double>(points) * static_cast<double>(run.dim / 2);
  if (terms > kMaxXposTerms) {
    throw InvalidArgument(error_msg(
        "{0}: {1} distances × d/2 = {2} pairs is {3} terms of (X5), over the limit of {4}: use fewer {5} or a smaller {6}",
        option_name("xpos"), points, run.dim / 2, fmt::format("{:g}", terms), fmt::format("{:g}", kMaxXposTerms),
        option_name("points"), option_name("dim")));
  }
  run.zeta = xpos_zeta(run.dim);
  run.x = request.log_x ? logspace(request.max_distance, points) : linspace(request.max_distance, points);
  run.curves = xpos_decay(theta, run.scale_base, run.x);
  run.shown = xpos_shown_distances(request.max_distance, request.log_x);
  run.at_shown = xpos_decay(theta, run.scale_base, run.shown);
  return run;
}

}  // namespace rope
