#include "rope/analysis/verify/sinusoidal.hpp"

#include <cmath>

namespace rope {

Eigen::VectorXd sinusoidal_encoding(int d, double position, double base) {
  check_dimension(d);
  check_base(base);
  check_position(position);
  Eigen::VectorXd p(d);
  for (int i = 0; i < d / 2; ++i) {
    const double angle = position / std::pow(base, 2.0 * i / d);  // (M12)
    p[2 * i] = std::sin(angle);
    p[2 * i + 1] = std::cos(angle);
  }
  return p;
}

}  // namespace rope
