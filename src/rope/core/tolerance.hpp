/// @file
/// The single tolerance policy shared by `rope verify`, the other commands and the tests
/// (docs/math.md (M13)), and the one type that holds a comparison against it, Check.
///
/// Rounding the angle m·θ costs about ε·|m·θ| <= ε·|m| absolute (θ_0 = 1 is the largest frequency),
/// cos/sin add about ε each, and a sum of d products adds at most about d·ε of the scale S of the
/// result. So an identity whose sides involve positions with absolute values summing to M may differ by
///
///     |Δ| <= κ · ε · (d + M) · S                                          (M13)
///
/// with S the natural scale of the compared quantity (‖q‖‖k‖ for a score, ‖x‖ for a vector, 1 for a
/// matrix entry) and κ = kToleranceSafety (constants.hpp). A fixed absolute tolerance is wrong: 1e-12
/// passes at m = 10 and fails near m = 1e5.
#pragma once

#include <cmath>
#include <limits>

#include "rope/core/constants.hpp"

namespace rope {

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

/// One comparison of two sides against (M13): |Δ| <= tolerance · S.
///
/// The rule, everywhere in rope: passed() is `difference <= tolerance * scale` for a finite difference,
/// so a NaN or infinite difference (an overflow, an invalid operation) never passes, a scale of 0
/// demands exact agreement, and a tolerance of 0 demands exact agreement.
///
/// A worst case over samples that each have their own scale (verify, the bulk identity check, the
/// shift test of attention) cannot be one |Δ| against one S: the largest |Δ| and the largest |Δ|/S
/// come from different samples. Such a Check holds the normalised worst case, difference = max |Δ|/S
/// over the samples, and scale = 1; the rule above then reads max |Δ|/S <= tolerance, the same rule.
struct Check {
  double difference = 0.0;  ///< |Δ|: the largest absolute difference between the two sides
  double scale = 1.0;       ///< S of (M13), > 0 in every use (0: the sides must agree exactly)
  double tolerance = 0.0;   ///< the bound on |Δ|/S, e.g. relative_tolerance(); 0: the sides must agree exactly

  /// |Δ|/S: 0 when difference is 0 (also for S = 0), +inf when S = 0 < difference.
  double relative_error() const {
    if (difference == 0.0) return 0.0;
    if (scale == 0.0) return std::numeric_limits<double>::infinity();
    return difference / scale;
  }
  /// |Δ| <= tolerance · S, for a finite |Δ|.
  bool passed() const { return std::isfinite(difference) && difference <= tolerance * scale; }
};

}  // namespace rope
