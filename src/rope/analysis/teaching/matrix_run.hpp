/// @file
/// `rope matrix` as one call (the report pattern of check_run.hpp): the dense block-diagonal R^d_(Θ,m) of plain
/// RoPE or of a model's head (docs/math.md (M5), (M6), (S19)) at one position, or R_mᵀR_n beside R_(n−m) and
/// their difference against (M13) (docs/math.md (M7), per axis (A5)).
#pragma once

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "rope/analysis/teaching/fope_apply.hpp"
#include "rope/core/tolerance.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

/// Printing or writing more than 1024² entries is never what a user meant.
inline constexpr int kMaxMatrixDim = 1024;

struct MatrixRequest {
  ModelRope rope;                        ///< the resolved RoPE: plain (d, base, layout) or a model's
  std::optional<AxisPosition> position;  ///< m, or t,h,w for a model with multimodal sections (A1)
  std::vector<AxisPosition> relative;    ///< {M, N}: R_Mᵀ R_N beside R_(N−M); exactly one of the two
  int digits = 6;                        ///< decimals printed per entry (0 … 17)
  bool float32 = false;                  ///< R_m as HF's float32 cos and sin give it (position only)
  bool figure = false;                   ///< a figure is asked for: it draws R_m (position only)
  FopeCheckpoint
      coefficients;  ///< FoPE's checkpoint and its reader, from the front end (fope_apply.hpp); none by default
  std::optional<long> kv_head;  ///< FoPE's key-value head (0 when not given)
};

struct MatrixRun {
  ModelRope rope;
  int digits = 6;
  int dim = 0;   ///< the rotating d
  int size = 0;  ///< the printed matrix's side: the model's head_dim, or plain RoPE's d
  // One position:
  std::optional<AxisPosition> position;
  std::optional<RopeSpec> spec;  ///< a model's spec at the position (dynamic, longrope: spec_at_position)
  bool float32 = false;
  Eigen::MatrixXd matrix;  ///< R_m (size × size)
  // Two positions (--relative):
  std::vector<AxisPosition> relative;  ///< {M, N}
  std::optional<RelativeRotation> rotation;
  double offset = 0;  ///< a vision tower's position offset o (counts in the tolerance)
  Check check;        ///< max |R_Mᵀ R_N − R_(N−M)| against κ·ε·(d + 2(|m| + |n|)) (M13)
  /// FoPE (fope_apply.hpp): the key-value head; the blocks at the position (R_m is their matrix); with two positions
  /// the product and R_(N−M) are FoPE's, (row, column) the largest entry of their difference. FoPE does not claim
  /// R_Mᵀ R_N = R_(N−M): the comparison is reported, not a check that fails.
  std::optional<FopeHead> fope_head;
  std::optional<FopeBlocks> fope;
  long fope_row = 0, fope_column = 0;

  bool passed() const { return !rotation || fope_head || check.passed(); }
};

/// @throws InvalidArgument for a dimension or head_dim beyond kMaxMatrixDim, digits outside 0 … 17, not
/// exactly one of position and relative, a figure or float32 with relative, relative on a spec that pairs inside
/// axis blocks (V6), positions float64 does not resolve; for FoPE as fope_head, and float32 or a position of several
/// components.
MatrixRun run_matrix(const MatrixRequest& request);

}  // namespace rope
