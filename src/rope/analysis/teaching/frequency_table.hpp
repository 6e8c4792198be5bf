/// @file
/// `rope frequencies` as one library call: the table of a RoPE's frequencies θ_i and wavelengths λ_i = 2π/θ_i
/// (docs/math.md (M1), (M2)), for plain RoPE with the exponents −2i/d, for a model or a scaling method beside the
/// original ones with their ratio and band (docs/scaling.md), with the angles m·θ_i at one position and HF's
/// float32 θ_i (F1) when asked. The command line prints it (report/frequencies_report.hpp); the live page
/// (web/rope_web.cpp) shows the same columns.
#pragma once

#include <Eigen/Core>
#include <optional>

#include "rope/models/resolve.hpp"

namespace rope {

/// What the table is of: a RoPE as the front end resolved it, and the optional columns.
struct FrequenciesRequest {
  ModelRope rope;
  std::optional<double> position;  ///< the angles m·θ_i at this position (a model's: of the frequencies HF uses there)
  bool float32 = false;  ///< HF's float32 θ_i beside rope's float64 ones (a model or a method; not plain RoPE)
};

/// The table. Every column has one entry per pair; `angle` only with a position, `theta_float32` only when asked.
struct FrequencyTable {
  ModelRope rope;  ///< as resolved
  RopeSpec spec;   ///< the spec of the table: the model's, at the position for dynamic and longrope
  std::optional<double> position;
  Eigen::VectorXd theta;                ///< θ_i (scaled, for a model or method)
  Eigen::VectorXd wavelength;           ///< 2π/θ_i (infinite for a frequency 0: proportional's unrotated pairs)
  Eigen::VectorXd original;             ///< θ_i before the scaling
  Eigen::VectorXd original_wavelength;  ///< 2π/θ_i before the scaling
  Eigen::VectorXd ratio;                ///< scaled / original
  Eigen::VectorXd exponent;             ///< −2i/d of θ_i = base^(−2i/d) (plain RoPE's column)
  Eigen::VectorXd angle;                ///< m·θ_i at the position
  Eigen::VectorXd theta_float32;        ///< HF's float32 θ_i, widened
  /// FoPE (models/fope.hpp (F1), (F3)): the pairs 0 … K − 1 that keep their θ, whose cos and sin the checkpoint's
  /// coefficients mix; the pairs from K on are padded and do not rotate. nullopt without FoPE.
  std::optional<int> fope_kept;

  /// Plain RoPE of a head dimension and base: no model, no scaling (ModelRope::plain).
  bool plain() const { return rope.plain; }
  Eigen::Index pairs() const { return theta.size(); }
};

/// The table of `request`.
/// @throws InvalidArgument for a position with a model whose positions have several axes (it has no one angle).
FrequencyTable frequency_table(const FrequenciesRequest& request);

}  // namespace rope
