/// @file
/// The sweep of `rope bound`: the minimum of the criterion B(m) of bound.hpp over all integers m ≤ L computed exactly
/// (every m is covered; nothing is sampled) but fast, with two uses of the structure of the sum (docs/calculators.md
/// §3):
///   - angle addition over blocks of K consecutive m, (C3): B(m0 + k) = Σ_i [cos(m0θ_i)·cos(kθ_i) −
///     sin(m0θ_i)·sin(kθ_i)], a matrix product of a K × d table with the blocks' anchors;
///   - a lower bound of B over each block from the arcs the pairs sweep in it, (C4): a block whose
///     bound exceeds the smallest value found so far cannot hold the minimum and is not evaluated.
/// bound_minimum_direct (bound.hpp) is the straightforward reference the tests compare with.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <utility>
#include <vector>

#include "rope/analysis/calculators/bound.hpp"

namespace rope {

/// B(0), …, B(L) by angle addition over blocks (C3), every m evaluated (no pruning). O(L·d).
/// Agrees with bound_sum_direct to about m·ε·Σθ_i (the rounding of m·θ_i in the direct form).
/// @throws InvalidArgument unless 0 ≤ L ≤ kMaxBoundContext.
Eigen::VectorXd bound_sums(const Eigen::VectorXd& theta, long L);

/// min_{0≤m≤L} B(m) and its first argmin, exactly as the minimum of bound_sums(theta, L) but with the
/// block lower bound (C4) skipping blocks that cannot hold it.
/// @throws InvalidArgument unless 0 ≤ L ≤ kMaxBoundContext and theta is not empty.
BoundMinimum bound_minimum(const Eigen::VectorXd& theta, long L);

/// A scan of the criterion over a grid of bases, d fixed.
struct BoundScan {
  int dim = 0;
  long context = 0;
  int per_decade = 0;
  std::vector<double> bases;          ///< ascending
  std::vector<BoundMinimum> minimum;  ///< one per base
  /// Runs of consecutive passing grid bases: (first, last) grid base of each run, ascending.
  std::vector<std::pair<double, double>> pass_intervals;
  /// The smallest passing grid base, if any passes.
  std::optional<double> smallest_passing;
  /// The smallest grid base from which every grid base up to the top of the range passes; empty if
  /// the top of the range fails.
  std::optional<double> always_passes_from;
};

/// min_{m≤L} B(m) for every base of base_grid(lo, hi, per_decade); the bases run in parallel (OpenMP).
/// @throws InvalidArgument for d (check_dimension), L, the grid or more work than kMaxBoundWork.
BoundScan scan_bound(int d, long L, double lo, double hi, int per_decade);

}  // namespace rope
