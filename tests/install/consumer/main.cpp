// Uses the installed rope library: the version header, the frequencies (docs/math.md (M1)) and a
// rotation (M9). Prints values a reader can check by hand; check_install.sh compares them.
#include <cmath>
#include <cstdio>

#include <Eigen/Core>

#include "rope/core/apply.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/version.hpp"

int main() {
  std::printf("version %s\n", rope::kVersion);
  // θ_i = 10000^(−2i/8): 1, 0.1, 0.01, 0.001.
  const Eigen::VectorXd theta = rope::frequencies(8, 10000.0);
  for (Eigen::Index i = 0; i < theta.size(); ++i) std::printf("theta %g\n", theta[i]);
  // x = e_0 rotated at position m = 1 in the interleaved layout: (cos 1, sin 1, 0, …, 0).
  Eigen::VectorXd x = Eigen::VectorXd::Zero(8);
  x[0] = 1.0;
  const Eigen::VectorXd y = rope::apply_rotary<double>(x, theta, 1.0, rope::Layout::Interleaved);
  std::printf("rotated %.12f %.12f %g\n", y[0], y[1], y.tail(6).norm());
  return 0;
}
