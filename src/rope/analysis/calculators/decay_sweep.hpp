/// @file
/// The sweeps of `rope decay`: RoFormer's decay bound (M11) and the all-ones score (M14) of decay.hpp at evenly spaced
/// distances without a cos/sin per term, by angle addition from anchors computed directly, over lanes of distances and
/// threads. Each agrees with its formula, computed term by term, within the bounds stated here
/// (tests/analysis/calculators/test_decay.cpp measures both).
#pragma once

#include <Eigen/Core>

namespace rope {

/// decay_bound(theta, linspace(stop, points)) without a cos/sin per term, for evenly spaced distances
/// m_k = k·Δ, Δ = stop/(points − 1). With K = decay_anchor(points), e^{i m_k θ_i} = A_{⌊k/K⌋,i} · B_{k mod K,i}
/// (angle addition) where A_a = e^{i·(aK·Δ)·θ_i} is computed directly every K points (the re-anchoring)
/// and B_b = e^{i·(b·Δ)·θ_i} once: cos/sin is evaluated for points/K + K distances instead of all of
/// them, and every term is one complex product away from directly computed values, so its error is a
/// few ulp whatever k (no accumulation). The sums over pairs run over 8 distances at a time so they
/// vectorize; threads over blocks of anchors. The recurrence itself adds a few ulp per term; against decay_bound
/// (a cos/sin per term) the relative difference per point is ~1e-14 for distances up to 4096 and
/// ~1e-10 near 10^6, where the angles m_k·θ_i are only known to their rounding, ulp(10^6) ≈ 1.2e-10,
/// in either computation (tests/analysis/calculators/test_decay.cpp measures both). The last point is computed directly
/// at exactly `stop`.
/// @throws InvalidArgument as linspace does.
Eigen::VectorXd decay_bound_linspace(const Eigen::VectorXd& theta, double stop, long points);

/// Largest re-anchoring interval of decay_bound_linspace, in points.
inline constexpr long kDecayAnchor = 256;
/// The re-anchoring interval K for `points` points: about √points (so that points/K + K rows of
/// cos/sin are computed directly), a multiple of 8, between 8 and kDecayAnchor.
long decay_anchor(long points);

/// ones_score(theta, linspace(stop, points)) without a cos/sin per term: the anchors and the angle-addition
/// product of decay_bound_linspace, cos((aK + b)Δθ_i) = Re(A_{a,i}·B_{b,i}). Against ones_score (a
/// cos/sin per term) the difference is at most a few ulp per term plus the angles' own rounding,
/// |Δ| <= 4·(d/2)·ε·(m·θ_0 + 8) (tests/analysis/calculators/test_decay.cpp); the last point is computed directly.
/// @throws InvalidArgument as linspace does.
Eigen::VectorXd ones_score_linspace(const Eigen::VectorXd& theta, double stop, long points);

}  // namespace rope
