/// @file
/// --float32 (alias --inv-freq-dtype f32): a model's frequencies, angles, cos and sin computed as
/// Hugging Face computes them, in float32 (docs/scaling.md, "float32 as HF computes it"), so that
/// rope's numbers can be compared with a PyTorch dump to float32's precision, not only to float64's.
/// Every step is one float32 operation in HF's order (modeling_rope_utils.py, <Family>RotaryEmbedding):
///   default   inv_freq = 1 / (base ** (arange(0, d, 2).float() / d))          (F1)
///   linear    inv_freq / f
///   dynamic   (F1) with the effective base (computed in float64, as HF's Python float)
///   llama3    wavelen = (1/inv_freq)·2π; smooth = ((1/wavelen)·L0 − lf)/(hf − lf);
///             smoothed = ((1 − smooth)·inv/f)... as HF writes it
///   yarn      1/(f·pos), 1/pos blended by the float32 ramp (arange(d/2) − low)/(high − low)
///   longrope  1/(ext · base ** (arange(0, d, 2).float() / d))
///   angles    float32(m) · inv_freq (one rounding: HF's matmul of a d/2×1 by a 1×n matrix)   (F2)
///   cos, sin  of the float32 angle, rounded to float32, times float32(a)                     (F3)
/// Scalars that HF keeps as Python floats (f, L0, the yarn range, base) enter as float32, as PyTorch
/// converts a Python scalar to the tensor's dtype. Rounding: every operation is IEEE float32 except the
/// power and cos/sin, which are evaluated in float64 and rounded once (correctly rounded but for
/// double-rounding cases); PyTorch's CPU kernels (Sleef, ≤ 1 ULP) may differ from them in the last bit.
#pragma once

#include <Eigen/Core>

#include "rope/models/rope_spec.hpp"

namespace rope {

/// The float32 frequencies of spec (its rotary_dim/2 pairs), as HF computes them.
/// @throws InvalidArgument for a method HF does not compute this way (proportional).
Eigen::VectorXf inv_freq_float32(const RopeSpec& spec);

/// Whether m is a float32 value (HF's position_ids are int64 turned into float32: exact below 2^24).
/// @throws InvalidArgument naming m when it is not.
float float32_position(double m);

/// (F2), (F3) at position m: the angles and cos, sin with the attention factor, d/2 each.
struct Float32Angles {
  Eigen::VectorXf inv_freq, angle, cos, sin;
};
Float32Angles float32_angles(const RopeSpec& spec, double m);

/// (S19) in float32 as HF's apply_rotary_pos_emb: x rounded to float32, x·cos + rotate(x)·sin with each
/// product and sum rounded to float32, placed as spec_output places it (without a second factor a).
Eigen::VectorXd spec_apply_float32(const RopeSpec& spec, const Eigen::VectorXd& x, double m);

/// The n×n matrix whose columns are spec_apply_float32 of the unit vectors (float32 a·cos, a·sin entries).
Eigen::MatrixXd spec_matrix_float32(const RopeSpec& spec, double m, int n);

}  // namespace rope
