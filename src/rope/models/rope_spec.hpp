/// @file
/// The RoPE spec of a model: everything a command needs to compute what the model's own code computes
/// (docs/scaling.md, "The RoPE spec"). One value, produced from a config.json or a preset
/// (model_config.hpp) or from the command line's flags, consumed by every command:
///   - which channels of a head rotate: [rotary_offset, rotary_offset + rotary_dim) of head_dim, the
///     others pass through unchanged (partial rotary; DeepSeek MLA's qk_nope channels come first);
///   - the pair layout, and how it is known (the model family's HF modeling code, a config key, a flag,
///     or assumed, with the reason);
///   - the scaled frequencies and the attention factor (scaling.hpp), which HF multiplies into cos and
///     sin, so the rotated channels come out scaled by it and logits by its square (S15);
///   - where every value came from (origin) and what a reader should know (notes).
/// A model's output of the rotation on a head vector x at position m is                       (S19)
///     y = x outside the rotary channels,   y_rot = a · R_m x_rot   (a = attention factor)
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/message.hpp"
#include "rope/core/types.hpp"
#include "rope/models/axes.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/scaling/scaling.hpp"

namespace rope {

/// The pair layout of the HF modeling code of `model_type` (data/families.json, family_table.hpp), or nullopt
/// for a family rope does not know.
std::optional<Layout> family_layout(std::string_view model_type);

struct RopeSpec {
  std::string name;         ///< the model (file path or preset), or "the command line"
  std::string model_type;   ///< "" when there is none
  bool from_model = false;  ///< read from a config or preset (false: flags alone)
  int head_dim = 0;         ///< channels of a query/key head the rotation is applied to
  int rotary_offset = 0;    ///< first rotating channel (DeepSeek MLA: qk_nope_head_dim; else 0)
  int rotary_dim = 0;       ///< rotating channels: 2 × pairs
  Layout layout = Layout::Half;
  LayoutBasis layout_basis = LayoutBasis::Assumed;
  Message layout_reason;     ///< "model family llama", "assumed: --layout default", …
  RopeConfig config;         ///< the scaling inputs
  RopeParameters params;     ///< inv_freq (rotary_dim/2 entries) and attention_factor (in cos and sin)
  Eigen::VectorXd original;  ///< unscaled θ_i of the same pairs
  /// DeepSeek-V3 with rope_interleave: HF's apply_rotary_pos_emb_interleave rotates pairs (2i, 2i+1) and
  /// returns them de-interleaved, pair i on rotating channels i and i + rotary_dim/2 (q·k is unchanged).
  bool deinterleaved_output = false;
  /// Gemma 4's vision tower ((V6), docs/multi-axis.md): the rotating channels in two blocks of rotary_dim/2, one per
  /// axis, `layout` inside each block (axis_block_pair_channels).
  bool axis_blocks = false;
  /// A table over several heads' channels, each head its own slice of it (LTX-2's "split" rope_type,
  /// transformer_ltx2.py): rotary_dim covers `head_slices` heads, pair i = h·P + k in head h (P = rotary_dim /
  /// (2·head_slices)), `layout` inside each head (head_slice_pair_channels); 0: one head.
  int head_slices = 0;
  /// Multi-axis RoPE (axes.hpp): the axis every pair reads its position from; nullopt: one position.
  std::optional<AxisMap> axes;
  /// FoPE (fope.hpp (F1)–(F4)): the pairs' cos and sin are per-head sums weighted by checkpoint coefficients, which
  /// the spec does not hold; `params.inv_freq` stays the θ of every pair, of which the first K are kept.
  std::optional<FopeConfig> fope;
  std::string layer_type;       ///< the layer type this RoPE is ("" when every layer has the same)
  std::vector<int> layers;      ///< its layers
  std::vector<Message> origin;  ///< one line per value: where it came from
  std::vector<Message> notes;   ///< things a reader should know

  double attention_factor() const { return params.attention_factor; }
  bool layout_known() const { return layout_basis != LayoutBasis::Assumed; }
  /// Whether channels outside the rotary ones exist.
  bool partial() const { return rotary_dim != head_dim; }
};

/// A table over several heads' channels, each head its own slice (LTX-2's "split" rope_type): the d channels in
/// `heads` heads of d/heads, pair i in head h = i / (d/(2·heads)) with the layout applied inside the head:
/// h·d/heads + pair_channels(d/heads, i mod d/(2·heads), layout).
inline PairChannels head_slice_pair_channels(int d, int i, Layout layout, int heads) {
  const int width = d / heads, per = width / 2, h = i / per;
  const PairChannels c = pair_channels(width, i % per, layout);
  return {h * width + c.first, h * width + c.second};
}

/// The spec of a model read by parse_model_config / load_preset, or built from flags (model.name is
/// then the caller's, model.layout_basis Assumed or Flag). Computes the frequencies (rope_parameters).
/// @throws InvalidArgument as rope_parameters.
RopeSpec make_spec(const ModelConfig& model);

/// The spec a model uses at position m: for the methods that depend on the sequence length (dynamic,
/// longrope) without an explicit seq_len, HF's dynamic update takes seq_len = max(position_ids) + 1, so
/// longrope's long factors apply from m + 1 > L0 on. Other specs are returned unchanged.
/// @throws InvalidArgument for a non-finite m or one beyond kMaxPosition.
RopeSpec spec_at_position(const RopeSpec& spec, double m);

/// An explicit --layout: overrides the model's layout and records it (origin, and a note when the model
/// is known to use the other one); the pairs are written back in place (no de-interleaved output).
void override_layout(RopeSpec& spec, Layout layout);

/// "half layout (model family llama)", "interleaved layout (assumed: --layout default)".
Message layout_description(const RopeSpec& spec);

/// The channels of pair i within the rotating part: pair_channels(rotary_dim, i, layout), or inside its axis's block
/// with axis_blocks ((V6)).
PairChannels spec_pair_channels(const RopeSpec& spec, int i);

/// The layout the forms of core/apply.hpp rotate the rotating part in: the spec's, or half with axis_blocks, the part
/// then permuted by to_rotation_order (pair i to channels (i, i + d/2)) and back by from_rotation_order.
Layout rotation_layout(const RopeSpec& spec);
Eigen::VectorXd to_rotation_order(const RopeSpec& spec, const Eigen::VectorXd& rotary);
Eigen::VectorXd from_rotation_order(const RopeSpec& spec, const Eigen::VectorXd& rotated);

/// The vector length a command accepts: head_dim (the model's head) or rotary_dim (the rotating part
/// alone). Returns the offset of the rotating channels within a vector of length n.
/// @throws InvalidArgument naming both lengths when n is neither.
int rotary_offset_for(const RopeSpec& spec, int n);

/// (S19): x (length head_dim or rotary_dim) with its rotating channels replaced by `a · rotated`, where
/// `rotated` is R_m applied to them by any of the forms of core/apply.hpp (de-interleaved when
/// spec.deinterleaved_output). `times_factor` false: `rotated` already carries a (cos and sin did).
/// @pre rotated.size() == spec.rotary_dim; x.size() accepted by rotary_offset_for.
Eigen::VectorXd spec_output(const RopeSpec& spec, const Eigen::VectorXd& x, const Eigen::VectorXd& rotated,
                            bool times_factor = true);

/// The rotating channels of x (length head_dim or rotary_dim).
Eigen::VectorXd rotary_part(const RopeSpec& spec, const Eigen::VectorXd& x);

/// (S19) in full: the model's rotation of x at position m (element-wise form (M9)).
Eigen::VectorXd spec_apply(const RopeSpec& spec, const Eigen::VectorXd& x, double m);

/// The n×n matrix of (S19), n = head_dim or rotary_dim: a·R_m on the rotating channels, identity elsewhere.
Eigen::MatrixXd spec_matrix(const RopeSpec& spec, double m, int n);

/// The angle of every pair at a (multi-axis) position: θ_j · p_{a(j)} (axes.hpp (A1)); plain θ_j · m
/// without axes. @throws InvalidArgument when p has several components and the spec reads another number.
Eigen::VectorXd spec_angles(const RopeSpec& spec, const AxisPosition& p);

/// (S19) at a multi-axis position: the rotation by the angles of spec_angles.
Eigen::VectorXd spec_apply(const RopeSpec& spec, const Eigen::VectorXd& x, const AxisPosition& p);

/// The n×n matrix of (S19) at a multi-axis position.
Eigen::MatrixXd spec_matrix(const RopeSpec& spec, const AxisPosition& p, int n);

}  // namespace rope
