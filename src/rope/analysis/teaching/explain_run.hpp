/// @file
/// `rope explain` as one call (the report pattern of check_run.hpp): the walkthrough of explain.hpp for the
/// request's q, k, positions and θ (given, θ_0 = 1, or θ_i of a pair of (d, base)), and which steps to show.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "rope/analysis/teaching/explain.hpp"

namespace rope {

struct ExplainRequest {
  std::vector<double> positions{2.0, 5.0};  ///< M of q, N of k: exactly two
  Eigen::Vector2d q{1.0, 0.5};
  Eigen::Vector2d k{0.8, -0.3};
  std::optional<double> theta;  ///< θ of steps 1–6; nullopt: θ_0 = 1, or θ of `pair`
  std::optional<int> pair;      ///< θ = θ_i of pair i of (dim, base)
  double shift = 100.0;
  int dim = 8;
  double base = kDefaultBase;
  std::optional<int> step;  ///< 1 … explain::kSteps; nullopt: every step
  bool quiet = false;       ///< without the header
};

/// Where θ of steps 1–6 came from (the header says it).
enum class ThetaSource { Default, Given, Pair };

struct ExplainRun {
  explain::Walkthrough walkthrough;
  int step = 0;  ///< the step shown; 0: every step
  bool quiet = false;
  ThetaSource theta_source = ThetaSource::Default;
  int pair = 0;  ///< with ThetaSource::Pair
  /// Every check of the steps shown passed.
  bool passed() const;
};

/// @throws InvalidArgument for other than two positions, a step outside 1 … kSteps, a pair outside
/// 0 … d/2 − 1 (with a bad d or base), and InvalidQuantity for a value explain::explain refuses.
ExplainRun run_explain(const ExplainRequest& request);

}  // namespace rope
