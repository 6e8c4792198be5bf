#include "rope/models/rope_float32.hpp"

#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "rope/core/apply.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/message.hpp"

// Written from HF transformers src/transformers/modeling_rope_utils.py (_compute_default_rope_parameters,
// _compute_linear_scaling_rope_parameters, _compute_dynamic_ntk_parameters, _compute_llama3_parameters,
// _compute_yarn_parameters, _compute_longrope_parameters) and the RotaryEmbedding.forward of the modeling
// files. PyTorch evaluates `scalar / tensor` as tensor.reciprocal() * scalar (torch/_tensor.py __rdiv__).

namespace rope {

namespace {

/// x as float32, as PyTorch converts a Python number; a value beyond float32's range is refused (the
/// conversion would be undefined here, and inf in PyTorch).
float f32(double x, const char* what) {
  if (!std::isfinite(x) || std::abs(x) > static_cast<double>(std::numeric_limits<float>::max())) {
    throw InvalidArgument(error_msg("{0}: {1} {2} is beyond float32's range", option_name("float32"), what, x));
  }
  return static_cast<float>(x);
}

/// base ** e in float32: evaluated in float64 (std::pow, correctly rounded in nearly every case) and
/// rounded once to float32.
float pow32(float base, float e) {
  return static_cast<float>(std::pow(static_cast<double>(base), static_cast<double>(e)));
}

/// arange(0, d, 2).float() / d: the exponents 2i/d, each one float32 division.
Eigen::VectorXf exponents(int d) {
  Eigen::VectorXf e(d / 2);
  for (int i = 0; i < d / 2; ++i) e[i] = static_cast<float>(2 * i) / static_cast<float>(d);
  return e;
}

/// (F1): 1 / base ** (2i/d).
Eigen::VectorXf default_inv_freq(int d, double base) {
  const Eigen::VectorXf e = exponents(d);
  Eigen::VectorXf inv(e.size());
  for (Eigen::Index i = 0; i < e.size(); ++i) inv[i] = 1.0f / pow32(f32(base, "base"), e[i]);
  return inv;
}

Eigen::VectorXf llama3(const Eigen::VectorXf& inv, const RopeParameters& p, const RopeConfig& c) {
  const float f = f32(p.factor, "factor");
  const double lf = c.low_freq_factor.value_or(1.0);
  const double hf = c.high_freq_factor.value_or(1.0);
  const double L0 = static_cast<double>(p.original_max_position);
  const float low_wavelen = f32(L0 / lf, "L0 / low_freq_factor");  // Python floats, compared in float32
  const float high_wavelen = f32(L0 / hf, "L0 / high_freq_factor");
  const float two_pi = static_cast<float>(kTwoPi);  // 2 * math.pi, a Python float
  Eigen::VectorXf out(inv.size());
  for (Eigen::Index i = 0; i < inv.size(); ++i) {
    const float wavelen = (1.0f / inv[i]) * two_pi;
    const float llama = wavelen > low_wavelen ? inv[i] / f : inv[i];
    const bool medium = !(wavelen < high_wavelen) && !(wavelen > low_wavelen);
    if (!medium) {
      out[i] = llama;
    } else if (hf == lf) {
      out[i] = std::numeric_limits<float>::quiet_NaN();  // HF: 0/0 (only for a wavelength exactly L0/hf)
    } else {
      const float smooth = ((1.0f / wavelen) * f32(L0, "L0") - f32(lf, "low_freq_factor")) /
                           f32(hf - lf, "high_freq_factor - low_freq_factor");
      const float a = (1.0f - smooth) * llama;
      out[i] = a / f + smooth * llama;
    }
  }
  return out;
}

Eigen::VectorXf yarn(int d, double base, const RopeConfig& c, const RopeParameters& p) {
  // Grok's theta_scale (vLLM grok1_scaling_rope.py @ e443db5afd): default RoPE at its new base.
  if (c.yarn_variant == YarnVariant::GrokThetaScale) return default_inv_freq(d, p.effective_base.value_or(base));
  const Eigen::VectorXf e = exponents(d);
  const float f = f32(p.factor, "factor");
  const double low = p.yarn_range->first;
  const double high = p.yarn_range->second == low ? low + 0.001 : p.yarn_range->second;  // HF's guard
  const float span = static_cast<float>(high - low);
  Eigen::VectorXf out(e.size());
  for (Eigen::Index i = 0; i < e.size(); ++i) {
    const float pos = pow32(f32(base, "base"), e[i]);
    const float extrapolation = 1.0f / pos;
    const float interpolation = 1.0f / (f * pos);
    const float ramp = std::min(std::max((static_cast<float>(i) - static_cast<float>(low)) / span, 0.0f), 1.0f);
    const float keep = 1.0f - ramp;                      // inv_freq_extrapolation_factor
    out[i] = c.yarn_variant == YarnVariant::GrokYarnLog  // Grok's yarn_log: the blend of the logarithms
                 ? std::exp(std::log(extrapolation) * keep + std::log(interpolation) * (1.0f - keep))
                 : interpolation * (1.0f - keep) + extrapolation * keep;
  }
  return out;
}

Eigen::VectorXf longrope(int d, double base, const RopeConfig& c, const RopeParameters& p) {
  const bool use_long = c.seq_len && *c.seq_len > p.original_max_position;
  const std::vector<double>& ext = use_long ? c.long_factor : c.short_factor;
  const Eigen::VectorXf e = exponents(d);
  Eigen::VectorXf out(e.size());
  for (Eigen::Index i = 0; i < e.size(); ++i) {
    out[i] = 1.0f / (f32(ext[static_cast<std::size_t>(i)], "longrope factor") * pow32(f32(base, "base"), e[i]));
  }
  return out;
}

}  // namespace

Eigen::VectorXf inv_freq_float32(const RopeSpec& s) {
  const int d = s.rotary_dim;
  const double base = s.config.base;
  const RopeParameters& p = s.params;
  switch (s.config.type) {
    case ScalingType::Default:
      return default_inv_freq(d, base);
    case ScalingType::Linear:
      return default_inv_freq(d, base) / f32(p.factor, "factor");
    case ScalingType::Ntk:
    case ScalingType::Dynamic:
      return default_inv_freq(d, p.effective_base.value_or(base));
    case ScalingType::Llama3:
      return llama3(default_inv_freq(d, base), p, s.config);
    case ScalingType::Yarn:
      return yarn(d, base, s.config, p);
    case ScalingType::LongRope:
      return longrope(d, base, s.config, p);
    case ScalingType::Proportional:
      break;
  }
  throw InvalidArgument(
      error_msg("{0}: rope_type {1} has no float32 computation in rope (default, linear, dynamic, "
                "llama3, yarn and longrope have)",
                option_name("float32"), to_string(s.config.type)));
}

float float32_position(double m) {
  const bool in_range = std::isfinite(m) && std::abs(m) <= static_cast<double>(std::numeric_limits<float>::max());
  const float f = in_range ? static_cast<float>(m) : 0.0f;
  if (!in_range || static_cast<double>(f) != m) {
    throw InvalidArgument(
        error_msg("{0}: position {1} is not a float32 value (HF turns its integer position_ids into "
                  "float32, exact up to 2^24 = 16777216)",
                  option_name("float32"), m));
  }
  return f;
}

Float32Angles float32_angles(const RopeSpec& s, double m) {
  const float mf = float32_position(m);
  Float32Angles r;
  r.inv_freq = inv_freq_float32(s);
  r.angle = r.inv_freq * mf;  // (F2): one product each
  const float a = f32(s.attention_factor(), "attention factor");
  r.cos.resize(r.angle.size());
  r.sin.resize(r.angle.size());
  for (Eigen::Index i = 0; i < r.angle.size(); ++i) {
    r.cos[i] = static_cast<float>(std::cos(static_cast<double>(r.angle[i]))) * a;  // (F3)
    r.sin[i] = static_cast<float>(std::sin(static_cast<double>(r.angle[i]))) * a;
  }
  return r;
}

Eigen::VectorXd spec_apply_float32(const RopeSpec& s, const Eigen::VectorXd& x, double m) {
  const Float32Angles g = float32_angles(s, m);
  const Eigen::VectorXf xr = rotary_part(s, x).cast<float>();
  const Eigen::VectorXf y = apply_rotary_cos_sin<float>(xr, g.cos, g.sin, s.layout);
  Eigen::VectorXd out = spec_output(s, x.cast<float>().cast<double>(), y.cast<double>(), false);
  return out;
}

Eigen::MatrixXd spec_matrix_float32(const RopeSpec& s, double m, int n) {
  const int offset = rotary_offset_for(s, n);
  Eigen::MatrixXd r = Eigen::MatrixXd::Identity(n, n);
  for (int j = 0; j < s.rotary_dim; ++j) {
    Eigen::VectorXd e = Eigen::VectorXd::Zero(n);
    e[offset + j] = 1.0;
    r.col(offset + j) = spec_apply_float32(s, e, m);
  }
  return r;
}

}  // namespace rope
