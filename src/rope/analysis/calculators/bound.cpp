// The criterion of bound.hpp as docs/calculators.md writes it: B(m) one cosine per term (C1), its minimum over every
// m ≤ L by that sum, and the grid of bases a scan runs over. bound_sweep.cpp computes the same minimum fast.
#include "rope/analysis/calculators/bound.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "rope/io/csv.hpp"
#include "rope/core/error.hpp"

namespace rope {

void check_bound_context(long L) {
  if (L < 0 || L > kMaxBoundContext) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", "context L", 0, kMaxBoundContext, L));
  }
}

void check_bound_theta(const Eigen::VectorXd& theta) {
  if (theta.size() == 0) throw InvalidArgument(error_msg("the criterion needs at least one frequency"));
}

double bound_sum_direct(const Eigen::VectorXd& theta, long m) {
  double sum = 0.0;
  for (Eigen::Index i = 0; i < theta.size(); ++i) sum += std::cos(static_cast<double>(m) * theta[i]);  // (C1)
  return sum;
}

BoundMinimum bound_minimum_direct(const Eigen::VectorXd& theta, long L) {
  check_bound_context(L);
  check_bound_theta(theta);
  BoundMinimum best{std::numeric_limits<double>::infinity(), -1};
  for (long m = 0; m <= L; ++m) {
    const double v = bound_sum_direct(theta, m);
    if (v < best.value) best = {v, m};
  }
  return best;
}

std::pair<double, double> default_base_range(long L) {
  const double fit = 0.0424 * std::pow(static_cast<double>(std::max(L, 1L)), 1.628);  // (C5)
  const double lo = std::max(2.0, fit / 4);
  return {lo, std::max(8 * fit, 32 * lo)};
}

int default_per_decade(long L) { return L < 65536 ? 400 : 100; }

std::vector<double> base_grid(double lo, double hi, int per_decade) {
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo > 1 && hi > lo)) {
    throw InvalidArgument(error_msg("base range LO,HI must have 1 < LO < HI, both finite (got {0},{1})",
                                    format_number(lo), format_number(hi)));
  }
  if (per_decade < 1 || per_decade > kMaxPerDecade) {
    throw InvalidArgument(
        error_msg("{0} must be between {1} and {2} (got {3})", "points per decade", 1, kMaxPerDecade, per_decade));
  }
  const double p = per_decade;
  // The k with 10^(k/P) in [lo, hi]; a slack of 1e-9 in k keeps 10^(k/P) = lo or hi (a range given
  // in round numbers) inside despite the rounding of log10.
  const long first = static_cast<long>(std::ceil(p * std::log10(lo) - 1e-9));
  const long last = static_cast<long>(std::floor(p * std::log10(hi) + 1e-9));
  if (last < first) {
    throw InvalidArgument(
        error_msg("base range {0},{1} holds no grid point 10^(k/{2}): widen it or raise the points per decade",
                  format_number(lo), format_number(hi), per_decade));
  }
  if (last - first + 1 > kMaxBoundGridPoints) {
    throw InvalidArgument(
        error_msg("the base grid would have {0} points, more than {1}: narrow the range or lower the points per decade",
                  last - first + 1, kMaxBoundGridPoints));
  }
  std::vector<double> grid;
  for (long k = first; k <= last; ++k) {
    const double b = std::pow(10.0, static_cast<double>(k) / p);
    if (b > 1) grid.push_back(b);
  }
  if (grid.empty()) throw InvalidArgument(error_msg("the base grid has no point above 1"));
  return grid;
}

}  // namespace rope
