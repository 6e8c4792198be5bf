/// @file
/// The long-range decay bound of RoFormer §3.4.3 (docs/math.md (M11)). It is an upper bound on the
/// relative size of the attention score, not a score: for independent zero-mean q, k the expected
/// rotated score is 0 at every distance.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace rope {

/// RoFormer's decay bound at relative distance m                                            (M11)
///
///     f(m) = (1/(d/2)) · Σ_{j=0}^{d/2−1} | Σ_{i=0}^{j} e^{i m θ_i} |
///
/// computed in O(d) with a running prefix sum of e^{i m θ_i}. f(0) = (d/2 + 1)/2 exactly.
/// @param theta  the frequencies θ_0 … θ_{d/2−1} (frequencies.hpp).
double decay_bound(const Eigen::VectorXd& theta, double m);

/// f at each distance of `distances`.
Eigen::VectorXd decay_bound(const Eigen::VectorXd& theta, const Eigen::VectorXd& distances);

/// decay_bound(theta, linspace(stop, points)) without a cos/sin per term, for evenly spaced distances
/// m_k = k·Δ, Δ = stop/(points − 1). With K = decay_anchor(points), e^{i m_k θ_i} = A_{⌊k/K⌋,i} · B_{k mod K,i}
/// (angle addition) where A_a = e^{i·(aK·Δ)·θ_i} is computed directly every K points (the re-anchoring)
/// and B_b = e^{i·(b·Δ)·θ_i} once: cos/sin is evaluated for points/K + K distances instead of all of
/// them, and every term is one complex product away from directly computed values, so its error is a
/// few ulp whatever k (no accumulation). The sums over pairs run over 8 distances at a time so they
/// vectorize; OpenMP over blocks. The recurrence itself adds a few ulp per term; against decay_bound
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

/// The score of q = k = all ones at distance m, ⟨R_0 1, R_m 1⟩ = 2·Σ_i cos(m θ_i)                   (M14)
/// The decaying curve many explainers show; 2·(d/2) = d at m = 0.
double ones_score(const Eigen::VectorXd& theta, double m);
Eigen::VectorXd ones_score(const Eigen::VectorXd& theta, const Eigen::VectorXd& distances);
/// The same at linspace(stop, points) without a cos/sin per term: the anchors and the angle-addition
/// product of decay_bound_linspace, cos((aK + b)Δθ_i) = Re(A_{a,i}·B_{b,i}). Against ones_score (a
/// cos/sin per term) the difference is at most a few ulp per term plus the angles' own rounding,
/// |Δ| <= 4·(d/2)·ε·(m·θ_0 + 8) (tests/analysis/calculators/test_decay.cpp); the last point is computed directly.
/// @throws InvalidArgument as linspace does.
Eigen::VectorXd ones_score_linspace(const Eigen::VectorXd& theta, double stop, long points);

/// Mean and standard deviation over `samples` random pairs of ⟨R_m q, k⟩, q and k standard normal  (M15)
/// (the same pairs at every distance). Per pair i the score is A_i cos(mθ_i) + B_i sin(mθ_i) with
/// A_i = q_a k_a + q_b k_b and B_i = q_a k_b − q_b k_a, so its expectation is 0 at every m and its
/// variance is d: random scores do not decay (docs/math.md (M15)).
struct RandomScores {
  Eigen::VectorXd mean;
  Eigen::VectorXd stddev;
};
/// @throws InvalidArgument if samples < 2 or samples·distances·d/2 exceeds kMaxRandomWork.
RandomScores random_scores(const Eigen::VectorXd& theta, const Eigen::VectorXd& distances, long samples,
                           std::uint64_t seed);

/// Bound on samples × distances × pairs for random_scores (about a minute of work at most).
inline constexpr double kMaxRandomWork = 2e10;

/// How `rope decay` computes one curve, for its cost per point and frequency pair (decay_work).
enum class DecayPath {
  Recurrence,   ///< decay_bound_linspace / ones_score_linspace: one complex product per term
  OnesDirect,   ///< ones_score at given distances: a cos per term
  BoundDirect,  ///< decay_bound at given distances: a cos and a sin per term, and the running sums
  Random,       ///< random_scores: a cos and a sin per term, then a product per sample
};

/// The work of one curve of `points` distances over `pairs` frequency pairs (d/2) computed by `path`,
/// in units of one term of the recurrence. The weights were measured (rope decay, one process, 2 cores
/// shared with a build at load 8–10): the recurrence 3.2 ns a term, ones_score 13.6 ns (4 units),
/// decay_bound 34 ns (10 units), random_scores 24 ns a term for its cos/sin plus 1.3–2 ns per sample
/// (10 + samples/2 units).
double decay_work(DecayPath path, long points, long pairs, long samples = 0);

/// Bound on the work of all the curves one `rope decay` run computes (each --base value, each GIF frame):
/// 5e9 units: at the limit 20–40 s of CPU (measured in docs/errors.md, Limits).
inline constexpr double kMaxDecayWork = 5e9;

/// @throws InvalidArgument naming --points, --dim and the number of curves (the --base values, the GIF's
/// frames) when `curves`·decay_work(path, points, pairs, samples) exceeds kMaxDecayWork, before any of
/// it is computed.
void check_decay_work(DecayPath path, long points, long pairs, long samples, long curves);

/// `points` values from 1 to `stop` spaced evenly on a log scale (NumPy's np.geomspace(1, stop, points)),
/// for log-x plots, where distance 0 has no place. @throws InvalidArgument unless points >= 2 and stop > 1.
Eigen::VectorXd logspace(double stop, long points);

/// `points` evenly spaced values from 0 to `stop` inclusive, computed as NumPy's
/// np.linspace(0, stop, points) computes them (k·(stop/(points−1)), the last one exactly stop), so
/// the distances of tests/reference/decay.py are reproduced bit for bit.
/// @throws InvalidArgument if points < 1 or stop is negative or not finite.
Eigen::VectorXd linspace(double stop, long points);

}  // namespace rope
