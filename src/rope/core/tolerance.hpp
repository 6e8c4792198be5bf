/// @file
/// The single tolerance policy shared by `rope verify` and the tests (docs/math.md (M13)).
///
/// Rounding the angle m·θ costs about ε·|m·θ| <= ε·|m| absolute (θ_0 = 1 is the largest frequency),
/// cos/sin add about ε each, and a sum of d products adds at most about d·ε of the scale S of the
/// result. So an identity whose sides involve positions with absolute values summing to M may differ by
///
///     |Δ| <= κ · ε · (d + M) · S                                          (M13)
///
/// with S the natural scale of the compared quantity (‖q‖‖k‖ for a score, ‖x‖ for a vector, 1 for a
/// matrix entry). A fixed absolute tolerance is wrong: 1e-12 passes at m = 10 and fails near m = 1e5.
#pragma once

#include <limits>

namespace rope {

/// κ in (M13). The bound above counts each rounding once; 8 leaves room for the few roundings per term
/// it does not count (θ itself, the product, cos or sin) without hiding a real bug, whose error is of
/// the order of S.
inline constexpr double kToleranceSafety = 8.0;

/// Machine epsilon of a scalar type, as a double (2.22e-16 for double, 1.19e-7 for float).
template <typename Scalar>
constexpr double machine_epsilon() {
  return static_cast<double>(std::numeric_limits<Scalar>::epsilon());
}

/// Tolerance on |Δ|/S, the error relative to the scale S of the compared quantity            (M13)
/// @param epsilon          machine epsilon of the arithmetic.
/// @param d                dimension (number of summed terms).
/// @param position_budget  M: the largest sum of |positions| entering the two sides.
inline double relative_tolerance(double epsilon, int d, double position_budget) {
  return kToleranceSafety * epsilon * (d + position_budget);
}

}  // namespace rope
