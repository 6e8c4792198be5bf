// The formulas of decay.hpp, one term at a time as docs/math.md writes them: (M11), (M14), (M15), and the grids of
// distances. Their sweeps at evenly spaced distances are decay_sweep.cpp.
#include "rope/analysis/calculators/decay.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/random.hpp"

namespace rope {

double decay_bound(const Eigen::VectorXd& theta, double m) {
  const Eigen::Index half = theta.size();
  double re = 0.0;
  double im = 0.0;
  double total = 0.0;
  // (M11): the inner sums for j and j+1 differ by one term, so keep the running sum S_j = Σ_{i<=j}.
  for (Eigen::Index i = 0; i < half; ++i) {
    const double angle = m * theta[i];
    re += std::cos(angle);
    im += std::sin(angle);
    total += std::hypot(re, im);
  }
  return total / static_cast<double>(half);
}

Eigen::VectorXd decay_bound(const Eigen::VectorXd& theta, const Eigen::VectorXd& distances) {
  Eigen::VectorXd f(distances.size());
  for (Eigen::Index k = 0; k < distances.size(); ++k) f[k] = decay_bound(theta, distances[k]);
  return f;
}

void check_linspace(double stop, long points) {
  if (points < 1) {
    throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", "number of points", 1, points));
  }
  if (!std::isfinite(stop) || stop < 0.0) {
    throw InvalidArgument(error_msg("maximum distance must be a finite number >= 0 (got {0})", stop));
  }
}

double ones_score(const Eigen::VectorXd& theta, double m) {
  double sum = 0.0;
  for (Eigen::Index i = 0; i < theta.size(); ++i) sum += std::cos(m * theta[i]);
  return 2.0 * sum;  // (M14): both channels of pair i contribute cos(mθ_i)
}

Eigen::VectorXd ones_score(const Eigen::VectorXd& theta, const Eigen::VectorXd& distances) {
  Eigen::VectorXd s(distances.size());
  for (Eigen::Index k = 0; k < distances.size(); ++k) s[k] = ones_score(theta, distances[k]);
  return s;
}

double decay_work(DecayPath path, long points, long pairs, long samples) {
  double per_term = 1.0;
  switch (path) {
    case DecayPath::Recurrence:
      per_term = 1.0;
      break;
    case DecayPath::OnesDirect:
      per_term = 4.0;
      break;
    case DecayPath::BoundDirect:
      per_term = 10.0;
      break;
    case DecayPath::Random:
      per_term = 10.0 + 0.5 * static_cast<double>(samples);
      break;
  }
  return static_cast<double>(points) * static_cast<double>(pairs) * per_term;
}

void check_decay_work(DecayPath path, long points, long pairs, long samples, long curves) {
  const double work = static_cast<double>(curves) * decay_work(path, points, pairs, samples);
  if (work > kMaxDecayWork) {
    throw InvalidArgument(error_msg(
        "{0} {1} × d/2 = {2} pairs × {3} curves is {4} units of work, over the limit of {5} (kMaxDecayWork, about "
        "30 s): use fewer points, a smaller {6}, or fewer curves ({7} values, {8})",
        option_name("points"), points, pairs, curves, fmt::format("{:.3g}", work), fmt::format("{:g}", kMaxDecayWork),
        option_name("dim"), option_name("base"), option_name("frames")));
  }
}

RandomScores random_scores(const Eigen::VectorXd& theta, const Eigen::VectorXd& distances, long samples,
                           std::uint64_t seed) {
  const Eigen::Index half = theta.size();
  if (samples < 2) throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", "samples", 2, samples));
  const double work = static_cast<double>(samples) * static_cast<double>(distances.size()) * static_cast<double>(half);
  if (work > kMaxRandomWork) {
    throw InvalidArgument(error_msg("samples × points × d/2 = {0} exceeds the limit {1}: use fewer samples or points",
                                    fmt::format("{:.3g}", work), fmt::format("{:.0e}", kMaxRandomWork)));
  }
  // (M15): A(s, i) and B(s, i) for each sample s; q and k are drawn pair by pair.
  Random rng(seed);
  Eigen::MatrixXd A(samples, half), B(samples, half);
  for (long s = 0; s < samples; ++s) {
    for (Eigen::Index i = 0; i < half; ++i) {
      const double qa = rng.normal(), qb = rng.normal(), ka = rng.normal(), kb = rng.normal();
      A(s, i) = qa * ka + qb * kb;
      B(s, i) = qa * kb - qb * ka;
    }
  }
  RandomScores out{Eigen::VectorXd(distances.size()), Eigen::VectorXd(distances.size())};
  Eigen::VectorXd c(half), sn(half);
  for (Eigen::Index k = 0; k < distances.size(); ++k) {
    for (Eigen::Index i = 0; i < half; ++i) {
      c[i] = std::cos(distances[k] * theta[i]);
      sn[i] = std::sin(distances[k] * theta[i]);
    }
    const Eigen::VectorXd scores = A * c + B * sn;
    const double mean = scores.mean();
    out.mean[k] = mean;
    out.stddev[k] = std::sqrt((scores.array() - mean).square().sum() / static_cast<double>(samples - 1));
  }
  return out;
}

Eigen::VectorXd logspace(double stop, long points) {
  if (points < 2) throw InvalidArgument(error_msg("a log-spaced grid needs >= 2 points (got {0})", points));
  if (!std::isfinite(stop) || !(stop > 1.0)) {
    throw InvalidArgument(error_msg("a log-spaced grid needs a maximum distance > 1 (got {0})", stop));
  }
  Eigen::VectorXd x(points);
  const double step = std::log10(stop) / static_cast<double>(points - 1);
  for (long k = 0; k < points; ++k) x[k] = std::pow(10.0, static_cast<double>(k) * step);
  x[0] = 1.0;
  x[points - 1] = stop;
  return x;
}

Eigen::VectorXd linspace(double stop, long points) {
  check_linspace(stop, points);
  Eigen::VectorXd x(points);
  if (points == 1) {
    x[0] = 0.0;
    return x;
  }
  const double step = stop / static_cast<double>(points - 1);
  for (long k = 0; k < points; ++k) x[k] = static_cast<double>(k) * step;
  x[points - 1] = stop;
  return x;
}

}  // namespace rope
