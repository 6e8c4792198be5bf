/// @file
/// `rope apply` as one call (the report pattern of check_run.hpp): the request of the command's options, the
/// three forms of model_apply.hpp and, with `query`, the model's query scaling s(m) (docs/scaling.md (S21)) on
/// top of each.
#pragma once

#include <Eigen/Core>
#include <optional>

#include "rope/analysis/teaching/fope_apply.hpp"
#include "rope/analysis/teaching/model_apply.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

struct ApplyRequest {
  Eigen::VectorXd x;                ///< the vector: a head (head_dim numbers) or its rotating part
  AxisPosition position;            ///< m, or t,h,w for a model with multimodal sections (A1)
  ModelRope rope;                   ///< the resolved RoPE: plain (d = the vector's length) or a model's
  std::optional<XposSetting> xpos;  ///< xPos's scale on top (plain RoPE, one position only)
  bool query = false;               ///< the model's query scaling s(m) (S21) on top
  bool float32 = false;             ///< HF's float32 path beside the three forms
  bool model_options = false;       ///< a model, a config or a scaling method was given (xPos refuses them)
  bool model_source = false;        ///< a model or a config was given (query needs one)
  FopeCheckpoint
      coefficients;  ///< FoPE's checkpoint and its reader, from the front end (fope_apply.hpp); none by default
  std::optional<long> kv_head;  ///< FoPE's key-value head (0 when not given)
};

struct ApplyRun {
  ModelRope rope;  ///< the resolved RoPE (its spec before the position: spec_at_position is in apply.spec)
  Eigen::VectorXd x;
  AxisPosition position;
  std::optional<XposSetting> xpos;
  bool query = false;  ///< query scaling asked for (the model may have none: then s_m = 1)
  ModelApply apply;    ///< the three forms, the angles and their check
  double s_m = 1.0;    ///< the query scaling at m (S21), 1 without
  Eigen::VectorXd by_matrix, by_elementwise, by_complex, by_float32;  ///< s_m times model_apply's forms
  /// FoPE (fope_apply.hpp): the key-value head and its scaled rotations at the position; then the forms are FoPE's,
  /// apply.angle is arg ζ_j and apply.check their comparison.
  std::optional<FopeHead> fope_head;
  std::optional<FopeBlocks> fope;
  bool agree() const { return apply.check.passed(); }
};

/// The rules between the request's settings that hold before the RoPE is resolved: xPos on plain RoPE at one
/// position, the query scaling with a model. @throws InvalidArgument.
void check_apply_request(const ApplyRequest& request);

/// @throws InvalidArgument for a request check_apply_request refuses, a vector of another length than the
/// model's head_dim or rotary dimension, a position float64 does not resolve, or as model_apply; for FoPE as
/// fope_head, and a position of several components or float32 (FoPE is computed at one m, in float64).
ApplyRun run_apply(const ApplyRequest& request);

}  // namespace rope
