/// @file
/// FoPE (docs/multi-axis.md §7 (F2)–(F4)) for `rope apply` and `rope matrix`: one key-value head's scaled rotations at
/// one position, from the checkpoint's coefficients (handed over by the front end,
/// analysis/check/fope_coefficients.hpp, as rope check reads them) and the one computation of (F2), models/fope.hpp
/// fope_pair. Pair j = (j, j + d/2) becomes
/// [[cos′_j, −sin′_j], [sin′_j, cos′_j]], which is ζ_j = cos′_j + i·sin′_j times z_j = x_j + i·x_(j+d/2): a rotation by
/// arg ζ_j scaled by |ζ_j|; the padded pairs j ≥ K pass through (cos′ 1, sin′ 0, (F3) as vLLM @ 151a2c744a).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <optional>
#include <string>

#include "rope/analysis/check/fope_coefficients.hpp"
#include "rope/core/tolerance.hpp"
#include "rope/models/fope.hpp"
#include "rope/models/resolve.hpp"

namespace rope {

/// The coefficients of a FoPE model and the key-value head a command computes.
struct FopeHead {
  std::shared_ptr<const FopeCoefficients> coefficients;
  long kv_head = 0;   ///< the key-value head asked for, 0 … kv_heads − 1
  long kv_heads = 1;  ///< the model's key-value heads (num_key_value_heads)
  long matrix = 0;    ///< the coefficients' matrix of that head: kv_head with fope_sep_head, else the one shared (0)
};

/// For a model with FoPE: its coefficients read from the checkpoint its front end handed over (a checkpoint directory
/// or a .safetensors file, read by the front end's reader) and `kv_head` checked; nullopt for a model without FoPE and
/// no checkpoint.
/// @throws InvalidArgument for a FoPE model without coefficients, coefficients for a model without FoPE, a key-value
///         head outside 0 … kv_heads − 1, a head given for a model without FoPE; as read_fope_coefficients.
std::optional<FopeHead> fope_head(const ModelRope& rope, const FopeCheckpoint& coefficients,
                                  const std::optional<long>& kv_head);

/// Every pair's scaled rotation at position m: cos′_j and sin′_j of (F2) (θ_D of the spec in float64, the kept
/// pairs j < K), 1 and 0 for the padded ones (F3); |ζ_j| and arg ζ_j beside them.
struct FopeBlocks {
  Eigen::VectorXd cos, sin;  ///< cos′_j, sin′_j (d/2 each)
  Eigen::VectorXd scale, angle;  ///< |ζ_j| = √(cos′² + sin′²) and arg ζ_j = atan2(sin′_j, cos′_j), in (−π, π]
  int kept = 0;                  ///< K: pairs 0 … K − 1 mix the kept frequencies, the others are padded
};

/// @throws InvalidArgument for a position float64 does not resolve at the rotary dimension.
FopeBlocks fope_blocks(const RopeSpec& spec, const FopeHead& head, double m);

/// The n × n matrix of the blocks (n the head_dim or the rotary dimension): pair j's block on its channels (the
/// spec's pairs, (j, j + d/2) for FoPE's half layout), the identity on channels that do not rotate.
Eigen::MatrixXd fope_matrix(const RopeSpec& spec, const FopeBlocks& blocks, int n);

/// (F4) on x (head_dim or rotary_dim numbers) three ways: the matrix, element-wise x·cat(cos′, cos′) +
/// rotate_half(x)·cat(sin′, sin′) and complex ζ_j·z_j, compared within κ·ε·(d + |m|)·max(1, max|ζ|)·‖x‖ (M13): the
/// three share cos′ and sin′ and differ by their last products' rounding.
struct FopeApply {
  Eigen::VectorXd by_matrix, by_elementwise, by_complex;
  Check check;
};
FopeApply fope_apply(const RopeSpec& spec, const FopeBlocks& blocks, const Eigen::VectorXd& x, double m);

}  // namespace rope
