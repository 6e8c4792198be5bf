/// @file
/// The criterion of "Base of RoPE Bounds Context Length" (Men et al. 2024, arXiv:2405.14591), as
/// docs/calculators.md (C1)–(C5) state it: B(m) = Σ_i cos(m·θ_i) ≥ 0 for every integer 0 ≤ m ≤ L.
///
/// The minimum of B over all integers m ≤ L is computed exactly (every m is covered; nothing is
/// sampled) but fast, with two uses of the structure of the sum (docs/calculators.md §3):
///   - angle addition over blocks of K consecutive m, (C3): B(m0 + k) = Σ_i [cos(m0θ_i)·cos(kθ_i) −
///     sin(m0θ_i)·sin(kθ_i)], a matrix product of a K × d table with the blocks' anchors;
///   - a lower bound of B over each block from the arcs the pairs sweep in it, (C4): a block whose
///     bound exceeds the smallest value found so far cannot hold the minimum and is not evaluated.
/// bound_minimum_direct is the straightforward reference (one cos per term) the tests compare with.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <utility>
#include <vector>

namespace rope {

/// Largest context L accepted: 10^7 positions (about 2 s per base on one core at d = 128).
inline constexpr long kMaxBoundContext = 10'000'000;
/// Most grid points of one scan.
inline constexpr long kMaxBoundGridPoints = 20'000;
/// Grid points per decade: 1 … this.
inline constexpr int kMaxPerDecade = 10'000;
/// Most pair-positions (d/2)·(L + 1)·(grid points) of one scan: 2·10^11, measured at about two CPU
/// minutes in the slowest case (d = 4096, where a term costs most: 3.1·10^10 terms took 18 s of CPU;
/// at d = 128, 10^11 terms take about 4 s). It was 10^12: about 20 minutes at d = 4096.
inline constexpr double kMaxBoundWork = 2e11;

/// The minimum of B(m) over the integers 0 ≤ m ≤ L and the first m where it occurs.
struct BoundMinimum {
  double value = 0.0;
  long at = 0;
  bool passes() const { return value >= 0.0; }  ///< the criterion (C2)
};

/// B(m) = Σ_i cos(m·θ_i), one std::cos per term                                               (C1)
double bound_sum_direct(const Eigen::VectorXd& theta, long m);

/// B(0), …, B(L) by angle addition over blocks (C3), every m evaluated (no pruning). O(L·d).
/// Agrees with bound_sum_direct to about m·ε·Σθ_i (the rounding of m·θ_i in the direct form).
/// @throws InvalidArgument unless 0 ≤ L ≤ kMaxBoundContext.
Eigen::VectorXd bound_sums(const Eigen::VectorXd& theta, long L);

/// min_{0≤m≤L} B(m) and its first argmin, exactly as the minimum of bound_sums(theta, L) but with the
/// block lower bound (C4) skipping blocks that cannot hold it.
/// @throws InvalidArgument unless 0 ≤ L ≤ kMaxBoundContext and theta is not empty.
BoundMinimum bound_minimum(const Eigen::VectorXd& theta, long L);

/// The same by one std::cos per term over every m: the reference for tests. O(L·d) cos calls.
BoundMinimum bound_minimum_direct(const Eigen::VectorXd& theta, long L);

/// Default base range of a scan for context L: [F/4, 8·F] with F = 0.0424·L^1.628, the fit of Men et
/// al.'s Fig. 1 (d = 128) (C5); the lower end at least 2. It brackets every row of docs/calculators.md §1.3.
std::pair<double, double> default_base_range(long L);

/// Default points per decade: 400 below L = 65536, 100 from there (the grids of the scans in docs/calculators.md §1.3).
int default_per_decade(long L);

/// The log grid 10^(k/P) for the integers k with lo ≤ 10^(k/P) ≤ hi (P = per_decade), ascending.
/// @throws InvalidArgument unless 1 < lo < hi are finite, 1 ≤ P ≤ kMaxPerDecade, the grid is not
///         empty and has at most kMaxBoundGridPoints points.
std::vector<double> base_grid(double lo, double hi, int per_decade);

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
