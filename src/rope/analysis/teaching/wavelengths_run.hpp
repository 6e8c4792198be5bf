/// @file
/// `rope wavelengths` as one call (the report pattern of check_run.hpp): λ_i = 2π/θ_i of every pair for each
/// base, or a model's original and scaled wavelengths, and for each context length the first pair that never
/// completes a turn within it (the critical dimension, docs/math.md (M2), (M16)).
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

#include "rope/core/message.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

/// At most this many bases (curves) and this many context lengths.
inline constexpr std::size_t kMaxWavelengthCurves = 16;

struct WavelengthsRequest {
  int dim = 128;                  ///< plain RoPE's d (a model's rope sets its own)
  std::vector<double> bases;      ///< plain RoPE: one curve per base; with a model at most one (its override)
  std::vector<double> contexts;   ///< the context lengths to compare with, each ≥ 1; empty with a model: its own
  std::optional<ModelRope> rope;  ///< a model or a scaling method: its original and scaled wavelengths
  bool named = false;             ///< the rope is a named model (preset or file): the figure names it
};

struct WavelengthsCurve {
  Message name;            ///< legend: "base = 10000", "original, base = 500000", "yarn f = 4"
  std::string column;      ///< CSV header and table column: "base=10000", "original", "yarn"
  Eigen::VectorXd lambda;  ///< λ_i, +∞ for a pair that does not turn (θ_i = 0)
};

struct WavelengthsRun {
  int dim = 0;                           ///< the rotary dimension d: d/2 pairs
  std::vector<WavelengthsCurve> curves;  ///< one per base, or a model's original (then scaled) wavelengths
  std::vector<double> contexts;          ///< as asked, or a model's original and extended lengths
  /// first_beyond[c][k]: the first pair of curve k whose λ exceeds contexts[c] (d/2: every pair turns).
  std::vector<std::vector<Eigen::Index>> first_beyond;
  std::optional<RopeSpec> model;   ///< the named model (its name and layer type in the figure's title)
  bool scaled_pair = false;        ///< the curves are a model's original and scaled wavelengths
  std::optional<RopeSpec> vision;  ///< a vision tower: each axis its own ladder, (V2)-(V6) of docs/multi-axis.md
  std::vector<Message> warnings;   ///< the scaling method's
  /// FoPE (models/fope.hpp): the first K pairs keep their θ (mixed by the coefficients), the others are padded and do
  /// not rotate; nullopt without FoPE.
  std::optional<int> fope_kept;
  double sweep_end = 2;  ///< the animation's last position: the largest context, else the longest finite λ
};

/// The request's own rules (counts, contexts ≥ 1, one base with a model), before a front end resolves the
/// model. `model`: the front end resolves one. @throws InvalidArgument.
void check_wavelengths_request(const std::vector<double>& bases, const std::vector<double>& contexts, bool model);

/// @throws InvalidArgument for a request check_wavelengths_request refuses, a bad d or base.
WavelengthsRun run_wavelengths(const WavelengthsRequest& request);

}  // namespace rope
