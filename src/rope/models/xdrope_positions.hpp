/// @file
/// HunyuanVL's XD-RoPE position ids of a text + image sequence, the four streams [p, w, h, t] of every token as
/// vLLM builds them for a prefill (vllm/model_executor/models/hunyuan_vision.py @ 1c1b86e166,
/// HunYuanVLForConditionalGeneration.get_xdrope_input_positions and HunYuanVLMultiModalProcessor._get_prompt_updates;
/// docs/multi-axis.md (X1), (X2)):
///   - an image of grid_thw 1 × H × W is H/m · (W/m + 1) + 4 tokens, m the spatial_merge_size: its start token, an
///     image token, H/m rows of W/m + 1 tokens (the last of each row its newline), an image token and its end token
///     (the processor turns the one image token of the placeholder start, image, end into H/m · (W/m + 1) + 2)
///   - the token of row r, column c (c = W/m the newline) of image i (0-based in the sequence) has
///     (p, w, h, t) = (its index, c, r, i); the rows begin at the image's start token + 2                     (X1)
///   - every other token k, and every decode token k, has (k, k, k, k); a decode step turns every pair with p alone
///     (HF modular_hunyuan_vl.py @ 17963211f4: prepare_inputs_for_generation, and HunYuanVLDenseV1Attention.forward
///     takes position_ids[:, 0, :] once a cache exists)                                                      (X2)
/// p is the token's index throughout: no rope_deltas.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "rope/models/mrope_positions.hpp"

namespace rope {

/// One token's four streams (p, w, h, t).
struct XdropePosition {
  int segment = 0;  ///< index into the segments (the decode tokens: one after the last)
  SegmentKind kind = SegmentKind::Text;
  std::array<long, 4> pwht{};
};

/// The tokens an image of `grid` (1 × H × W) adds: H/m · (W/m + 1) + 4.
long xdrope_image_tokens(const std::array<long, 3>& grid, long merge);

/// (X1) over the segments, in order (text and images).
/// @throws InvalidArgument for an empty sequence, a video or decode segment, an image of more than one frame, a grid
/// side not divisible by the merge size, more than kMaxSequenceTokens tokens; InvalidQuantity "the spatial merge
/// size" for a merge size outside 1 … kMaxMergeSize.
std::vector<XdropePosition> xdrope_index(const std::vector<Segment>& segments, long merge);

/// (X2): `steps` decode tokens after a prefill of `prefill` tokens, each (k, k, k, k), of segment `segment`.
/// @throws InvalidArgument for steps outside [0, kMaxDecodeSteps].
std::vector<XdropePosition> xdrope_decode(std::size_t prefill, int segment, long steps);

}  // namespace rope
