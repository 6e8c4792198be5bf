/// @file
/// The long-range decay bound of RoFormer §3.4.3 (docs/math.md (M11)). It is an upper bound on the
/// relative size of the attention score, not a score: for independent zero-mean q, k the expected
/// rotated score is 0 at every distance. Each formula here is computed as written, one term at a time; the curves at
/// evenly spaced distances that `rope decay` draws are swept by angle addition (decay_sweep.hpp).
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

/// The score of q = k = all ones at distance m, ⟨R_0 1, R_m 1⟩ = 2·Σ_i cos(m θ_i)                   (M14)
/// The decaying curve many explainers show; 2·(d/2) = d at m = 0.
double ones_score(const Eigen::VectorXd& theta, double m);
Eigen::VectorXd ones_score(const Eigen::VectorXd& theta, const Eigen::VectorXd& distances);
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

/// @throws InvalidArgument as linspace does, if points < 1 or stop is negative or not finite.
void check_linspace(double stop, long points);

/// `points` evenly spaced values from 0 to `stop` inclusive, computed as NumPy's
/// np.linspace(0, stop, points) computes them (k·(stop/(points−1)), the last one exactly stop), so
/// the distances of tests/reference/decay.py are reproduced bit for bit.
/// @throws InvalidArgument if points < 1 or stop is negative or not finite.
Eigen::VectorXd linspace(double stop, long points);

}  // namespace rope
