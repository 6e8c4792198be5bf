#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <utility>

#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "rope/models/scaling/scaling_detail.hpp"

// YaRN (Peng et al., arXiv:2309.00071) as HF's _compute_yarn_parameters computes it: docs/scaling.md §3,
// (S6)–(S10).

namespace rope {
namespace detail {

/// (S10) for a given f (used twice when M/L0 and factor disagree).
YarnAttention yarn_attention(const RopeConfig& c, double f) {
  if (c.attention_factor) return {*c.attention_factor, kExplicitAttention};
  // Python truthiness: absent and 0 both mean "not given".
  const bool both = c.mscale.value_or(0.0) != 0.0 && c.mscale_all_dim.value_or(0.0) != 0.0;
  if (both) {
    const double den = yarn_get_mscale(f, *c.mscale_all_dim);
    if (den == 0.0) {
      throw InvalidArgument(
          error_msg("yarn mscale_all_dim ({0}) {1} makes get_mscale(f, mscale_all_dim) = 0 (division by zero)",
                    option_name("mscale_all_dim="), *c.mscale_all_dim));
    }
    return {yarn_get_mscale(f, *c.mscale) / den,
            Message::same(fmt::format(
                "get_mscale(f, mscale) / get_mscale(f, mscale_all_dim) = get_mscale({}, {}) / get_mscale({}, {})", f,
                *c.mscale, f, *c.mscale_all_dim))};
  }
  return {yarn_get_mscale(f), Message::same(f <= 1.0 ? "get_mscale(f) = 1 (f <= 1)" : "get_mscale(f) = 0.1·ln f + 1")};
}

void yarn(const RopeConfig& c, const Common& k, RopeParameters& p) {
  warn_unused(c, p);
  const long L0 = original_context(c);
  const double f = factor_or_ratio(c, L0, p);
  check_factor(f, p);
  p.factor = f;
  p.original_max_position = L0;

  // HF: `beta_fast or 32`, `beta_slow or 1` (0 means "not given"). A negative β is a math domain
  // error in HF's math.log.
  const double beta_fast = c.beta_fast.value_or(0.0) != 0.0 ? *c.beta_fast : 32.0;
  const double beta_slow = c.beta_slow.value_or(0.0) != 0.0 ? *c.beta_slow : 1.0;
  check_positive(beta_fast, "yarn", "beta_fast");
  check_positive(beta_slow, "yarn", "beta_slow");
  if (beta_fast < beta_slow) {
    p.warnings.push_back(
        {msg("yarn beta_fast {0} < beta_slow {1}: the ramp runs backwards (HF warns: beta_fast must be "
             "greater than beta_slow); not harmless: HF computes with it",
             beta_fast, beta_slow)});
  }

  // (S6), (S7)
  const bool truncate = c.truncate.value_or(true);
  double low = yarn_correction_dim(beta_fast, k.d, k.base, L0);
  double high = yarn_correction_dim(beta_slow, k.d, k.base, L0);
  if (truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, static_cast<double>(k.d - 1));  // HF clamps to d − 1, not d/2 − 1
  p.yarn_range = std::pair{low, high};
  const double span = (low == high ? high + 0.001 : high) - low;  // HF's guard against 0/0

  const YarnVariant variant = c.yarn_variant;
  if (variant != YarnVariant::Hf) {
    const std::string name(to_string(variant));
    const std::string option = option_name("yarn_variant");
    p.notes.push_back(
        variant == YarnVariant::Telechat3
            ? msg("yarn variant {0} ({1}): TeleChat3's attention factor 0.07·ln f + 1 (vLLM)", name, option)
        : variant == YarnVariant::GrokYarnLog
            ? msg("yarn variant {0} ({1}): Grok's geometric blend θ_j / f^r_j, attention factor 1 (vLLM)", name, option)
            : msg("yarn variant {0} ({1}): Grok's theta_scale base' = base^(ln(L0·f/2π) / ln(L0/2π)), attention "
                  "factor 1 (vLLM)",
                  name, option));
  }
  if (variant == YarnVariant::GrokThetaScale) {
    // vLLM grok1_scaling_rope.py @ e443db5afd, extra_method theta_scale: one new base, no ramp and no bands.
    const double L = static_cast<double>(L0);
    if (L <= kTwoPi) {
      throw InvalidArgument(
          error_msg("yarn variant grok-theta-scale needs original_max_position_embeddings ({0}) > 2π (got {1}): "
                    "ln(L0/2π) is a divisor",
                    option_name("original_max_position_embeddings="), L0));
    }
    const double b = std::pow(k.base, std::log(L * f / kTwoPi) / std::log(L / kTwoPi));
    if (!std::isfinite(b)) {  // named by the inputs that made it, as ntk_base names its own
      throw InvalidArgument(
          error_msg("yarn variant grok-theta-scale: the effective base base^(ln(L0·f/2π)/ln(L0/2π)) overflows "
                    "(base {0}, factor f = {1}, original_max_position_embeddings L0 = {2})",
                    k.base, f, L0));
    }
    if (!(b > 1)) {  // f < 1 turns the exponent negative: a base ≤ 1, named by what made it
      throw InvalidArgument(
          error_msg("yarn variant grok-theta-scale: the effective base base^(ln(L0·f/2π)/ln(L0/2π)) = {0} must be "
                    "> 1 (base {1}, factor f = {2}, original_max_position_embeddings L0 = {3}): f·L0 must exceed 2π",
                    b, k.base, f, L0));
    }
    p.effective_base = b;
    p.yarn_range.reset();
    p.inv_freq = frequencies(k.d, b);
    p.attention_factor = 1.0;
    p.attention_rule = msg("1: Grok computes get_mscale(f) and does not apply it (vLLM)");
    return;
  }

  // (S8): r_j = 0 keeps θ_j (extrapolation), r_j = 1 divides it by f (interpolation).
  // HF names 1 − r_j inv_freq_extrapolation_factor. Grok's yarn_log blends the logarithms instead:
  // exp((1 − r_j)·ln θ_j + r_j·ln(θ_j / f)) = θ_j / f^r_j (vLLM grok1_scaling_rope.py @ e443db5afd).
  const Eigen::VectorXd theta = frequencies(k.d, k.base);
  p.inv_freq.resize(theta.size());
  p.bands.resize(static_cast<std::size_t>(theta.size()));
  // llama.cpp's ext_factor e weighs the extrapolation, ramp_mix = (1 − r_j)·e (ggml rope_yarn).
  const double ext = c.ext_factor.value_or(1.0);
  for (Eigen::Index j = 0; j < theta.size(); ++j) {
    const double r = 1.0 - (1.0 - std::clamp((static_cast<double>(j) - low) / span, 0.0, 1.0)) * ext;
    p.inv_freq[j] =
        variant == YarnVariant::GrokYarnLog ? theta[j] / std::pow(f, r) : (theta[j] / f) * r + theta[j] * (1.0 - r);
    p.bands[static_cast<std::size_t>(j)] = r == 0.0 ? Band::Kept : r == 1.0 ? Band::Interpolated : Band::Ramped;
  }
  if (variant == YarnVariant::GrokYarnLog) {
    p.attention_factor = 1.0;
    p.attention_rule = msg("1: Grok computes get_mscale(f) and does not apply it (vLLM)");
    return;
  }

  // (S9), (S10)
  if (c.attention_factor) {
    check_finite(*c.attention_factor, "yarn", "attention_factor");
    if (*c.attention_factor < 0.0) {
      p.warnings.push_back(
          {msg("attention_factor {0} < 0 (HF warns: must be a float greater than 0); harmless for the "
               "scores (q and k both change sign, q·k carries a² > 0), not for the rotated vectors",
               *c.attention_factor)});
    }
  }
  if (c.mscale) check_finite(*c.mscale, "yarn", "mscale");
  if (c.mscale_all_dim) check_finite(*c.mscale_all_dim, "yarn", "mscale_all_dim");
  if (!c.attention_factor && (c.mscale.value_or(0.0) != 0.0) != (c.mscale_all_dim.value_or(0.0) != 0.0)) {
    p.warnings.push_back({msg(
        "yarn uses mscale only together with mscale_all_dim (both non-zero): with one of them the attention factor is get_mscale(f)")});
  }
  if (variant == YarnVariant::Telechat3) {
    // vLLM telechat3_scaling_rope.py @ d5a17e0517: get_mscale with 0.07 in place of 0.1, times attn_factor
    // (the explicit attention_factor; mscale and mscale_all_dim are not read).
    const double m = f <= 1.0 ? 1.0 : 0.07 * std::log(f) + 1.0;
    p.attention_factor = m * c.attention_factor.value_or(1.0);
    p.attention_rule =
        c.attention_factor
            ? Message::same(fmt::format("(0.07·ln f + 1)·attention_factor = {}·{}", m, *c.attention_factor))
            : msg("0.07·ln f + 1 (TeleChat3)");
    return;
  }
  if (ext == 0.0 && !c.attention_factor) {  // ggml rope_yarn multiplies the magnitude in only when ext_factor ≠ 0
    p.attention_factor = 1.0;
    p.attention_rule = msg("1: llama.cpp's ext_factor 0 leaves YaRN's magnitude out (ggml rope_yarn)");
    return;
  }
  YarnAttention a = yarn_attention(c, f);
  p.attention_factor = a.value;
  p.attention_rule = std::move(a.rule);
  // The softmax scale × get_mscale(f, mscale_all_dim)² of DeepSeek-V3's attention is the family's, not RoPE's:
  // the family table's softmax_scale (ModelConfig::softmax_scale).
}

}  // namespace detail

using namespace detail;

std::string_view to_string(YarnVariant variant) {
  switch (variant) {
    case YarnVariant::Hf:
      return "hf";
    case YarnVariant::Telechat3:
      return "telechat3";
    case YarnVariant::GrokYarnLog:
      return "grok-yarn-log";
    case YarnVariant::GrokThetaScale:
      return "grok-theta-scale";
  }
  return "hf";
}

YarnVariant parse_yarn_variant(std::string_view text) {
  for (YarnVariant v :
       {YarnVariant::Hf, YarnVariant::Telechat3, YarnVariant::GrokYarnLog, YarnVariant::GrokThetaScale}) {
    if (text == to_string(v)) return v;
  }
  throw InvalidArgument(
      error_msg("unknown yarn variant '{0}': expected hf, telechat3, grok-yarn-log or grok-theta-scale", text));
}

double yarn_get_mscale(double scale, double mscale) {
  check_finite(scale, "get_mscale scale");
  check_finite(mscale, "get_mscale mscale");
  if (scale <= 1.0) return 1.0;  // (S9)
  return 0.1 * mscale * std::log(scale) + 1.0;
}

double yarn_correction_dim(double turns, int d, double base, long original_max_position) {
  check_positive(turns, "yarn number of turns");
  check_dimension(d, kMaxDim, "rotary dimension d");
  check_base(base);
  if (original_max_position < 1) {
    throw InvalidArgument(error_msg("{0} ({1}) must be >= {2} (got {3})", "original_max_position_embeddings",
                                    option_name("original_max_position_embeddings="), 1, original_max_position));
  }
  // (S6)
  return static_cast<double>(d) * std::log(static_cast<double>(original_max_position) / (turns * kTwoPi)) /
         (2.0 * std::log(base));
}

}  // namespace rope
