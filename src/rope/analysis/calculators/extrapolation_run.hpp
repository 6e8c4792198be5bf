/// @file
/// `rope extrapolation` as one call (the report pattern of check_run.hpp): the critical dimension, the
/// extrapolation bound of each tuning base, the critical base and the small-base thresholds of "Scaling Laws
/// of RoPE-based Extrapolation" (Liu et al. 2023), docs/calculators.md (C6)–(C9).
#pragma once

#include <optional>
#include <vector>

#include "rope/analysis/calculators/extrapolation.hpp"
#include "rope/core/types.hpp"

namespace rope {

/// At most this many tuning bases.
inline constexpr std::size_t kMaxTuneBases = 16;

struct ExtrapolationRequest {
  int dim = 128;                      ///< d
  double base = kDefaultBase;         ///< the pre-training base
  double train_length = 0;            ///< T, > 2π
  std::optional<double> tune_length;  ///< T_tune, > 2π: adds the critical base and the thresholds
  std::vector<double> tune_bases;     ///< β of (C7); empty: the base itself
};

struct ExtrapolationRun {
  ExtrapolationRequest request;
  CriticalDimension critical;                ///< (C6)
  std::vector<double> betas;                 ///< the tuning bases (the base itself when none was given)
  std::vector<double> bounds;                ///< T_extra of each, (C7)
  std::optional<double> critical_base;       ///< β₀ of (C8), with a tuning length
  std::optional<SmallBaseThresholds> small;  ///< (C9), with a tuning length
};

/// @throws InvalidArgument for more than kMaxTuneBases tuning bases, a bad d, base or length.
ExtrapolationRun run_extrapolation(const ExtrapolationRequest& request);

}  // namespace rope
