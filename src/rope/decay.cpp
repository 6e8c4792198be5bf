#include "rope/decay.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/error.hpp"
#include "rope/random.hpp"

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

RandomScores random_scores(const Eigen::VectorXd& theta, const Eigen::VectorXd& distances, long samples,
                           std::uint64_t seed) {
  const Eigen::Index half = theta.size();
  if (samples < 2) throw InvalidArgument(fmt::format("samples must be >= 2 (got {})", samples));
  const double work = static_cast<double>(samples) * static_cast<double>(distances.size()) * static_cast<double>(half);
  if (work > kMaxRandomWork) {
    throw InvalidArgument(fmt::format(
        "samples × points × d/2 = {:.3g} exceeds the limit {:.0e}: use fewer samples or points", work, kMaxRandomWork));
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
  if (points < 2) throw InvalidArgument(fmt::format("a log-spaced grid needs >= 2 points (got {})", points));
  if (!std::isfinite(stop) || !(stop > 1.0)) {
    throw InvalidArgument(fmt::format("a log-spaced grid needs a maximum distance > 1 (got {})", stop));
  }
  Eigen::VectorXd x(points);
  const double step = std::log10(stop) / static_cast<double>(points - 1);
  for (long k = 0; k < points; ++k) x[k] = std::pow(10.0, static_cast<double>(k) * step);
  x[0] = 1.0;
  x[points - 1] = stop;
  return x;
}

Eigen::VectorXd linspace(double stop, long points) {
  if (points < 1) {
    throw InvalidArgument(fmt::format("number of points must be >= 1 (got {})", points));
  }
  if (!std::isfinite(stop) || stop < 0.0) {
    throw InvalidArgument(
        fmt::format("maximum distance must be a finite number >= 0 (got {})", stop));
  }
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
