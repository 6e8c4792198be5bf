/// @file
/// `rope decay --xpos` as one call (the report pattern of check_run.hpp): xPos's scale factor ζ^(m/s) against
/// the distance next to RoFormer's bound (M11) and the xPos bound (X5), docs/multi-axis.md (X1)–(X5). The
/// request is decay's (decay_run.hpp) with its scale base set; its rules (plain RoPE, one base, the limits of
/// (X5)) are checked before any work.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "rope/analysis/teaching/decay_run.hpp"
#include "rope/analysis/verify/xpos.hpp"

namespace rope {

struct XposDecayRun {
  DecayRequest request;   ///< xpos_scale_base set
  int dim = 0;            ///< d
  double base = 0;        ///< the one base
  double scale_base = 0;  ///< s
  Eigen::VectorXd zeta;   ///< ζ_j of (X1), j = 0 … d/2 − 1
  Eigen::VectorXd x;      ///< every distance of the figure and the CSV
  XposDecay curves;       ///< at x
  Eigen::VectorXd shown;  ///< the round distances of the text's table (1, 2, 5 per decade and the largest)
  XposDecay at_shown;     ///< at shown
};

/// @throws InvalidArgument for a request that is not plain RoPE with one base (a kind other than the bound, a
/// model, ReRoPE, normalised or log-y curves), a scale base that is not a finite number > 0, max_distance / s
/// over kMaxXposPower, more values than kMaxCells or more terms than kMaxXposTerms, before any curve.
XposDecayRun run_xpos_decay(const DecayRequest& request);

}  // namespace rope
