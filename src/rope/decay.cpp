#include "rope/decay.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/error.hpp"

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
