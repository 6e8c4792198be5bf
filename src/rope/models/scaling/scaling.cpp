#include "rope/models/scaling/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <utility>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/models/scaling/scaling_detail.hpp"

// Every formula below is numbered in docs/scaling.md (S1)…(S19); Hugging Face's code is
// src/transformers/modeling_rope_utils.py (_compute_*_parameters) and, for what it rejects or only
// warns about, RotaryEmbeddingConfigMixin._validate_*_rope_parameters. HF's hard errors (a missing
// required key, a division by zero, a math domain error) are InvalidArgument here; its warnings are
// RopeParameters::warnings.

namespace rope {
namespace detail {

Message missing_parameter(ScalingType type, std::string_view name) {
  // Llama 3.1's rope_scaling (meta-llama/Llama-3.1-8B config.json): what a llama3 config usually holds.
  struct Typical {
    std::string_view key;
    const char* value;
  };
  static constexpr Typical kLlama31[] = {{"factor", "8"},
                                         {"low_freq_factor", "1"},
                                         {"high_freq_factor", "4"},
                                         {"original_max_position_embeddings", "8192"}};
  const std::string option = option_name(std::string(name) + "=");  // "--low-freq-factor", Python's "low_freq_factor="
  if (type == ScalingType::Llama3) {
    for (const Typical& t : kLlama31) {
      if (t.key == name) {
        return error_msg("{0} needs {1}: give {2} (Llama 3.1: {3})", to_string(type), name, option, t.value);
      }
    }
  }
  return error_msg("{0} needs {1}: give {2}", to_string(type), name, option);
}

void check_finite(double value, std::string_view name) {
  if (!std::isfinite(value)) throw InvalidArgument(error_msg("{0} must be a finite number (got {1})", name, value));
}

void check_positive(double value, std::string_view name) {
  check_finite(value, name);
  if (!(value > 0.0)) throw InvalidArgument(error_msg("{0} must be > 0 (got {1})", name, value));
}

void check_finite(double value, std::string_view method, std::string_view key) {
  if (!std::isfinite(value)) {
    throw InvalidArgument(error_msg("{0} {1} ({2}) must be a finite number (got {3})", method, key,
                                    option_name(std::string(key) + "="), value));
  }
}

void check_positive(double value, std::string_view method, std::string_view key) {
  check_finite(value, method, key);
  if (!(value > 0.0)) {
    throw InvalidArgument(
        error_msg("{0} {1} ({2}) must be > 0 (got {3})", method, key, option_name(std::string(key) + "="), value));
  }
}

/// (S5): L0 = original_max_position_embeddings, else max_position_embeddings.
long original_context(const RopeConfig& c) {
  if (c.original_max_position_embeddings) return *c.original_max_position_embeddings;
  if (c.max_position_embeddings) return *c.max_position_embeddings;
  // The option (or Python's keyword) that gives it, as missing_parameter names one.
  throw InvalidArgument(
      error_msg("{0} needs original_max_position_embeddings (or max_position_embeddings as its fallback): give {1}",
                to_string(c.type), option_name("original_max_position_embeddings=")));
}

/// (S5): f = the explicit factor, else M / L0.
double factor_or_ratio(const RopeConfig& c, long L0, RopeParameters& p) {
  if (c.factor) {
    p.factor_rule = kExplicitFactor;
    return *c.factor;
  }
  if (!c.max_position_embeddings) {
    throw InvalidArgument(error_msg("{0} needs factor, or max_position_embeddings to derive it as M / L0: give {1}",
                                    to_string(c.type), option_name("factor=")));
  }
  const double f = static_cast<double>(*c.max_position_embeddings) / static_cast<double>(L0);
  p.factor_rule =
      c.original_max_position_embeddings
          ? Message::same(fmt::format("max_position_embeddings / original_max_position_embeddings = {} / {}",
                                      *c.max_position_embeddings, L0))
          : Message{msg("max_position_embeddings / max_position_embeddings (no original_max_position_embeddings)")};
  if (!c.original_max_position_embeddings) {
    p.warnings.push_back(
        {msg("{0} without factor and original_max_position_embeddings: f = M / M = 1, no scaling", to_string(c.type))});
  }
  return f;
}

/// f > 0 (an error otherwise), and a warning if f < 1 (a compression, not an extension).
void check_factor(double f, RopeParameters& p) {
  check_positive(f, "factor");
  warn_small_factor(f, p);
}

/// (S3), (S4): base' = base · x^(d/(d−2)). d = 2 divides by zero in HF (ZeroDivisionError).
double ntk_base(double base, double x, int d, ScalingType type) {
  if (d <= 2) {
    throw InvalidArgument(
        error_msg("{0} needs a rotary dimension d > 2 for the exponent d/(d−2) (got d = {1})", to_string(type), d));
  }
  const double b = base * std::pow(x, static_cast<double>(d) / static_cast<double>(d - 2));
  if (!std::isfinite(b)) {
    throw InvalidArgument(
        error_msg("{0}: the effective base base·x^(d/(d−2)) overflows for x = {1} (base {2}, d = {3})", to_string(type),
                  x, base, d));
  }
  return b;
}

}  // namespace detail

using namespace detail;

std::string_view to_string(Band band) {
  switch (band) {
    case Band::None:
      return "none";
    case Band::Kept:
      return "kept";
    case Band::Ramped:
      return "ramped";
    case Band::Interpolated:
      return "interpolated";
    case Band::Unrotated:
      return "unrotated";
  }
  return "unknown";
}

int RopeConfig::rotary_dim() const {
  if (head_dim < 2 || head_dim > kMaxDim) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", "head_dim", 2, kMaxDim, head_dim));
  }
  if (!std::isfinite(partial_rotary_factor) || !(partial_rotary_factor > 0.0) || partial_rotary_factor > 1.0) {
    throw InvalidArgument(error_msg("partial_rotary_factor must be in (0, 1] (got {0})", partial_rotary_factor));
  }
  // HF: int(head_dim * partial_rotary_factor), a float64 product truncated toward zero.
  const int d = static_cast<int>(static_cast<double>(head_dim) * partial_rotary_factor);
  if (d < 2 || d % 2 != 0) {
    throw InvalidArgument(error_msg(
        "rotary dimension d = int(head_dim · partial_rotary_factor) = int({0} · {1}) = {2} must be even and >= 2",
        head_dim, partial_rotary_factor, d));
  }
  return d;
}

RopeParameters rope_parameters(const RopeConfig& config) {
  const RopeConfig& c = config;
  check_base(c.base);
  if (c.max_position_embeddings && *c.max_position_embeddings < 1) {
    throw InvalidArgument(error_msg("max_position_embeddings must be >= {0} (got {1})", 1, *c.max_position_embeddings));
  }
  if (c.original_max_position_embeddings && *c.original_max_position_embeddings < 1) {
    throw InvalidArgument(error_msg("{0} ({1}) must be >= {2} (got {3})", "original_max_position_embeddings",
                                    option_name("original_max_position_embeddings="), 1,
                                    *c.original_max_position_embeddings));
  }
  if (c.seq_len && *c.seq_len < 1) throw InvalidArgument(error_msg("seq_len must be >= {0} (got {1})", 1, *c.seq_len));
  if (c.factor) check_finite(*c.factor, "factor");

  RopeParameters p;
  Common k{c.type, 0, c.base};
  const std::string_view name = to_string(c.type);
  if (c.type != ScalingType::Proportional) k.d = c.rotary_dim();
  const Message no_attention{msg("{0} does not scale attention", name)};

  switch (c.type) {
    case ScalingType::Default: {  // (S1)
      warn_unused(c, p);
      p.inv_freq = frequencies(k.d, k.base);
      p.factor_rule = {msg("none (default RoPE)")};
      p.attention_rule = no_attention;
      break;
    }
    case ScalingType::Linear: {  // (S2)
      warn_unused(c, p);
      const double f = require(c.factor, c.type, "factor");
      check_factor(f, p);
      p.inv_freq = frequencies(k.d, k.base) / f;
      p.factor = f;
      p.factor_rule = kExplicitFactor;
      p.attention_rule = no_attention;
      break;
    }
    case ScalingType::Ntk: {  // (S3)
      warn_unused(c, p);
      const double f = require(c.factor, c.type, "factor");
      check_factor(f, p);
      const double b = ntk_base(k.base, f, k.d, c.type);
      p.inv_freq = frequencies(k.d, b);
      p.factor = f;
      p.factor_rule = kExplicitFactor;
      p.effective_base = b;
      p.attention_rule = no_attention;
      break;
    }
    case ScalingType::Dynamic: {  // (S4)
      warn_unused(c, p);
      const double f = require(c.factor, c.type, "factor");
      const long M = require(c.max_position_embeddings, c.type, "max_position_embeddings");
      check_factor(f, p);
      const bool served = c.dynamic_served && c.seq_len;
      const long L = served ? *c.seq_len : c.seq_len ? std::max(*c.seq_len, M) : M;
      if (c.ntk_alpha && L == M && !served) {
        // HunYuan's rotary class (modeling_hunyuan_v1_dense.py): base·α^(head_dim/(head_dim−2)) until the dynamic
        // update first recomputes (a sequence longer than M).
        const double b = ntk_base(k.base, *c.ntk_alpha, c.head_dim, c.type);
        p.inv_freq = frequencies(k.d, b);
        p.factor = f;
        p.factor_rule = kExplicitFactor;
        p.effective_base = b;
        p.attention_rule = no_attention;
        p.notes.push_back(
            msg("NTK-α: base·α^(d/(d−2)) = {0}·{1}^({2}/{3}) while L = max(seq_len, M) = M = {4}; past M, HF's "
                "dynamic update recomputes base·(f·L/M − (f−1))^(d/(d−2)) without α",
                k.base, *c.ntk_alpha, c.head_dim, c.head_dim - 2, M));
        break;
      }
      const double x = f * static_cast<double>(L) / static_cast<double>(M) - (f - 1.0);
      if (!(x > 0)) {
        // f·L/M − (f − 1) <= 0: the power of a number <= 0 is no real base (vLLM's cache then holds NaN or 1e38).
        throw InvalidArgument(
            error_msg("dynamic NTK at length L = {0}: f·L/M − (f − 1) = {1} is not > 0 (f {2}, M {3}), so the base is "
                      "not a real number",
                      L, x, f, M));
      }
      const double b = ntk_base(k.base, x, k.d, c.type);
      p.inv_freq = frequencies(k.d, b);
      p.factor = f;
      p.factor_rule = kExplicitFactor;
      p.effective_base = b;
      p.attention_rule = no_attention;
      if (served) {
        p.notes.push_back(msg("L = {0}, the length the engine serves, taken as it is (no max with M = {1})", L, M));
      } else {
        p.notes.push_back(c.seq_len
                              ? Message::same(fmt::format("L = max(seq_len, M) = max({}, {}) = {}", *c.seq_len, M, L))
                              : Message{msg("no seq_len: L = M = {0}, the default frequencies", M)});
      }
      break;
    }
    case ScalingType::Yarn:
      yarn(c, k, p);
      warn_factor_disagreement(c, p);
      break;
    case ScalingType::Llama3:
      llama3(c, k, p);
      break;
    case ScalingType::LongRope:
      longrope(c, k, p);
      warn_factor_disagreement(c, p);
      break;
    case ScalingType::Proportional: {  // (S14)
      warn_unused(c, p);
      const int h = c.head_dim;
      if (h < 2 || h > kMaxDim || h % 2 != 0) {
        throw InvalidArgument(error_msg("proportional needs an even head_dim between 2 and {0} (got {1})", kMaxDim, h));
      }
      const double prf = c.partial_rotary_factor;
      if (!std::isfinite(prf) || !(prf > 0.0) || prf > 1.0) {
        throw InvalidArgument(error_msg("partial_rotary_factor must be in (0, 1] (got {0})", prf));
      }
      // HF: int(partial_rotary_factor * head_dim // 2); the product is a float64, halving it is exact.
      const int n = static_cast<int>(std::floor(prf * static_cast<double>(h) / 2.0));
      if (n < 1) {
        throw InvalidArgument(error_msg(
            "proportional rotates int(partial_rotary_factor · head_dim // 2) = int({0} · {1} // 2) = 0 pairs: need at least 1",
            prf, h));
      }
      double f = 1.0;
      p.factor_rule = {msg("default 1")};
      if (c.factor) {
        f = *c.factor;
        check_factor(f, p);
        p.factor_rule = kExplicitFactor;
      }
      k.d = 2 * n;
      p.factor = f;
      p.inv_freq = Eigen::VectorXd::Zero(h / 2);
      p.bands.assign(static_cast<std::size_t>(h / 2), Band::Unrotated);
      for (int j = 0; j < n; ++j) {
        p.inv_freq[j] = std::pow(k.base, frequency_exponent(h, j)) / f;  // exponent over the full head_dim
        p.bands[static_cast<std::size_t>(j)] = Band::None;
      }
      p.attention_rule = no_attention;
      break;
    }
  }

  for (Eigen::Index j = 0; j < p.inv_freq.size(); ++j) {
    if (!std::isfinite(p.inv_freq[j])) {
      throw InvalidArgument(error_msg("{0} gives a non-finite frequency for pair {1} ({2}): check its parameters", name,
                                      j, p.inv_freq[j]));
    }
  }
  if (!std::isfinite(p.attention_factor)) {
    throw InvalidArgument(error_msg("{0} gives a non-finite attention factor ({1})", name, p.attention_factor));
  }
  return p;
}

namespace {
void check_window(double t, double window) {
  check_position(t, "distance t");
  check_finite(window, "window w");
  if (window < 0.0) throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", "window w", 0, window));
}
}  // namespace

double rerope_distance(double t, double window) {
  check_window(t, window);
  return std::copysign(std::min(std::abs(t), window), t);  // (S16)
}

double leaky_rerope_distance(double t, double window, double k) {
  check_window(t, window);
  check_finite(k, "Leaky ReRoPE slope divisor k");
  if (!(k >= 1.0))
    throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", "Leaky ReRoPE slope divisor k", 1, k));
  const double a = std::abs(t);
  if (a <= window) return t;  // (S17)
  return std::copysign(window + (a - window) / k, t);
}

}  // namespace rope
