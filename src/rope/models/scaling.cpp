#include "rope/models/scaling.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <utility>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"

// Every formula below is numbered in docs/scaling.md (S1)…(S18); Hugging Face's code is
// src/transformers/modeling_rope_utils.py (_compute_*_parameters) and, for what it rejects or only
// warns about, RotaryEmbeddingConfigMixin._validate_*_rope_parameters. HF's hard errors (a missing
// required key, a division by zero, a math domain error) are InvalidArgument here; its warnings are
// RopeParameters::warnings.

namespace rope {
namespace {

constexpr std::array<std::pair<std::string_view, ScalingType>, 8> kTypeNames{{
    {"default", ScalingType::Default},
    {"linear", ScalingType::Linear},
    {"ntk", ScalingType::Ntk},
    {"dynamic", ScalingType::Dynamic},
    {"yarn", ScalingType::Yarn},
    {"llama3", ScalingType::Llama3},
    {"longrope", ScalingType::LongRope},
    {"proportional", ScalingType::Proportional},
}};

void check_finite(double value, std::string_view name) {
  if (!std::isfinite(value)) throw InvalidArgument(fmt::format("{} must be a finite number (got {})", name, value));
}

void check_positive(double value, std::string_view name) {
  check_finite(value, name);
  if (!(value > 0.0)) throw InvalidArgument(fmt::format("{} must be > 0 (got {})", name, value));
}

template <typename T>
T require(const std::optional<T>& value, ScalingType type, std::string_view name) {
  if (!value) throw InvalidArgument(fmt::format("{} needs {}", to_string(type), name));
  return *value;
}

/// The pieces of a config every method shares, checked once.
struct Common {
  ScalingType type;
  int d = 0;  ///< rotary dimension (proportional: 2 × rotated pairs)
  double base = 0.0;
};

/// (S5): L0 = original_max_position_embeddings, else max_position_embeddings.
long original_context(const RopeConfig& c) {
  if (c.original_max_position_embeddings) return *c.original_max_position_embeddings;
  if (c.max_position_embeddings) return *c.max_position_embeddings;
  throw InvalidArgument(fmt::format("{} needs original_max_position_embeddings (or max_position_embeddings as its fallback)",
                                    to_string(c.type)));
}

const Message kExplicitFactor{"explicit factor", "显式给出的 factor"};

/// (S5): f = the explicit factor, else M / L0.
double factor_or_ratio(const RopeConfig& c, long L0, RopeParameters& p) {
  if (c.factor) {
    p.factor_rule = kExplicitFactor;
    return *c.factor;
  }
  if (!c.max_position_embeddings) {
    throw InvalidArgument(fmt::format("{} needs factor, or max_position_embeddings to derive it as M / L0", to_string(c.type)));
  }
  const double f = static_cast<double>(*c.max_position_embeddings) / static_cast<double>(L0);
  p.factor_rule = c.original_max_position_embeddings
                      ? Message::same(fmt::format("max_position_embeddings / original_max_position_embeddings = {} / {}",
                                                  *c.max_position_embeddings, L0))
                      : Message{"max_position_embeddings / max_position_embeddings (no original_max_position_embeddings)",
                                "max_position_embeddings / max_position_embeddings(未给出 original_max_position_embeddings)"};
  if (!c.original_max_position_embeddings) {
    p.warnings.push_back({fmt::format("{} without factor and original_max_position_embeddings: f = M / M = 1, no scaling",
                                      to_string(c.type)),
                          fmt::format("{} 既无 factor 也无 original_max_position_embeddings:f = M / M = 1,不做缩放",
                                      to_string(c.type))});
  }
  return f;
}

/// HF warns about keys a type does not use ("Unrecognized keys in `rope_parameters`").
void warn_unused(const RopeConfig& c, RopeParameters& p, std::initializer_list<std::string_view> used) {
  auto is_used = [&](std::string_view key) {
    for (auto u : used) {
      if (u == key) return true;
    }
    return false;
  };
  std::string unused;
  auto note = [&](bool given, std::string_view key) {
    if (given && !is_used(key)) unused += fmt::format("{}{}", unused.empty() ? "" : ", ", key);
  };
  note(c.factor.has_value(), "factor");
  note(c.original_max_position_embeddings.has_value(), "original_max_position_embeddings");
  note(c.beta_fast.has_value(), "beta_fast");
  note(c.beta_slow.has_value(), "beta_slow");
  note(c.truncate.has_value(), "truncate");
  note(c.mscale.has_value(), "mscale");
  note(c.mscale_all_dim.has_value(), "mscale_all_dim");
  note(c.attention_factor.has_value(), "attention_factor");
  note(c.low_freq_factor.has_value(), "low_freq_factor");
  note(c.high_freq_factor.has_value(), "high_freq_factor");
  note(!c.short_factor.empty(), "short_factor");
  note(!c.long_factor.empty(), "long_factor");
  if (!unused.empty()) {
    p.warnings.push_back({fmt::format("rope_type {} does not use: {} (ignored)", to_string(c.type), unused),
                          fmt::format("rope_type {} 不使用:{}(已忽略)", to_string(c.type), unused)});
  }
}

/// HF validators warn (and still compute) when factor < 1.
void warn_small_factor(double f, RopeParameters& p) {
  if (f < 1.0) {
    p.warnings.push_back(
        {fmt::format("factor {} < 1 compresses the context instead of extending it (HF warns: factor must be >= 1)", f),
         fmt::format("factor {} < 1 是压缩上下文而不是扩展(HF 警告:factor 必须 >= 1)", f)});
  }
}

/// f > 0 (an error otherwise), and a warning if f < 1 (a compression, not an extension).
void check_factor(double f, RopeParameters& p) {
  check_positive(f, "factor");
  warn_small_factor(f, p);
}

/// (S3), (S4): base' = base · x^(d/(d−2)). d = 2 divides by zero in HF (ZeroDivisionError).
double ntk_base(double base, double x, int d, ScalingType type) {
  if (d <= 2) {
    throw InvalidArgument(fmt::format("{} needs a rotary dimension d > 2 for the exponent d/(d−2) (got d = {})", to_string(type), d));
  }
  const double b = base * std::pow(x, static_cast<double>(d) / static_cast<double>(d - 2));
  if (!std::isfinite(b)) {
    throw InvalidArgument(fmt::format("{}: the effective base base·x^(d/(d−2)) overflows for x = {} (base {}, d = {})",
                                      to_string(type), x, base, d));
  }
  return b;
}


// --- yarn -------------------------------------------------------------------------------------------

struct YarnAttention {
  double value;
  Message rule;
};

const Message kExplicitAttention{"explicit attention_factor", "显式给出的 attention_factor"};

/// (S10) for a given f (used twice when M/L0 and factor disagree).
YarnAttention yarn_attention(const RopeConfig& c, double f) {
  if (c.attention_factor) return {*c.attention_factor, kExplicitAttention};
  // Python truthiness: absent and 0 both mean "not given".
  const bool both = c.mscale.value_or(0.0) != 0.0 && c.mscale_all_dim.value_or(0.0) != 0.0;
  if (both) {
    const double den = yarn_get_mscale(f, *c.mscale_all_dim);
    if (den == 0.0) {
      throw InvalidArgument(fmt::format("yarn mscale_all_dim {} makes get_mscale(f, mscale_all_dim) = 0 (division by zero)",
                                        *c.mscale_all_dim));
    }
    return {yarn_get_mscale(f, *c.mscale) / den,
            Message::same(fmt::format("get_mscale(f, mscale) / get_mscale(f, mscale_all_dim) = get_mscale({}, {}) / get_mscale({}, {})", f,
                        *c.mscale, f, *c.mscale_all_dim))};
  }
  return {yarn_get_mscale(f), Message::same(f <= 1.0 ? "get_mscale(f) = 1 (f <= 1)" : "get_mscale(f) = 0.1·ln f + 1")};
}

void yarn(const RopeConfig& c, const Common& k, RopeParameters& p) {
  warn_unused(c, p, {"factor", "original_max_position_embeddings", "beta_fast", "beta_slow", "truncate", "mscale",
                     "mscale_all_dim", "attention_factor"});
  const long L0 = original_context(c);
  const double f = factor_or_ratio(c, L0, p);
  check_factor(f, p);
  p.factor = f;
  p.original_max_position = L0;

  // HF: `beta_fast or 32`, `beta_slow or 1` (0 means "not given"). A negative β is a math domain
  // error in HF's math.log.
  const double beta_fast = c.beta_fast.value_or(0.0) != 0.0 ? *c.beta_fast : 32.0;
  const double beta_slow = c.beta_slow.value_or(0.0) != 0.0 ? *c.beta_slow : 1.0;
  check_positive(beta_fast, "yarn beta_fast");
  check_positive(beta_slow, "yarn beta_slow");
  if (beta_fast < beta_slow) {
    p.warnings.push_back({fmt::format("yarn beta_fast {} < beta_slow {}: the ramp runs backwards (HF warns: beta_fast must be "
                                      "greater than beta_slow)", beta_fast, beta_slow),
                          fmt::format("yarn beta_fast {} < beta_slow {}:过渡段方向颠倒(HF 警告:beta_fast 必须大于 beta_slow)",
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

  // (S8): r_j = 0 keeps θ_j (extrapolation), r_j = 1 divides it by f (interpolation).
  // HF names 1 − r_j inv_freq_extrapolation_factor.
  const Eigen::VectorXd theta = frequencies(k.d, k.base);
  p.inv_freq.resize(theta.size());
  p.bands.resize(static_cast<std::size_t>(theta.size()));
  for (Eigen::Index j = 0; j < theta.size(); ++j) {
    const double r = std::clamp((static_cast<double>(j) - low) / span, 0.0, 1.0);
    p.inv_freq[j] = (theta[j] / f) * r + theta[j] * (1.0 - r);
    p.bands[static_cast<std::size_t>(j)] = r == 0.0 ? Band::Kept : r == 1.0 ? Band::Interpolated : Band::Ramped;
  }

  // (S9), (S10)
  if (c.attention_factor) {
    check_finite(*c.attention_factor, "yarn attention_factor");
    if (*c.attention_factor < 0.0) {
      p.warnings.push_back({fmt::format("attention_factor {} < 0 (HF warns: must be a float greater than 0)", *c.attention_factor),
                            fmt::format("attention_factor {} < 0(HF 警告:必须是大于 0 的浮点数)", *c.attention_factor)});
    }
  }
  if (c.mscale) check_finite(*c.mscale, "yarn mscale");
  if (c.mscale_all_dim) check_finite(*c.mscale_all_dim, "yarn mscale_all_dim");
  if (!c.attention_factor && (c.mscale.value_or(0.0) != 0.0) != (c.mscale_all_dim.value_or(0.0) != 0.0)) {
    p.warnings.push_back(
        {"yarn uses mscale only together with mscale_all_dim (both non-zero): with one of them the attention factor is get_mscale(f)",
         "yarn 只在 mscale 与 mscale_all_dim 同时非零时使用 mscale:只给其中一个时,注意力因子是 get_mscale(f)"});
  }
  YarnAttention a = yarn_attention(c, f);
  p.attention_factor = a.value;
  p.attention_rule = std::move(a.rule);
  if (c.mscale_all_dim.value_or(0.0) != 0.0 && !c.attention_factor) {
    const double s = yarn_get_mscale(f, *c.mscale_all_dim);
    p.notes.push_back({fmt::format("DeepSeek-V2/V3 also multiply the softmax scale by get_mscale(f, mscale_all_dim)² = {:.6g}, "
                                   "outside RoPE", s * s),
                       fmt::format("DeepSeek-V2/V3 还在 RoPE 之外把 softmax 缩放乘以 get_mscale(f, mscale_all_dim)² = {:.6g}",
                                   s * s)});
  }
}

// --- llama3 -----------------------------------------------------------------------------------------

void llama3(const RopeConfig& c, const Common& k, RopeParameters& p) {
  warn_unused(c, p, {"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"});
  // HF: all four keys are required (KeyError), no defaults.
  const double f = require(c.factor, k.type, "factor");
  const long L0 = require(c.original_max_position_embeddings, k.type, "original_max_position_embeddings");
  const double lf = require(c.low_freq_factor, k.type, "low_freq_factor");
  const double hf = require(c.high_freq_factor, k.type, "high_freq_factor");
  check_positive(f, "factor");
  // L0 / 0 is a ZeroDivisionError in HF; a negative one puts a boundary at a negative wavelength.
  check_positive(lf, "llama3 low_freq_factor");
  check_positive(hf, "llama3 high_freq_factor");
  warn_small_factor(f, p);
  if (hf <= lf) {
    p.warnings.push_back({fmt::format("llama3 high_freq_factor {} <= low_freq_factor {} (HF warns: must be greater)", hf, lf),
                          fmt::format("llama3 high_freq_factor {} <= low_freq_factor {}(HF 警告:前者必须更大)", hf, lf)});
  }
  if (c.max_position_embeddings && L0 >= *c.max_position_embeddings) {
    p.warnings.push_back(
        {fmt::format("llama3 original_max_position_embeddings {} >= max_position_embeddings {} (HF warns: must be less)", L0,
                     *c.max_position_embeddings),
         fmt::format("llama3 original_max_position_embeddings {} >= max_position_embeddings {}(HF 警告:前者必须更小)", L0,
                     *c.max_position_embeddings)});
  }
  p.factor = f;
  p.factor_rule = kExplicitFactor;
  p.original_max_position = L0;

  // (S11). HF's order: λ > L0/lf divides by f; otherwise λ < L0/hf keeps θ; the rest (both
  // boundaries inclusive) blends.
  const double low_wavelength = static_cast<double>(L0) / lf;
  const double high_wavelength = static_cast<double>(L0) / hf;
  const Eigen::VectorXd theta = frequencies(k.d, k.base);
  p.inv_freq.resize(theta.size());
  p.bands.resize(static_cast<std::size_t>(theta.size()));
  for (Eigen::Index j = 0; j < theta.size(); ++j) {
    const double lambda = kTwoPi / theta[j];
    Band band;
    if (lambda > low_wavelength) {
      p.inv_freq[j] = theta[j] / f;
      band = Band::Interpolated;
    } else if (lambda < high_wavelength) {
      p.inv_freq[j] = theta[j];
      band = Band::Kept;
    } else {
      const double s = (static_cast<double>(L0) / lambda - lf) / (hf - lf);
      p.inv_freq[j] = (1.0 - s) * theta[j] / f + s * theta[j];
      band = Band::Ramped;
    }
    p.bands[static_cast<std::size_t>(j)] = band;
  }
  p.attention_rule = {"llama3 does not scale attention", "llama3 不缩放注意力"};
}

// --- longrope ---------------------------------------------------------------------------------------

void check_factor_list(const std::vector<double>& list, std::string_view name, int d) {
  if (list.empty()) throw InvalidArgument(fmt::format("longrope needs {}", name));
  if (list.size() != static_cast<std::size_t>(d / 2)) {
    throw InvalidArgument(fmt::format("longrope {} must have d/2 = {} numbers (got {})", name, d / 2, list.size()));
  }
  for (std::size_t j = 0; j < list.size(); ++j) check_positive(list[j], fmt::format("longrope {}[{}]", name, j));
}

/// (S13) for a given f.
std::pair<double, Message> longrope_attention(const RopeConfig& c, double f, long L0) {
  if (c.attention_factor) return {*c.attention_factor, kExplicitAttention};
  if (f <= 1.0) return {1.0, Message::same("1 (f <= 1)")};
  if (L0 < 2) {
    throw InvalidArgument(fmt::format("longrope's attention factor sqrt(1 + ln f / ln L0) needs original_max_position_embeddings >= 2 (got {})", L0));
  }
  return {std::sqrt(1.0 + std::log(f) / std::log(static_cast<double>(L0))), Message::same("sqrt(1 + ln f / ln L0)")};
}

void longrope(const RopeConfig& c, const Common& k, RopeParameters& p) {
  warn_unused(c, p, {"factor", "original_max_position_embeddings", "attention_factor", "short_factor", "long_factor"});
  check_factor_list(c.short_factor, "short_factor", k.d);
  check_factor_list(c.long_factor, "long_factor", k.d);
  const long L0 = original_context(c);
  const double f = factor_or_ratio(c, L0, p);
  check_factor(f, p);
  p.factor = f;
  p.original_max_position = L0;

  // (S12): HF picks the list per forward pass from the current length.
  const bool use_long = c.seq_len && *c.seq_len > L0;
  const std::vector<double>& ext = use_long ? c.long_factor : c.short_factor;
  p.notes.push_back(use_long    ? Message::same(fmt::format("long_factor (seq_len {} > L0 {})", *c.seq_len, L0))
                    : c.seq_len ? Message::same(fmt::format("short_factor (seq_len {} <= L0 {})", *c.seq_len, L0))
                                : Message{"short_factor (no seq_len; HF switches to long_factor once a sequence exceeds L0)",
                                          "short_factor(未给出 seq_len;序列一旦超过 L0,HF 改用 long_factor)"});
  const Eigen::VectorXd theta = frequencies(k.d, k.base);
  p.inv_freq.resize(theta.size());
  for (Eigen::Index j = 0; j < theta.size(); ++j) p.inv_freq[j] = theta[j] / ext[static_cast<std::size_t>(j)];

  if (c.attention_factor) {
    check_finite(*c.attention_factor, "longrope attention_factor");
    if (*c.attention_factor < 0.0) {
      p.warnings.push_back({fmt::format("attention_factor {} < 0 (HF warns: must be greater than 0)", *c.attention_factor),
                            fmt::format("attention_factor {} < 0(HF 警告:必须大于 0)", *c.attention_factor)});
    }
  }
  auto [a, rule] = longrope_attention(c, f, L0);
  p.attention_factor = a;
  p.attention_rule = std::move(rule);
}

/// The M/L0 ≠ factor warning of scaling-methods.md §6 (yarn and longrope).
void warn_factor_disagreement(const RopeConfig& c, RopeParameters& p) {
  if (!c.factor || !c.max_position_embeddings || !c.original_max_position_embeddings) return;
  const double implicit = static_cast<double>(*c.max_position_embeddings) / static_cast<double>(*c.original_max_position_embeddings);
  if (implicit == *c.factor) return;
  double a_explicit = p.attention_factor;
  double a_implicit = 0.0;
  Message older;
  if (c.type == ScalingType::Yarn) {
    a_implicit = yarn_attention(c, implicit).value;
    older = {"HF 4.51–4.55 and 5.0 dev builds before 347328108a", "HF 4.51–4.55 以及 347328108a 之前的 5.0 开发版"};
  } else {
    a_implicit = longrope_attention(c, implicit, *c.original_max_position_embeddings).first;
    older = {"HF 4.x, when original_max_position_embeddings is a top-level config attribute,",
             "HF 4.x(当 original_max_position_embeddings 是配置的顶层属性时)"};
  }
  p.warnings.push_back(
      {fmt::format("max_position_embeddings / original_max_position_embeddings = {} / {} = {} differs from factor {}: rope uses "
                   "factor {} (attention factor {:.6g}, as HF 4.56 and 5.x); {} use {} (attention factor {:.6g})",
                   *c.max_position_embeddings, *c.original_max_position_embeddings, implicit, *c.factor, *c.factor, a_explicit,
                   older.en, implicit, a_implicit),
       fmt::format("max_position_embeddings / original_max_position_embeddings = {} / {} = {} 与 factor {} 不同:rope 使用 "
                   "factor {}(注意力因子 {:.6g},与 HF 4.56 和 5.x 相同);{} 使用 {}(注意力因子 {:.6g})",
                   *c.max_position_embeddings, *c.original_max_position_embeddings, implicit, *c.factor, *c.factor, a_explicit,
                   older.zh, implicit, a_implicit)});
}

}  // namespace

std::string_view to_string(ScalingType type) {
  for (const auto& [name, t] : kTypeNames) {
    if (t == type) return name;
  }
  return "unknown";
}

ScalingType parse_scaling_type(std::string_view text) {
  for (const auto& [name, t] : kTypeNames) {
    if (text == name) return t;
  }
  if (text == "su") return ScalingType::LongRope;  // HF's legacy name (Phi-3 configs of 2024)
  if (text == "none") return ScalingType::Default;
  throw InvalidArgument(fmt::format(
      "unknown scaling type '{}': expected default, linear, ntk, dynamic, yarn, llama3, longrope or proportional "
      "(also su = longrope, none = default)",
      text));
}

std::string_view to_string(Band band) {
  switch (band) {
    case Band::None: return "none";
    case Band::Kept: return "kept";
    case Band::Ramped: return "ramped";
    case Band::Interpolated: return "interpolated";
    case Band::Unrotated: return "unrotated";
  }
  return "unknown";
}

int RopeConfig::rotary_dim() const {
  if (head_dim < 2 || head_dim > kMaxDim) {
    throw InvalidArgument(fmt::format("head_dim must be between 2 and {} (got {})", kMaxDim, head_dim));
  }
  if (!std::isfinite(partial_rotary_factor) || !(partial_rotary_factor > 0.0) || partial_rotary_factor > 1.0) {
    throw InvalidArgument(fmt::format("partial_rotary_factor must be in (0, 1] (got {})", partial_rotary_factor));
  }
  // HF: int(head_dim * partial_rotary_factor), a float64 product truncated toward zero.
  const int d = static_cast<int>(static_cast<double>(head_dim) * partial_rotary_factor);
  if (d < 2 || d % 2 != 0) {
    throw InvalidArgument(fmt::format(
        "rotary dimension d = int(head_dim · partial_rotary_factor) = int({} · {}) = {} must be even and >= 2", head_dim,
        partial_rotary_factor, d));
  }
  return d;
}

RopeParameters rope_parameters(const RopeConfig& config) {
  const RopeConfig& c = config;
  check_base(c.base);
  if (c.max_position_embeddings && *c.max_position_embeddings < 1) {
    throw InvalidArgument(fmt::format("max_position_embeddings must be >= 1 (got {})", *c.max_position_embeddings));
  }
  if (c.original_max_position_embeddings && *c.original_max_position_embeddings < 1) {
    throw InvalidArgument(
        fmt::format("original_max_position_embeddings must be >= 1 (got {})", *c.original_max_position_embeddings));
  }
  if (c.seq_len && *c.seq_len < 1) throw InvalidArgument(fmt::format("seq_len must be >= 1 (got {})", *c.seq_len));
  if (c.factor) check_finite(*c.factor, "factor");

  RopeParameters p;
  Common k{c.type, 0, c.base};
  const std::string_view name = to_string(c.type);
  if (c.type != ScalingType::Proportional) k.d = c.rotary_dim();
  const Message no_attention{fmt::format("{} does not scale attention", name), fmt::format("{} 不缩放注意力", name)};

  switch (c.type) {
    case ScalingType::Default: {  // (S1)
      warn_unused(c, p, {});
      p.inv_freq = frequencies(k.d, k.base);
      p.factor_rule = {"none (default RoPE)", "无(默认 RoPE)"};
      p.attention_rule = no_attention;
      break;
    }
    case ScalingType::Linear: {  // (S2)
      warn_unused(c, p, {"factor"});
      const double f = require(c.factor, c.type, "factor");
      check_factor(f, p);
      p.inv_freq = frequencies(k.d, k.base) / f;
      p.factor = f;
      p.factor_rule = kExplicitFactor;
      p.attention_rule = no_attention;
      break;
    }
    case ScalingType::Ntk: {  // (S3)
      warn_unused(c, p, {"factor"});
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
      warn_unused(c, p, {"factor"});
      const double f = require(c.factor, c.type, "factor");
      const long M = require(c.max_position_embeddings, c.type, "max_position_embeddings");
      check_factor(f, p);
      const long L = c.seq_len ? std::max(*c.seq_len, M) : M;
      const double x = f * static_cast<double>(L) / static_cast<double>(M) - (f - 1.0);
      const double b = ntk_base(k.base, x, k.d, c.type);
      p.inv_freq = frequencies(k.d, b);
      p.factor = f;
      p.factor_rule = kExplicitFactor;
      p.effective_base = b;
      p.attention_rule = no_attention;
      p.notes.push_back(c.seq_len ? Message::same(fmt::format("L = max(seq_len, M) = max({}, {}) = {}", *c.seq_len, M, L))
                                  : Message{fmt::format("no seq_len: L = M = {}, the default frequencies", M),
                                            fmt::format("未给出 seq_len:L = M = {},即默认频率", M)});
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
      warn_unused(c, p, {"factor"});
      const int h = c.head_dim;
      if (h < 2 || h > kMaxDim || h % 2 != 0) {
        throw InvalidArgument(fmt::format("proportional needs an even head_dim between 2 and {} (got {})", kMaxDim, h));
      }
      const double prf = c.partial_rotary_factor;
      if (!std::isfinite(prf) || !(prf > 0.0) || prf > 1.0) {
        throw InvalidArgument(fmt::format("partial_rotary_factor must be in (0, 1] (got {})", prf));
      }
      // HF: int(partial_rotary_factor * head_dim // 2); the product is a float64, halving it is exact.
      const int n = static_cast<int>(std::floor(prf * static_cast<double>(h) / 2.0));
      if (n < 1) {
        throw InvalidArgument(fmt::format(
            "proportional rotates int(partial_rotary_factor · head_dim // 2) = int({} · {} // 2) = 0 pairs: need at least 1", prf, h));
      }
      double f = 1.0;
      p.factor_rule = {"default 1", "默认值 1"};
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
      throw InvalidArgument(fmt::format("{} gives a non-finite frequency for pair {} ({}): check its parameters", name, j, p.inv_freq[j]));
    }
  }
  if (!std::isfinite(p.attention_factor)) {
    throw InvalidArgument(fmt::format("{} gives a non-finite attention factor ({})", name, p.attention_factor));
  }
  return p;
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
    throw InvalidArgument(fmt::format("original_max_position_embeddings must be >= 1 (got {})", original_max_position));
  }
  // (S6)
  return static_cast<double>(d) * std::log(static_cast<double>(original_max_position) / (turns * kTwoPi)) /
         (2.0 * std::log(base));
}

namespace {
void check_window(double t, double window) {
  check_position(t, "distance t");
  check_finite(window, "window w");
  if (window < 0.0) throw InvalidArgument(fmt::format("window w must be >= 0 (got {})", window));
}
}  // namespace

double rerope_distance(double t, double window) {
  check_window(t, window);
  return std::copysign(std::min(std::abs(t), window), t);  // (S16)
}

double leaky_rerope_distance(double t, double window, double k) {
  check_window(t, window);
  check_finite(k, "Leaky ReRoPE slope divisor k");
  if (!(k >= 1.0)) throw InvalidArgument(fmt::format("Leaky ReRoPE slope divisor k must be >= 1 (got {})", k));
  const double a = std::abs(t);
  if (a <= window) return t;  // (S17)
  return std::copysign(window + (a - window) / k, t);
}

}  // namespace rope
