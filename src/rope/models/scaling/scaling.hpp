/// @file
/// Context-extension methods: what a model's RoPE configuration does to its frequencies, computed
/// exactly as Hugging Face transformers computes them (src/transformers/modeling_rope_utils.py, current
/// main), in double precision. docs/scaling.md has the formulas, numbered (S1)…; each function below
/// cites its equation. The names of the methods and the keys each one reads are in scaling_table.hpp.
///
/// Methods and sources:
///   default      θ_i = base^(−2i/d)                                  (S1)  RoFormer arXiv:2104.09864
///   linear       θ_i / f (position interpolation)                    (S2)  Chen et al. arXiv:2306.15595
///   ntk          base' = base·f^(d/(d−2)) (static NTK-aware)         (S3)  YaRN arXiv:2309.00071 §3.1
///   dynamic      base' = base·(f·L/M − (f−1))^(d/(d−2)), L = max(seq_len, M)   (S4)  HF
///   _compute_dynamic_ntk_parameters yarn         NTK-by-parts ramp + attention temperature           (S6)–(S10)  YaRN
///   arXiv:2309.00071; HF _compute_yarn_parameters llama3       Llama 3.1 piecewise bands (S11) HF
///   _compute_llama3_parameters longrope     per-pair factor lists (short / long)                (S12), (S13)  LongRoPE
///   arXiv:2402.13753; HF _compute_longrope_parameters proportional partial rotation with zero frequencies for the tail
///   (S14) HF (v5.6-dev) _compute_proportional_rope_parameters
/// Conventions for f and L0 follow current HF main (docs/scaling.md §2), (S5): f = the explicit
/// factor when given, else M / L0 (longrope, yarn); L0 = original_max_position_embeddings, else M.
/// The attention factor multiplies cos and sin, so logits scale by its square (S15).
/// HF's hard errors (missing required keys, divisions by zero, math domain errors) throw
/// InvalidArgument here; what HF only warns about goes to RopeParameters::warnings.
#pragma once

#include "rope/core/message.hpp"

#include <Eigen/Core>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/types.hpp"
#include "rope/models/scaling/scaling_table.hpp"

namespace rope {

/// YaRN as an engine other than Hugging Face computes it (docs/scaling.md, "YaRN with other constants"). No HF
/// config key names these (TeleChat3's and Grok's configs cannot be cited): the command line's --yarn-variant.
///   Hf              HF's _compute_yarn_parameters                                        (S6)–(S10)
///   Telechat3       vLLM telechat3_scaling_rope.py @ d5a17e0517: the ramp of (S8), attention factor
///                   (0.07·ln f + 1)·attention_factor (1 when f <= 1; attention_factor default 1)
///   GrokYarnLog     vLLM grok1_scaling_rope.py @ e443db5afd, extra_method yarn_log: the blend of (S8) taken
///                   geometrically, θ_j / f^(r_j); get_mscale(f) is computed but not applied: attention factor 1
///   GrokThetaScale  the same file, extra_method theta_scale: base' = base^(ln(L0·f/2π) / ln(L0/2π)), no ramp,
///                   attention factor 1
enum class YarnVariant { Hf, Telechat3, GrokYarnLog, GrokThetaScale };
/// "hf", "telechat3", "grok-yarn-log", "grok-theta-scale".
std::string_view to_string(YarnVariant variant);
/// @throws InvalidArgument for another name.
YarnVariant parse_yarn_variant(std::string_view text);

/// Everything that determines a model's RoPE frequencies. Optional fields are "not given": the
/// functions below apply HF's defaults and say which rule they used.
struct RopeConfig {
  int head_dim = 128;                           ///< per attention head
  double partial_rotary_factor = 1.0;           ///< rotary dim d = int(head_dim · factor)
  double base = kDefaultBase;                   ///< rope_theta
  Layout layout = Layout::Half;                 ///< HF's default (rotate_half); informative only
  std::optional<long> max_position_embeddings;  ///< M

  ScalingType type = ScalingType::Default;
  std::optional<double> factor;                          ///< f
  std::optional<long> original_max_position_embeddings;  ///< L0
  std::optional<double> beta_fast;                       ///< yarn, default 32 (0 also means default)
  std::optional<double> beta_slow;                       ///< yarn, default 1
  std::optional<bool> truncate;                          ///< yarn, default true
  std::optional<double> mscale;                          ///< yarn (DeepSeek)
  std::optional<double> mscale_all_dim;                  ///< yarn (DeepSeek)
  std::optional<double> attention_factor;                ///< yarn, longrope: explicit value
  /// yarn: llama.cpp's ext_factor (the GGUF key rope.scaling.yarn_ext_factor), the weight of (S8)'s extrapolation:
  /// r_j becomes 1 − (1 − r_j)·e; 0 interpolates every pair and leaves the magnitude out (ggml rope_yarn). Default 1.
  std::optional<double> ext_factor;
  std::optional<double> low_freq_factor;   ///< llama3, required
  std::optional<double> high_freq_factor;  ///< llama3, required
  std::vector<double> short_factor;        ///< longrope, d/2 numbers
  std::vector<double> long_factor;         ///< longrope, d/2 numbers
  std::optional<long> seq_len;             ///< current sequence length (dynamic; longrope picks its list by it)
  /// dynamic: seq_len is the length an engine serves (vLLM's max_model_len), taken as it is: L = seq_len, not
  /// max(seq_len, M), so a length below M gives a base below rope_theta (vLLM computes it unguarded).
  bool dynamic_served = false;
  /// dynamic: HunYuan's NTK-α, base·α^(head_dim/(head_dim−2)) while L = max(seq_len, M) is M; past M, HF's dynamic
  /// update recomputes (S4) from base without α.
  std::optional<double> ntk_alpha;
  YarnVariant yarn_variant = YarnVariant::Hf;  ///< yarn: whose constants (only from the command line)

  /// d = int(head_dim · partial_rotary_factor) (HF), checked even and >= 2.
  /// @throws InvalidArgument if head_dim is outside [2, kMaxDim], partial_rotary_factor outside (0, 1],
  ///         or d odd or < 2. Proportional does not use it: it rotates int(factor·head_dim // 2) pairs (S14).
  int rotary_dim() const;
};

/// Which of its bands a pair falls in, for the methods that have bands.
enum class Band {
  None,          ///< method without bands (default, linear, ntk, dynamic, longrope); proportional: a rotated pair
  Kept,          ///< frequency unchanged (yarn ramp r_j = 0, i.e. j <= low; llama3 λ < L0/hf): extrapolation
  Ramped,        ///< blended (yarn 0 < r_j < 1; llama3 L0/hf <= λ <= L0/lf)
  Interpolated,  ///< divided by f (yarn r_j = 1, i.e. j >= high; llama3 λ > L0/lf)
  Unrotated,     ///< proportional: frequency 0
};
std::string_view to_string(Band band);

/// What HF's init function returns, plus the derived facts the tool prints.
struct RopeParameters {
  Eigen::VectorXd inv_freq;              ///< effective (scaled) frequencies, d/2 entries (proportional: head_dim/2)
  double attention_factor = 1.0;         ///< multiplies cos and sin, so logits scale by its square
  Message attention_rule;                ///< how attention_factor was obtained, e.g. "explicit", "0.1·ln f + 1"
  double factor = 1.0;                   ///< the f used (1 for default)
  Message factor_rule;                   ///< e.g. "explicit factor", "max_position_embeddings / original"
  long original_max_position = 0;        ///< the L0 used (0 when the method has none)
  std::optional<double> effective_base;  ///< ntk, dynamic: base'
  std::optional<std::pair<double, double>> yarn_range;  ///< yarn: [low, high] after truncation and clamping
  std::vector<Band> bands;                              ///< per pair (empty for methods without bands)
  std::vector<Message> warnings;  ///< e.g. "max_position_embeddings / original = 1.25 differs from factor 4"
  std::vector<Message>
      notes;  ///< facts that are not problems: which longrope list, dynamic's L, DeepSeek's softmax scale
};

/// The frequencies and attention factor of `config`, as HF computes them.
/// @throws InvalidArgument naming the parameter for a missing or contradictory one (llama3 without
///         original_max_position_embeddings, a factor list whose length is not d/2, factor <= 0, …).
RopeParameters rope_parameters(const RopeConfig& config);

/// YaRN's get_mscale(s, m) = 1 if s <= 1 else 0.1·m·ln s + 1                          (S9)
/// @throws InvalidArgument for a non-finite argument.
double yarn_get_mscale(double scale, double mscale = 1.0);

/// YaRN's correction dimension c(r) = d·ln(L0/(2π r)) / (2 ln base): the pair index whose wavelength
/// makes r turns over L0 (not rounded or clamped).                                       (S6)
/// @throws InvalidArgument unless turns > 0, d is even in [2, kMaxDim], base > 1 and L0 >= 1.
double yarn_correction_dim(double turns, int d, double base, long original_max_position);

/// Position maps applied before the rotation (Su Jianlin, kexue.fm 9708; docs/scaling.md §9): the
/// relative distance the model sees for a true distance t (either sign).
///   ReRoPE:       g(t) = sign(t)·min(|t|, w)                                              (S16)
///   Leaky ReRoPE: g(t) = t for |t| <= w, sign(t)·(w + (|t| − w)/k) beyond                 (S17)
/// The leaky slope is also written (T_max − w)/(T'_max − w), i.e. k = (T'_max − w)/(T_max − w).
/// @throws InvalidArgument unless t and w are finite, w >= 0 and k >= 1 (k = 1 is the identity).
double rerope_distance(double t, double window);
double leaky_rerope_distance(double t, double window, double k);

}  // namespace rope
