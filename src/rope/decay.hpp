/// @file
/// The long-range decay bound of RoFormer §3.4.3 (docs/math.md (M11)). It is an upper bound on the
/// relative size of the attention score, not a score: for independent zero-mean q, k the expected
/// rotated score is 0 at every distance.
#pragma once

#include <Eigen/Core>

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

/// `points` evenly spaced values from 0 to `stop` inclusive, computed as NumPy's
/// np.linspace(0, stop, points) computes them (k·(stop/(points−1)), the last one exactly stop), so
/// the distances of seed 000's script are reproduced bit for bit.
/// @throws InvalidArgument if points < 1 or stop is negative or not finite.
Eigen::VectorXd linspace(double stop, long points);

}  // namespace rope
