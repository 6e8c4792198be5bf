/// @file
/// How an implementation computes the angle m·θ_i of a rotated pair, and the error that leaves in it: the
/// angle term of rope check's tolerance (C1) (check.hpp, docs/check.md "Error models"). The reference is
/// float64; the model bounds the dump's angle error per pair i as
///
///     |Δφ_i| <= ε_A · (1 + c_i · |m|·θ_i)                                                  (C2)
///
/// (the 1: cos and sin of the rounded angle, each within an ulp), with ε_A and c_i of the implementation:
///
///   float64  ε_A = ε_f64, c_i = 1: the angle in double, one rounding of the product.
///   float32  ε_A = ε_f32, c_i = 1.5 + |ln θ_i|/2: Hugging Face (PyTorch) computes inv_freq, the angles and
///            cos/sin in float32 even for a float64 model (transformers modeling_rope_utils.py
///            _compute_default_rope_parameters, modeling_llama.py LlamaRotaryEmbedding.forward): the exponent
///            2i/d rounded (relative u, which base^(−x) turns into u·|ln θ_i|), the power, the reciprocal and
///            the product m·inv_freq each one rounding u (u = ε/2): (3 + |ln θ_i|)·u.
///   ggml     ε_A = ε_f32, c_i = 2 + i·(1.5 + ln(base)/r): ggml builds θ_i·m by i float32 products
///            theta *= theta_scale from theta = m (ggml-org/llama.cpp ggml/src/ggml-cpu/ops.cpp:5975-5989,
///            ggml_rope_cache_init; every M-RoPE slot the same, ggml_mrope_cache_init :6054-6057) with
///            theta_scale = powf(freq_base, −2.0f/n_dims) (:6143): the ratio carries its exponent's rounding
///            (u·2·ln(base)/r) and powf's (within an ulp, 2u), each product one more u, so after i products
///            i·(3u + 2u·ln(base)/r); the 2: the division by a freq factor and YaRN's mix (:5958-5973), 4u.
///            (ggml-org/llama.cpp at the node-llama-cpp 3.22.1 bundle, commit de3ff815ea7d.)
///
/// The error of the ladder grows with i, which (C1) with c_i = 1 did not allow: a correct llama.cpp dump
/// failed from about position 4000 (base 1e4). Each bound counts every rounding at its worst; κ
/// (kToleranceSafety) stays on top, as for the other terms of (C1).
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <string_view>

#include "rope/core/dtype.hpp"

namespace rope {

/// How the angles were computed: by which implementation (the error model of (C2)).
enum class AngleModel { Float64, Float32, Ggml };

/// "float64", "float32", "ggml".
std::string_view to_string(AngleModel model);
/// The model of a name of to_string. @throws InvalidArgument naming the three for another name.
AngleModel parse_angle_model(std::string_view name);

/// The model when nothing names it: float64 for a float64 dump, else float32 (PyTorch's).
AngleModel default_angle_model(DType dump);

/// ε_A of (C2): ε_f64 for float64, ε_f32 otherwise.
double angle_epsilon(AngleModel model);

/// c_i of (C2) for every pair: `theta` the pairs' frequencies (as the reference has them), `base` and
/// `rotary_dim` those ggml's ratio is computed from (ggml only).
Eigen::VectorXd angle_error_factors(AngleModel model, const Eigen::VectorXd& theta, double base, int rotary_dim);

/// c_i as text for a report: "1", "1.5 + |ln θ_i|/2", "2 + i·(1.5 + ln(base)/r) = 2 + 1.64·i".
std::string angle_error_formula(AngleModel model, double base, int rotary_dim);

}  // namespace rope
