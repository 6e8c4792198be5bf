#include "rope/analysis/teaching/model_apply.hpp"

#include <algorithm>

#include "rope/core/apply.hpp"
#include "rope/core/rotation.hpp"
#include "rope/core/types.hpp"

namespace rope {

ModelApply model_apply(const RopeSpec& model, const Eigen::VectorXd& x, const AxisPosition& p,
                       const std::optional<XposSetting>& xpos, bool float32) {
  ModelApply r;
  r.offset = rotary_offset_for(model, static_cast<int>(x.size()));
  const Eigen::VectorXd xr = rotary_part(model, x);
  const int d = static_cast<int>(xr.size());
  double m = p.value[0];  // the largest component: HF's dynamic update takes max(position_ids) + 1
  for (int k = 1; k < p.count; ++k) m = std::max(m, p.value[static_cast<std::size_t>(k)]);
  // dynamic and longrope: the frequencies HF uses at this position (seq_len = m + 1 unless given).
  r.spec = spec_at_position(model, m);
  const RopeSpec& spec = r.spec;
  const AxisMap* axes = spec.axes ? &*spec.axes : nullptr;
  r.frequency = spec.params.inv_freq;
  if (!axes && p.multi()) static_cast<void>(axis_angles(r.frequency, nullptr, p));  // throws: one position only
  // (A1): with multimodal sections pair i turns by φ_i = θ_i·p_a(i); every form below then rotates by
  // these angles at "position" 1 (1·φ_i = φ_i exactly). A single number is every axis's position.
  const Eigen::VectorXd rate = axes ? spec_angles(spec, p) : r.frequency;
  const double at = axes ? 1.0 : p.value[0];
  r.angle = at * rate;
  // Gemma 4's vision tower (V6): the forms rotate the part in half order, the pairs of each axis's block moved there.
  const Layout layout = rotation_layout(spec);
  const Eigen::VectorXd xo = to_rotation_order(spec, xr);
  // (X2): every form's pair i times ζ_i^(m/s) for the query, ζ_i^(−m/s) for the key.
  r.xpos_scale = xpos ? xpos_scale(d, p.value[0], xpos->scale_base, xpos->role) : Eigen::VectorXd::Ones(d / 2);
  const auto output = [&](Eigen::VectorXd v) {
    if (xpos) {
      for (int i = 0; i < d / 2; ++i) {
        const auto [ca, cb] = spec_pair_channels(spec, i);
        v[ca] *= r.xpos_scale[i];
        v[cb] *= r.xpos_scale[i];
      }
    }
    return spec_output(spec, x, v);  // (S19): the rotated channels times a, the others unchanged
  };
  r.by_matrix = output(from_rotation_order(spec, rotation_matrix<double>(rate, at, layout) * xo));
  r.by_elementwise = output(from_rotation_order(spec, apply_rotary(xo, rate, at, layout)));
  r.by_complex = output(from_rotation_order(spec, apply_rotary_complex(xo, rate, at, layout)));
  const double diff = std::max((r.by_matrix - r.by_elementwise).cwiseAbs().maxCoeff(),
                               (r.by_complex - r.by_elementwise).cwiseAbs().maxCoeff());
  const double a = spec.attention_factor();
  const double scale = std::max(std::max(a, 1.0) * r.xpos_scale.maxCoeff() * x.norm(), 1e-300);
  r.check = Check{diff, scale, relative_tolerance(machine_epsilon<double>(), d, p.max_abs())};
  if (float32) {
    r.float32 = float32_angles(spec, m);
    r.by_float32 = spec_apply_float32(spec, x, m);
  }
  return r;
}

}  // namespace rope
