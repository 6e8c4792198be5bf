/// @file
/// The rotation matrices of RoPE: the 2×2 block R(φ), the d×d block-diagonal R^d_{Θ,m} in either
/// layout, and the fixed permutation P between the layouts (docs/math.md (M3), (M5), (M6)).
/// Dense d×d matrices are for teaching and checking; apply.hpp rotates a vector without forming one.
///
/// Conventions
///   - Direction: R(φ) = [[cos φ, −sin φ], [sin φ, cos φ]] rotates counter-clockwise (a pair (a, b) read
///     as a + ib is multiplied by e^{iφ}).
///   - Pair i is rotated by the angle m·θ_i, θ_i from frequencies.hpp (M1); i is 0-based.
///   - Layout::Interleaved pairs channels (2i, 2i+1); Layout::Half pairs (i, i + d/2).
///   - Positions m are real numbers: negative and fractional positions are allowed (scaling methods
///     produce fractional ones).
///   - Everything is computed in Scalar: θ and m are cast to Scalar by the caller, the product m·θ_i
///     and its cos/sin are evaluated in Scalar. Instantiated for float, double, Eigen::half and
///     Eigen::bfloat16 (docs/precision.md).
#pragma once

#include <Eigen/Core>
#include <Eigen/Core>

#include "rope/core/types.hpp"

namespace rope {

/// The 2×2 counter-clockwise rotation by φ radians                          (M3)
template <typename Scalar>
Eigen::Matrix<Scalar, 2, 2> rotation_2d(Scalar phi);

/// Largest d of a dense d×d matrix (128 MiB of doubles at 4096): a larger one would exhaust memory.
inline constexpr int kMaxDenseDim = 4096;

/// R^d_{Θ,m}: block i is R(m·θ_i) placed on the channels of pair i           (M5), (M6)
/// d = 2·theta.size(). Entries outside the blocks are exactly 0.
/// @throws InvalidArgument if d > kMaxDenseDim.
template <typename Scalar>
Matrix<Scalar> rotation_matrix(const Vector<Scalar>& theta, Scalar m, Layout layout);

/// Convenience: the double-precision R^d_{Θ,m} for θ = frequencies(d, base).
/// @throws InvalidArgument for a bad d, base or a non-finite m.
Eigen::MatrixXd rotation_matrix(int d, double m, double base = kDefaultBase, Layout layout = Layout::Interleaved);

/// The permutation P that maps the interleaved layout to the half layout        (M6)
///
///     (P x)_i = x_{2i},   (P x)_{i + d/2} = x_{2i+1},   i = 0 … d/2 − 1
///
/// so that R_half,m = P · R_interleaved,m · Pᵀ and rope_half(P x) = P · rope_interleaved(x) exactly.
/// @throws InvalidArgument for a bad d.
Eigen::PermutationMatrix<Eigen::Dynamic> layout_permutation(int d);

/// ⟨u, v⟩ summed pair by pair: Σ_{i = 0}^{d/2 − 1} (u_a v_a + u_b v_b), (a, b) = pair_channels(d, i, layout),
/// accumulated from pair 0 on. Equal to ⟨u, v⟩ up to the order of the additions.
/// @throws InvalidArgument if the lengths differ or are odd.
double pair_dot(const Eigen::VectorXd& u, const Eigen::VectorXd& v, Layout layout);

}  // namespace rope
