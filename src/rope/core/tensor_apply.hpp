/// @file
/// RoPE over a whole tensor, the way a model applies it: x of shape [seq, heads, d] (row-major, one
/// head vector of d channels contiguous), position p for row p, one cos/sin table row per position
/// shared by all heads (docs/math.md (M9)). These are the fast kernels that `rope bench` and bench/
/// time; tests/core/test_tensor_apply.cpp checks each against apply_rotary of apply.hpp, vector by vector.
///
/// The teaching ladder: the same job four ways, from the dense d×d matrix per position (O(d²) per
/// vector) down to the element-wise form of (M9) (O(d), no transcendental functions: cos/sin come from
/// the table).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "rope/core/types.hpp"

namespace rope {

/// cos(p·θ_i) and sin(p·θ_i) for positions p = 0 … positions−1 and pairs i = 0 … half−1, row-major
/// [positions × half] (row p at p·half).
template <typename Scalar>
struct CosSinTable {
  long positions = 0;
  int half = 0;
  std::vector<Scalar> cos;
  std::vector<Scalar> sin;
};

/// The table by the angle-addition recurrence: with K = kTableAnchor, row p = A_{⌊p/K⌋} · B_{p mod K}
/// as complex numbers, where A_a = e^{i·aK·θ} and B_b = e^{i·b·θ} are computed directly (cos/sin in
/// double). So cos/sin is evaluated for positions/K + K rows instead of all of them, and every entry
/// is one complex product away from two directly computed values: its error is a few ulp of double
/// whatever the position (no accumulation), then rounded to Scalar. OpenMP over blocks of rows.
/// @throws InvalidArgument unless 1 <= positions <= 2^31 and theta is non-empty.
template <typename Scalar>
CosSinTable<Scalar> cos_sin_table(const Eigen::VectorXd& theta, long positions);

/// The straightforward table: std::cos and std::sin of p·θ_i in double, per entry, cast to Scalar.
template <typename Scalar>
CosSinTable<Scalar> cos_sin_table_direct(const Eigen::VectorXd& theta, long positions);

/// Block size of the recurrence in cos_sin_table.
inline constexpr long kTableAnchor = 64;

/// Shape of a [seq, heads, d] tensor.
struct TensorShape {
  long seq = 0;
  long heads = 0;
  int d = 0;
  long size() const { return seq * heads * d; }
};

/// y = RoPE(x) by the element-wise form (M9), position p for row p; y may not overlap x.
/// OpenMP over positions. @throws InvalidArgument if the table has fewer than seq rows or another
/// half than d/2.
void apply_rotary_tensor(const float* x, float* y, const TensorShape& shape, const CosSinTable<float>& table,
                         Layout layout);

/// The same in place.
void apply_rotary_tensor_inplace(float* x, const TensorShape& shape, const CosSinTable<float>& table, Layout layout);

/// The teaching ladder (interleaved layout, one thread, out of place), each giving what
/// apply_rotary_tensor gives up to rounding:
enum class LadderForm {
  Dense,        ///< build the d×d matrix R_p (M5) per position, then Y_p = R_p·X_p (O(d²) per vector)
  Block2x2,     ///< one 2×2 matrix–vector product per pair (M3), blocks built from the table
  Elementwise,  ///< x ⊙ cos + rot(x) ⊙ sin (M9), as apply_rotary_tensor
  Complex,      ///< std::complex<float> product per pair (M10)
};
const char* to_string(LadderForm form);
void apply_ladder(LadderForm form, const float* x, float* y, const TensorShape& shape, const CosSinTable<float>& table);

}  // namespace rope
