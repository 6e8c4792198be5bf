/// @file
/// Internal to the scaling code, not part of the library's interface: what the methods share (checks,
/// the rules for f and L0 of (S5)) and the per-method functions rope_parameters() dispatches to.
///   scaling.cpp           rope_parameters(): the common checks, default, linear, ntk, dynamic, proportional
///   scaling_yarn.cpp      yarn (S6)–(S10)
///   scaling_llama3.cpp    llama3 (S11)
///   scaling_longrope.cpp  longrope (S12), (S13)
///   scaling_warnings.cpp  what HF only warns about
///   scaling_table.cpp     the names of the methods and the keys each one reads
#pragma once

#include <fmt/format.h>
#include <optional>
#include <string_view>
#include <utility>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/models/scaling/scaling.hpp"

namespace rope::detail {

void check_finite(double value, std::string_view name);
/// The same for a config key of `method` ("yarn", "beta_fast"), named with the front end's option that gives it:
/// "yarn beta_fast (--beta-fast) must be > 0", in Python "(beta_fast=)", whether the value came from a config or an
/// option.
void check_finite(double value, std::string_view method, std::string_view key);
void check_positive(double value, std::string_view method, std::string_view key);
void check_positive(double value, std::string_view name);

/// The error of a missing scaling parameter `name` (a config key): it names what the user types, the front end's
/// option ("--low-freq-factor", Python's "low_freq_factor="), and Llama 3.1's value for llama3's keys.
Message missing_parameter(ScalingType type, std::string_view name);

template <typename T>
T require(const std::optional<T>& value, ScalingType type, std::string_view name) {
  if (!value) throw InvalidArgument(missing_parameter(type, name));
  return *value;
}

/// The pieces of a config every method shares, checked once.
struct Common {
  ScalingType type;
  int d = 0;  ///< rotary dimension (proportional: 2 × rotated pairs)
  double base = 0.0;
};

/// (S5): L0 = original_max_position_embeddings, else max_position_embeddings.
long original_context(const RopeConfig& c);

inline const Message kExplicitFactor{msg("explicit factor")};
inline const Message kExplicitAttention{msg("explicit attention_factor")};

/// (S5): f = the explicit factor, else M / L0.
double factor_or_ratio(const RopeConfig& c, long L0, RopeParameters& p);

/// f > 0 (an error otherwise), and a warning if f < 1 (a compression, not an extension).
void check_factor(double f, RopeParameters& p);

/// (S3), (S4): base' = base · x^(d/(d−2)). d = 2 divides by zero in HF (ZeroDivisionError).
double ntk_base(double base, double x, int d, ScalingType type);

// --- the methods with formulas of their own ----------------------------------------------------------

struct YarnAttention {
  double value;
  Message rule;
};

/// (S10) for a given f (used twice when M/L0 and factor disagree).
YarnAttention yarn_attention(const RopeConfig& c, double f);
void yarn(const RopeConfig& c, const Common& k, RopeParameters& p);

void llama3(const RopeConfig& c, const Common& k, RopeParameters& p);

/// (S13) for a given f.
std::pair<double, Message> longrope_attention(const RopeConfig& c, double f, long L0);
void longrope(const RopeConfig& c, const Common& k, RopeParameters& p);

// --- warnings (scaling_warnings.cpp) -----------------------------------------------------------------

/// HF warns about keys a type does not use ("Unrecognized keys in `rope_parameters`"): the keys given
/// that the method's row of the table (scaling_table.hpp) does not read.
void warn_unused(const RopeConfig& c, RopeParameters& p);

/// HF validators warn (and still compute) when factor < 1.
void warn_small_factor(double f, RopeParameters& p);

/// The M/L0 ≠ factor warning of docs/scaling.md §2 (yarn and longrope).
void warn_factor_disagreement(const RopeConfig& c, RopeParameters& p);

}  // namespace rope::detail
