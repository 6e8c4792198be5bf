/// @file
/// RoPE applied to a vector without forming the d×d matrix (docs/math.md (M9), (M10)).
/// Two independent formulations, so each can check the other and the dense matrix of rotation.hpp:
///   - the element-wise form  x ⊙ cos(mΘ) + rot(x) ⊙ sin(mΘ), written as the seeds and Hugging Face
///     write it (rotate_half in the half layout), O(d);
///   - the complex form: pair i read as a complex number and multiplied by e^{i m θ_i} (Meta's Llama).
/// Conventions as in rotation.hpp. These are the readable forms; fast batched kernels belong elsewhere.
/// Instantiated for float, double, long double, Eigen::half and Eigen::bfloat16: with the two 16-bit
/// types every product and sum is rounded to the type (Eigen evaluates each operation in float32 and
/// rounds once), which is how docs/precision.md measures what the low precision costs.
#pragma once

#include <Eigen/Core>

#include "rope/core/types.hpp"

namespace rope {

/// rot(x) of (M9): the vector that sin(mΘ) multiplies.
///   Interleaved: rot(x) = [−x_1, x_0, −x_3, x_2, …]
///   Half:        rot(x) = [−x_{d/2}, …, −x_{d−1}, x_0, …, x_{d/2−1}]   (Hugging Face rotate_half)
template <typename Scalar>
Vector<Scalar> rotate_pairs(const Vector<Scalar>& x, Layout layout);

/// R^d_{Θ,m} x in the element-wise form                                           (M9)
///
///     R_m x = x ⊙ [cos mθ_0, …] + rot(x) ⊙ [sin mθ_0, …]
///
/// with each cos/sin repeated on both channels of its pair.
/// @pre x.size() == 2·theta.size() (throws InvalidArgument otherwise).
template <typename Scalar>
Vector<Scalar> apply_rotary(const Vector<Scalar>& x, const Vector<Scalar>& theta, Scalar m, Layout layout);

/// R^d_{Θ,m} x from given cos and sin of the d/2 angles (one per pair), in Scalar           (M9)
///
///     (R x)_a = x_a·cos_i − x_b·sin_i,   (R x)_b = x_a·sin_i + x_b·cos_i,   pair i = (a, b)
///
/// For computing the angles (and their cos/sin) in another precision than the rotation itself
/// (docs/precision.md (P4)). @pre x.size() == 2·cos.size() == 2·sin.size() (throws InvalidArgument).
template <typename Scalar>
Vector<Scalar> apply_rotary_cos_sin(const Vector<Scalar>& x, const Vector<Scalar>& cos, const Vector<Scalar>& sin,
                                    Layout layout);

/// R^d_{Θ,m} x in the complex form: z_i = x_a + i·x_b for pair i = (a, b), z_i ← z_i·e^{i m θ_i}  (M10)
/// (std::complex for the standard types; the product written out in Scalar for half and bfloat16.)
template <typename Scalar>
Vector<Scalar> apply_rotary_complex(const Vector<Scalar>& x, const Vector<Scalar>& theta, Scalar m, Layout layout);

}  // namespace rope
