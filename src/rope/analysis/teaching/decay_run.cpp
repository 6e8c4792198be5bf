// rope decay as one call: the request in, the run (the curves and their table) out, printed by report/.
#include "rope/analysis/teaching/decay_run.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <utility>

#include "rope/analysis/calculators/decay.hpp"
#include "rope/analysis/calculators/decay_sweep.hpp"
#include "rope/analysis/teaching/motion.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/scaling/scaling.hpp"

namespace rope {

namespace {

/// The distances the model sees: t itself, or ReRoPE's / Leaky ReRoPE's g(t) (docs/scaling.md (S16), (S17)).
Eigen::VectorXd seen_distances(const DecayRequest& opt, const Eigen::VectorXd& t) {
  if (!opt.rerope_window) return t;
  Eigen::VectorXd g(t.size());
  for (Eigen::Index k = 0; k < t.size(); ++k) {
    g[k] = opt.leaky_k ? leaky_rerope_distance(t[k], *opt.rerope_window, *opt.leaky_k)
                       : rerope_distance(t[k], *opt.rerope_window);
  }
  return g;
}

/// The model's sets and warnings, or one set per base.
std::vector<DecaySet> frequency_sets(const DecayRequest& opt, std::vector<Message>& warnings) {
  std::vector<DecaySet> sets;
  if (opt.model) {
    if (opt.bases.size() > 1)
      throw InvalidArgument(error_msg("give one {0} with {1}, {2} or {3}", option_name("base"), option_name("scaling"),
                                      option_name("config"), option_name("model")));
    // The model's spec (rope/models/rope_spec.hpp): its rotating channels' frequencies and its attention
    // factor a (the scores carry a²); the layout only permutes channels, which changes none of the curves.
    const ModelRope& rr = *opt.model;
    const std::string type(to_string(rr.spec.config.type));
    const double a = rr.spec.attention_factor();
    sets.push_back({msg("original, base = {0}", format_number(rr.spec.config.base)), "original", rr.spec.original});
    sets.push_back({Message::same(fmt::format("{} f = {}", type, format_number(rr.spec.params.factor))), type,
                    rr.spec.params.inv_freq, a * a});
    warnings = rr.spec.params.warnings;
    return sets;
  }
  const int dim = opt.dim.value_or(kDefaultDecayDim);
  check_dimension(dim);
  for (double base : opt.bases) {
    check_base(base);
    sets.push_back(
        {Message::same("base = " + format_number(base)), "base=" + format_number(base), frequencies(dim, base)});
  }
  return sets;
}

/// `grid`: true_distances is the evenly spaced grid linspace(max_distance, points), which the bound
/// and the all-ones score then compute by the recurrence of decay_bound_linspace (no cos/sin per term).
DecayCurves compute(const DecayRequest& opt, const std::vector<DecaySet>& sets, const Eigen::VectorXd& true_distances,
                    bool grid = false) {
  // ReRoPE's distances, or the true ones themselves (not a copy: a 100 000-point grid is 800 KB)
  const Eigen::VectorXd rerope_seen = opt.rerope_window ? seen_distances(opt, true_distances) : Eigen::VectorXd();
  const Eigen::VectorXd& distances = opt.rerope_window ? rerope_seen : true_distances;
  // w·f/scale element by element, in place: the values of `w * f / scale` without a second vector
  const auto weighted = [](Eigen::VectorXd f, double w, double scale) {
    f *= w;
    f /= scale;
    return f;
  };
  DecayCurves c;
  for (const DecaySet& set : sets) {
    const Eigen::VectorXd& theta = set.theta;
    const double w = opt.normalize ? 1.0 : set.weight;  // a² cancels in f(m)/f(0)
    switch (opt.kind) {
      case DecayKind::Bound: {
        const double scale = opt.normalize ? decay_bound(theta, 0.0) : 1.0;
        const bool even = grid && !opt.log_x && !opt.rerope_window;  // then distances = linspace(…)
        c.value.push_back(weighted(
            even ? decay_bound_linspace(theta, opt.max_distance, opt.point_count()) : decay_bound(theta, distances), w,
            scale));
        break;
      }
      case DecayKind::Ones: {
        const double scale = opt.normalize ? ones_score(theta, 0.0) : 1.0;
        const bool even = grid && !opt.log_x && !opt.rerope_window;  // as for the bound
        c.value.push_back(weighted(
            even ? ones_score_linspace(theta, opt.max_distance, opt.point_count()) : ones_score(theta, distances), w,
            scale));
        break;
      }
      case DecayKind::Random: {
        RandomScores r = random_scores(theta, distances, opt.sample_count(), opt.seed_value());
        c.value.push_back(w * r.mean);
        c.stddev.push_back(w * r.stddev);
        break;
      }
    }
  }
  return c;
}

}  // namespace

void check_decay_request(const DecayRequest& opt) {
  const DecayKind kind = opt.kind;
  if (opt.bases.size() > kMaxBases) {
    throw InvalidArgument(
        error_msg("at most {0} {1} values (got {2})", kMaxBases, option_name("base"), opt.bases.size()));
  }
  if (opt.points && (*opt.points < 1 || *opt.points > kMaxPoints)) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", option_name("points"), 1, kMaxPoints, *opt.points));
  }
  if (opt.max_distance < 0 || opt.max_distance > kMaxDistance) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("max_distance"), 0,
                                    fmt::format("{:g}", kMaxDistance), format_number(opt.max_distance)));
  }
  if (!opt.points && !opt.log_x) {
    // Every integer distance 0 … max-distance: it must be a whole number, and their count a valid --points.
    if (opt.max_distance != std::floor(opt.max_distance)) {
      throw InvalidArgument(error_msg(
          "{0} must be a whole number when every integer distance is computed (got {1}); {2} N gives N evenly spaced, fractional distances",
          option_name("max_distance"), format_number(opt.max_distance), option_name("points")));
    }
    if (opt.max_distance + 1 > static_cast<double>(kMaxPoints)) {
      throw InvalidArgument(error_msg(
          "{0} {1} has more integer distances than the {2} points allowed: give {3} N for N evenly spaced distances",
          option_name("max_distance"), format_number(opt.max_distance), kMaxPoints, option_name("points")));
    }
  }
  if (opt.normalize && kind == DecayKind::Random) {
    throw InvalidArgument(error_msg("{0} does not apply to {1} random: its value at distance 0 is 0 in expectation",
                                    option_name("normalize"), option_name("kind")));
  }
  if (opt.log_x && (opt.point_count() < 2 || opt.max_distance <= 1)) {
    throw InvalidArgument(error_msg("{0} needs {1} >= 2 and {2} > 1 (got {3} and {4})", option_name("log_x"),
                                    option_name("points"), option_name("max_distance"), opt.point_count(),
                                    format_number(opt.max_distance)));
  }
  if ((opt.samples || opt.seed) && kind != DecayKind::Random) {
    throw InvalidArgument(error_msg("{0} and {1} apply to {2} {3} only (got {4} {5})", option_name("samples"),
                                    option_name("seed"), option_name("kind"), "random", option_name("kind"),
                                    to_string(kind)));
  }
  if (opt.rerope_window && *opt.rerope_window < 0) {
    throw InvalidArgument(
        error_msg("{0} must be >= {1} (got {2})", option_name("rerope") + " W", 0, format_number(*opt.rerope_window)));
  }
  if (opt.leaky_k && *opt.leaky_k < 1) {
    throw InvalidArgument(
        error_msg("{0} must be >= {1} (got {2})", option_name("leaky_k") + " K", 1, format_number(*opt.leaky_k)));
  }
  if (opt.log_y && kind != DecayKind::Bound) {
    throw InvalidArgument(error_msg("{0} needs positive values: only {1} bound has them (got {2} {3})",
                                    option_name("log_y"), option_name("kind"), option_name("kind"), to_string(kind)));
  }
}

DecayRun run_decay(const DecayRequest& opt) {
  check_decay_request(opt);
  const DecayKind kind = opt.kind;
  DecayRun run;
  run.request = opt;
  run.sets = frequency_sets(opt, run.warnings);
  const std::vector<DecaySet>& sets = run.sets;
  const auto d = 2 * sets.front().theta.size();
  run.dim = static_cast<int>(d);
  const double columns = 1.0 + static_cast<double>(sets.size()) * (kind == DecayKind::Random ? 2 : 1);
  const long points = opt.point_count();
  if (static_cast<double>(points) * columns > kMaxCells) {
    throw InvalidArgument(error_msg(
        "{0} {1} × {2} columns is {3} values, over the limit of {4} (kMaxCells): use fewer points or fewer {5} values",
        option_name("points"), points, columns, fmt::format("{:g}", static_cast<double>(points) * columns),
        fmt::format("{:g}", kMaxCells), option_name("base")));
  }
  // The work of every curve drawn, the GIF's frames included, bounded before any of it is computed.
  const DecayPath path = kind == DecayKind::Random          ? DecayPath::Random
                         : !opt.log_x && !opt.rerope_window ? DecayPath::Recurrence
                         : kind == DecayKind::Ones          ? DecayPath::OnesDirect
                                                            : DecayPath::BoundDirect;
  check_decay_work(path, points, static_cast<long>(d / 2), kind == DecayKind::Random ? opt.sample_count() : 0,
                   static_cast<long>(sets.size()) + opt.frames);
  // linspace(L, L + 1) is exactly 0, 1, …, L (k·(L/L) = k).
  run.distances = opt.log_x ? logspace(opt.max_distance, points) : linspace(opt.max_distance, points);
  run.curves = compute(opt, sets, run.distances, true);
  if (opt.frames > 0) {
    // The base sweeps geometrically: from the smallest to the largest base, or 100 … 10^6 for one.
    const auto [lo, hi] = std::minmax_element(opt.bases.begin(), opt.bases.end());
    const bool one = opt.bases.size() == 1;
    for (const double b : motion::geometric_sweep(one ? 100.0 : *lo, one ? 1e6 : *hi, opt.frames)) {
      DecayFrame frame;
      frame.base = b;
      frame.sets = {{Message::same("base = " + format_number(std::round(b))), "", frequencies(static_cast<int>(d), b)}};
      frame.curves = compute(opt, frame.sets, run.distances, true);
      run.frames.push_back(std::move(frame));
    }
  }
  // A summary at round distances 0 (or 1 on a log grid), 1, 2, 5, 10, … and the largest, evaluated
  // directly with the same draws; the full grid is in the CSV.
  std::vector<double> shown{opt.log_x ? 1.0 : 0.0};
  for (double decade = 1; decade <= opt.max_distance; decade *= 10) {
    for (double step : {1.0, 2.0, 5.0}) {
      if (step * decade < opt.max_distance && step * decade > shown.front()) shown.push_back(step * decade);
    }
  }
  if (opt.max_distance > shown.front()) shown.push_back(opt.max_distance);
  run.shown = Eigen::Map<const Eigen::VectorXd>(shown.data(), static_cast<Eigen::Index>(shown.size()));
  run.summary = compute(opt, sets, run.shown);
  return run;
}

}  // namespace rope
