/// @file
/// `rope bound` as one call (the report pattern of check_run.hpp): the criterion of "Base of RoPE Bounds
/// Context Length" (Men et al. 2024) over a grid of bases, docs/calculators.md (C1)–(C5), with the request's
/// rules (its limits, the range's form) checked before any work.
#pragma once

#include <optional>
#include <string>

#include "rope/analysis/calculators/bound_sweep.hpp"

namespace rope {

/// Pass intervals the text shows; the CSV has every grid base.
inline constexpr std::size_t kMaxIntervalsShown = 20;

struct BoundRequest {
  long context = 0;               ///< L: every integer m in [0, L] is checked (1 … kMaxBoundContext)
  int dim = 128;                  ///< d
  std::string base_range;         ///< "LO,HI" with 1 < LO < HI; empty: default_base_range(L)
  std::optional<int> per_decade;  ///< grid points per decade (1 … kMaxPerDecade); nullopt: default_per_decade(L)
  bool csv = false;               ///< a front end writes the CSV: the text does not point to it
};

struct BoundRun {
  BoundRequest request;
  BoundScan scan;
  bool default_range = true;  ///< the range is the default one around the paper's fit (C5)
};

/// @throws InvalidArgument for a context, grid density or range outside its rule, a grid or work too large
/// (scan_bound).
BoundRun run_bound(const BoundRequest& request);

}  // namespace rope
