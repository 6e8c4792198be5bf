#include "rope/analysis/teaching/alibi.hpp"

#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/types.hpp"

namespace rope {

std::vector<double> alibi_slopes(int heads) {
  if (heads < 1 || heads > kMaxAlibiHeads) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", "ALiBi heads", 1, kMaxAlibiHeads, heads));
  }
  int c = 1;  // the largest power of two <= heads
  while (2 * c <= heads) c *= 2;
  std::vector<double> slopes;
  slopes.reserve(static_cast<std::size_t>(heads));
  // The c heads of the power-of-two rule: m_h = (2^(−8/c))^h = 2^(−8h/c).
  for (int h = 1; h <= c; ++h) slopes.push_back(std::exp2(-8.0 * h / c));
  // The rest: every other slope of 2c heads, 2^(−8k/(2c)) for k = 1, 3, 5, …
  for (int k = 1; static_cast<int>(slopes.size()) < heads; k += 2) slopes.push_back(std::exp2(-8.0 * k / (2.0 * c)));
  return slopes;
}

Eigen::MatrixXd alibi_bias(const Eigen::VectorXd& positions, double slope) {
  if (!std::isfinite(slope) || slope < 0) {
    throw InvalidArgument(error_msg("ALiBi slope must be a finite number >= 0 (got {0})", slope));
  }
  for (Eigen::Index i = 0; i < positions.size(); ++i) check_position(positions[i]);
  const Eigen::Index n = positions.size();
  Eigen::MatrixXd bias(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j)
      bias(i, j) = 0.0 - slope * std::abs(positions[i] - positions[j]);  // +0 on the diagonal
  }
  return bias;
}

}  // namespace rope
