/// @file
/// The rotation frequencies θ_i and wavelengths λ_i of RoPE (docs/math.md (M1), (M2)).
/// Double precision; callers that study other scalar types cast the result.
#pragma once

#include <Eigen/Core>

#include "rope/core/types.hpp"

namespace rope {

/// Rotation frequency of each 2-D pair, in radians per position.
///
///     θ_i = base^(−2i/d),   i = 0, 1, …, d/2 − 1                       (M1)
///
/// RoFormer (Su et al. 2021, arXiv:2104.09864 §3.2.2) writes θ_i = 10000^(−2(i−1)/d) with a 1-based i;
/// here i is 0-based and the 10000 is a parameter. θ_0 = 1 exactly; the last pair is d/2 − 1.
/// @param d     head (rotary) dimension; even, 2 <= d <= kMaxDim.
/// @param base  finite, > 1.
/// @throws InvalidArgument if d or base breaks its rule.
/// Example: frequencies(4, 10000.0) == {1.0, 0.01}
Eigen::VectorXd frequencies(int d, double base = kDefaultBase);

/// Positions per full turn of each pair:  λ_i = 2π / θ_i                 (M2)
/// Example: wavelengths(frequencies(4, 1e4)) ≈ {6.2832, 628.32}
Eigen::VectorXd wavelengths(const Eigen::VectorXd& theta);

/// The first pair whose wavelength exceeds `context`: from it on, pairs never complete a full turn
/// within the context (the "critical dimension" of Liu et al. 2023, arXiv:2310.05209, is 2× this
/// index). Returns lambda.size() if every wavelength fits.
///     i* = min { i : λ_i > L }
Eigen::Index first_pair_beyond(const Eigen::VectorXd& lambda, double context);

/// The exponent −2i/d of pair i, as printed next to θ_i (so a reader can check an explainer).
double frequency_exponent(int d, int i);

}  // namespace rope
