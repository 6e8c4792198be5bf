#include "rope/core/frequencies.hpp"

#include <cmath>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"

namespace rope {

// Pair 0 gets +0 rather than the −0 that −2·0/d would print.
double frequency_exponent(int d, int i) { return i == 0 ? 0.0 : -2.0 * i / d; }

Eigen::VectorXd frequencies(int d, double base) {
  check_dimension(d);
  check_base(base);
  Eigen::VectorXd theta(d / 2);
  // (M1). std::pow(base, -2i/d) rather than a running product θ_{i+1} = θ_i·base^(−2/d): each entry
  // is then correctly rounded up to pow's own error instead of accumulating i roundings.
  for (int i = 0; i < d / 2; ++i) theta[i] = std::pow(base, frequency_exponent(d, i));
  return theta;
}

Eigen::VectorXd wavelengths(const Eigen::VectorXd& theta) {
  return (kTwoPi / theta.array()).matrix();  // (M2)
}

}  // namespace rope

namespace rope {

Eigen::Index first_pair_beyond(const Eigen::VectorXd& lambda, double context) {
  for (Eigen::Index i = 0; i < lambda.size(); ++i) {
    if (lambda[i] > context) return i;
  }
  return lambda.size();
}

}  // namespace rope
