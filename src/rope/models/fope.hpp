/// @file
/// FoPE, the Fourier Position Embedding of Intern-S1-Pro (docs/multi-axis.md, "FoPE"): RoPE whose cos and sin tables
/// are, per key-value head, linear combinations of the kept frequencies' cos and sin with learned coefficients,
/// so that each pair turns by an angle of its own and is scaled (a scaled rotation, not a rotation).
///
/// Read from the engines' code (never from src/): vLLM vllm/model_executor/layers/rotary_embedding/fope.py @
/// 151a2c744af6 (FourierRotaryEmbedding), Intern-S1-Pro's own modeling_interns1_pro.py (Hub remote code,
/// InternS1ProMoeTextFourierEmbedding), SGLang python/sglang/srt/layers/rotary_embedding/rope_variant.py @
/// 0b1fd02d56f0 (FourierRotaryEmbedding):
///
///   θ_i = base^(−2i/r) in float32, kept for i < num_inv_freq, or else where θ_i > 2π / max_position_embeddings:
///   K kept pairs                                                                                           (F1)
///   cos′[t, h, j] = Σ_D cos(t·θ_D)·C_cos[h, D, j],  sin′[t, h, j] = Σ_D sin(t·θ_D)·C_sin[h, D, j],  j < K   (F2)
///   pairs j = K … d/2 − 1 padded: cos′ = 1, sin′ = 0 (vLLM @151a2c744a: they pass through); sin′ = 1 in vLLM
///   @ c215d1e62d, SGLang and the model's remote code, which makes each such pair √2·R(π/4)                 (F3)
///   y = x·cat(cos′, cos′) + rotate_half(x)·cat(sin′, sin′): pair j (j, j + d/2) becomes
///   (x_a·cos′_j − x_b·sin′_j, x_b·cos′_j + x_a·sin′_j), query head q on key-value head q / (heads / n_kv)  (F4)
///
/// C_cos and C_sin are checkpoint weights of shape [n_kv, K, K] with fope_sep_head, one matrix otherwise.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "rope/core/message.hpp"

namespace rope {

/// Largest K (kept pairs) rope accepts: a head of 65536 channels has 32768 pairs; every real model has d ≤ 512.
inline constexpr int kMaxFopePairs = 32768;

/// FoPE as a config says it (rope_scaling or rope_parameters: fope_init_factor, fope_sep_head, num_inv_freq; on when
/// any of the three is given, as the model's remote code decides, or with vLLM's use_fope true).
struct FopeConfig {
  std::optional<long> num_inv_freq;   ///< K given; nullopt: the θ_i > 2π / max_position_embeddings rule
  bool sep_head = false;              ///< one coefficient matrix per key-value head (fope_sep_head)
  std::optional<double> init_factor;  ///< fope_init_factor (the initialisation's gain; not used at inference)
  long kv_heads = 0;                  ///< num_key_value_heads (0: not given, num_attention_heads)
  long max_position = 0;              ///< max_position_embeddings of the rule (F1)
};

/// What a command computes of a model with FoPE, as the command states it (RopeOverrides::fope; docs/multi-axis.md §7,
/// "In the commands"). The one resolution (resolve.hpp) refuses a FoPE model for a command that computes rotations
/// by m·θ_i or scores of rotated vectors, whose numbers would not be the model's.
enum class FopeUse {
  Refused,  ///< rotations by m·θ_i (apply, matrix, verify, …): a FoPE model is refused, naming what computes it
  Theta,  ///< the θ list or the layout (frequencies, wavelengths, inspect, weights): the kept θ, padded pairs marked
  Computed,  ///< FoPE itself with the checkpoint's coefficients (check, diff; without them they refuse)
};

/// The checkpoint's coefficients of (F2): `heads` matrices of K × K (the key-value heads with fope_sep_head, else
/// one), row D the kept frequency, column j the pair; read by analysis/check/fope_coefficients.hpp.
struct FopeCoefficients {
  int kept = 0;
  long heads = 1;
  std::vector<double> cos, sin;    ///< [heads][K][K]
  std::string file;                ///< the checkpoint as given
  std::string cos_name, sin_name;  ///< the tensors' names in it
  double cos_at(long h, int D, int j) const { return cos[index(h, D, j)]; }
  double sin_at(long h, int D, int j) const { return sin[index(h, D, j)]; }

 private:
  std::size_t index(long h, int D, int j) const { return static_cast<std::size_t>((h * kept + D) * kept + j); }
};

/// K of (F1) for a rotary dimension r and base, computed as the engines compute it: θ in float32 and compared in
/// float32 with 2π / max_position_embeddings. @throws InvalidArgument when num_inv_freq exceeds r/2.
int fope_kept_pairs(const FopeConfig& fope, int rotary_dim, double base);

/// The refusal of a command that computes rotations by m·θ_i (FopeUse::Refused) for the model `model` with FoPE: its
/// pairs mix the kept frequencies by the checkpoint's coefficients; what computes it is named by option_name.
Message fope_refusal(const std::string& model);

/// The note `rope inspect` gives: K kept pairs and why, the padded pairs, the per-head coefficients the checkpoint
/// must supply and their shape.
Message fope_note(const FopeConfig& fope, int head_dim, int rotary_dim, double base);

}  // namespace rope
