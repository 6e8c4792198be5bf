/// @file
/// `rope apply`'s computation: a model's RoPE (S19) applied to one vector at one position three ways, the
/// matrix (M5), element-wise (M9) and complex (M10) forms, and how far they are apart against (M13); with
/// xPos's scale (X2) on top for plain RoPE, and HF's float32 path (rope_float32.hpp) beside them.
/// Plain RoPE is a spec too (models/resolve.hpp): attention factor 1, every channel rotating.
#pragma once

#include <Eigen/Core>
#include <optional>

#include "rope/analysis/verify/xpos.hpp"
#include "rope/core/tolerance.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/rope_float32.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {

/// xPos on top of RoPE (docs/multi-axis.md (X2)): the scale base s and whether the vector is a query or a key.
struct XposSetting {
  double scale_base = kDefaultXposScaleBase;
  XposRole role = XposRole::Query;
};

struct ModelApply {
  RopeSpec spec;               ///< the spec at the position (dynamic, longrope: spec_at_position)
  int offset = 0;              ///< the first rotating channel of x (rotary_offset_for)
  Eigen::VectorXd frequency;   ///< θ_i of every pair
  Eigen::VectorXd angle;       ///< every pair's angle: m·θ_i, or θ_i·p_a(i) with multi-axis sections (A1)
  Eigen::VectorXd xpos_scale;  ///< ζ_i^(±m/s) of (X2) per pair (ones without xPos)
  Eigen::VectorXd by_matrix, by_elementwise, by_complex;  ///< (S19) by each form: head_dim or rotary_dim numbers
  std::optional<Float32Angles> float32;                   ///< HF's float32 angles, when asked for
  Eigen::VectorXd by_float32;                             ///< (S19) as HF's float32 code computes it, when asked for
  Check check;  ///< the largest difference between the forms against κ·ε·(d + |m|)·S (M13)
};

/// (S19) on x (head_dim or rotary_dim numbers) at position p (one number, or one per axis of the spec's
/// sections), by the three forms. The frequencies are the spec's at the largest component of p (HF's dynamic
/// update takes max(position_ids) + 1). xpos applies to a spec without axes only.
/// @throws InvalidArgument as rotary_offset_for, spec_at_position and axis_angles.
ModelApply model_apply(const RopeSpec& spec, const Eigen::VectorXd& x, const AxisPosition& p,
                       const std::optional<XposSetting>& xpos = std::nullopt, bool float32 = false);

}  // namespace rope
