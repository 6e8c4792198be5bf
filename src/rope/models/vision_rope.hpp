/// @file
/// 2-D RoPE of vision towers: every pair of a head turns with the row (height) or the column (width) of
/// its patch (docs/multi-axis.md §6). Pair j turns by
///     φ_j = ϑ_j · (p_a(j) + o)                                                                 (V1)
/// with the frequencies ϑ_j, the axis a(j) (0 row, 1 column) and the offset o of each implementation:
///   qwen2-vl   HF VisionRotaryEmbedding(head_dim/2) + rot_pos_emb (models/qwen2_vl/modeling_qwen2_vl.py),
///              half layout: pairs j < d/4 the row, the others the column, ϑ_j = base^(−4·(j mod d/4)/d)  (V2)
///   llama.cpp  GGML_ROPE_TYPE_VISION (ggml ggml_mrope_cache_init with indep_sects, sections d/4 each):
///              the same map and ladder as (V2), each axis its own full ladder                        (V2)
///   pixtral    HF PixtralRotaryEmbedding (models/pixtral/modeling_pixtral.py), half layout: of the
///              d/2 frequencies base^(−2i/d) the even i go to the row, the odd i to the column:
///              ϑ_j = base^(−4j/d) (row) for j < d/4, base^(−(4(j − d/4) + 2)/d) (column) otherwise     (V3)
///   llama4     HF Llama4VisionRotaryEmbedding (models/llama4/modeling_llama4.py), interleaved layout:
///              pairs j < d/4 the column x, the others the row y, ϑ_j = base^(−4·(j mod d/4)/d),
///              1-based positions: o = 1                                                              (V4)
///   axial      lucidrains/rotary-embedding-torch get_axial_freqs, EVA-02 VisionRotaryEmbeddingFast:
///              one block per axis, row first, interleaved, the ladder of (V2)                         (V5)
///   gemma4     HF Gemma4VisionRotaryEmbedding and apply_multidimensional_rope (models/gemma4/modeling_gemma4.py
///              at c308a309e651): one block of d/2 channels per axis, the column x first, rotate_half inside
///              each block (pairs (b·d/2 + i, b·d/2 + i + d/4)), the ladder of (V2), base 100 by default     (V6)
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string_view>
#include <vector>

#include "rope/core/types.hpp"
#include "rope/models/axes.hpp"

namespace rope {

/// Gemma4's layout, rotate_half inside each axis's block, is neither of rope's two layouts: a spec carries it as
/// the half layout with axis_blocks (rope_spec.hpp, core/types.hpp axis_block_pair_channels).
enum class VisionRope { Qwen2VL, LlamaCpp, Pixtral, Llama4, Axial, Gemma4 };

/// "qwen2-vl", "llama.cpp", "pixtral", "llama4", "axial", "gemma4".
const char* to_string(VisionRope kind);
/// @throws InvalidArgument naming the accepted words.
VisionRope parse_vision_rope(std::string_view word);

/// The pairs of one head: per pair its frequency and axis (0 row/height, 1 column/width), the layout
/// and the position offset o of (V1).
struct VisionPairs {
  VisionRope kind = VisionRope::Qwen2VL;
  Layout layout = Layout::Half;
  bool per_block = false;  ///< (V6): the layout applies inside each axis's block of d/2 channels
  Eigen::VectorXd theta;
  std::vector<int> axis;
  double offset = 0.0;
};

/// (V2)-(V6). @throws InvalidArgument unless d is a multiple of 4, 4 <= d <= kMaxDim, and base > 1.
VisionPairs vision_pairs(VisionRope kind, int d, double base);

/// The pairs' axes as an AxisMap (axes.hpp): components (h, w) = (row, column), first_axis 1, the offset
/// o, order SectionOrder::Vision, sections [pairs of h, pairs of w]. Every command that reads a spec's axes
/// then computes (V1) through (A1).
AxisMap vision_axis_map(const VisionPairs& pairs);

/// The model_type of a vision tower's config whose RoPE this is: "pixtral" → Pixtral,
/// "llama4_vision_model" → Llama4, "qwen2_vl", "qwen2_5_vl", "qwen3_vl" → Qwen2VL, "gemma4_vision" → Gemma4;
/// nullopt otherwise.
std::optional<VisionRope> vision_rope_of(std::string_view model_type);

/// φ_j of (V1) for the patch at (row, column).
Eigen::VectorXd vision_angles(const VisionPairs& pairs, double row, double column);

/// The head x rotated for the patch at (row, column): R by the angles (V1) in the pairs' layout.
Eigen::VectorXd vision_apply(const VisionPairs& pairs, const Eigen::VectorXd& x, double row, double column);

}  // namespace rope
