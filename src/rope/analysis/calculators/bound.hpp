/// @file
/// The criterion of "Base of RoPE Bounds Context Length" (Men et al. 2024, arXiv:2405.14591), as
/// docs/calculators.md (C1)–(C5) state it: B(m) = Σ_i cos(m·θ_i) ≥ 0 for every integer 0 ≤ m ≤ L, computed here as
/// written, one std::cos per term; its minimum over every m is the reference. `rope bound` computes the same minimum
/// fast, for every base of a grid (bound_sweep.hpp).
#pragma once

#include <Eigen/Core>
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
/// at d = 128, 10^11 terms take about 4 s).
inline constexpr double kMaxBoundWork = 2e11;

/// The minimum of B(m) over the integers 0 ≤ m ≤ L and the first m where it occurs.
struct BoundMinimum {
  double value = 0.0;
  long at = 0;
  bool passes() const { return value >= 0.0; }  ///< the criterion (C2)
};

/// B(m) = Σ_i cos(m·θ_i), one std::cos per term                                               (C1)
double bound_sum_direct(const Eigen::VectorXd& theta, long m);

/// @throws InvalidArgument unless 0 ≤ L ≤ kMaxBoundContext.
void check_bound_context(long L);
/// @throws InvalidArgument if theta is empty.
void check_bound_theta(const Eigen::VectorXd& theta);

/// min_{0≤m≤L} B(m) and its first argmin by one std::cos per term over every m: the reference bound_minimum
/// (bound_sweep.hpp) is tested against. O(L·d) cos calls.
/// @throws InvalidArgument as check_bound_context and check_bound_theta.
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

}  // namespace rope
