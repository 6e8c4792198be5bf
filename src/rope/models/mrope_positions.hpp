/// @file
/// The M-RoPE position ids of a mixed text + image + video sequence, as Hugging Face's get_rope_index
/// builds them (transformers src/transformers/models/qwen2_vl/modeling_qwen2_vl.py and
/// models/qwen2_5_vl/modeling_qwen2_5_vl.py, Qwen2VLModel.get_rope_index; docs/multi-axis.md §2):
///   - a text token at sequence offset k after a start s has (s + k, s + k, s + k)                 (Q1)
///   - an image or video of grid_thw T × H × W (patches) becomes T × (H/m) × (W/m) tokens, m the
///     spatial_merge_size (2 in every Qwen2-VL / Qwen2.5-VL / Qwen3-VL config); the token of frame t,
///     row h, column w (on the merged grid) starting at s has (s + τ(t), s + h, s + w)                (Q2)
///     with τ(t) = t (Qwen2-VL), or ⌊t · second_per_grid · tokens_per_second⌋ (Qwen2.5-VL's time
///     scaling; images have second_per_grid 0 there), both products in float32 as HF's tensors        (Q3)
///   - the next block starts at s' = max(all ids so far) + 1                                          (Q4)
///   - Qwen3-VL splits a video of T frames into T blocks of 1 × H × W, each after its timestamp's text
///     (models/qwen3_vl/modeling_qwen3_vl.py @ 00709b862b, get_rope_index: video_grid_thw repeated per frame,
///     its T set to 1): every frame's time id is its block's start                                 (Q3')
///   - decoding (the forward of each of the three models: position_ids = arange(seq) + cache_position[0] +
///     rope_deltas, the same on t, h and w): with L tokens in the prefill,
///     rope_deltas δ = max(all ids) + 1 − L, and the token at sequence index i ≥ L has (i + δ, i + δ, i + δ) (Q5)
///   - Bailing (Ling/Ming VL, sglang python/sglang/srt/layers/rotary_embedding/bailing_mrope.py @ 3176746068,
///     BailingMRotaryEmbedding.bailing_3drope_get_input_positions_tensor): text as (Q1); the token of frame t, row h,
///     column w of a block starting at s has time τ = s + 2t (scale_factor 2; sglang drops second_per_grid_ts) and
///     (τ, τ + h − ⌊(H/m − 1)/2⌋, τ + w − ⌊(W/m − 1)/2⌋): height and width centred on the merged grid, on top of
///     the time id (they may be negative); the next block starts at the largest TIME id + 1, and
///     δ = max(time ids) + 1 − L (use_interleaved_frame_timestamp splits a video into frames as (Q3'))   (B1)
///   - openPangu-VL (vLLM vllm/model_executor/models/openpangu_vl.py @ 00d1d4c552, get_mrope_input_positions): text
///     as (Q1), an image as (Q2) with τ(t) = ⌊t · tokens_per_second⌋, a video frame by frame: frame f at the block
///     start s_f as (Q2) with τ = 0, then its end token at s_f + max(H/m, W/m) and the next frame's start token one
///     after, the next frame at s_f + max(H/m, W/m) + 2; δ as (Q5)                                        (P1)
/// The vision start/end tokens around an image are ordinary text tokens: count them in --text.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rope/core/message.hpp"

namespace rope {

/// Most tokens a sequence may have (the table is printed, the figure drawn: 1 M tokens is plenty).
inline constexpr long kMaxSequenceTokens = 1'000'000;
/// Largest grid side (patches) of an image or video.
inline constexpr long kMaxGridSide = 65536;
/// Largest spatial merge size (the Qwen-VL configs say 2).
inline constexpr long kMaxMergeSize = 64;
/// Largest tokens_per_second and second_per_grid (Qwen2.5-VL uses 2 and about 1).
inline constexpr double kMaxTimeScale = 1e6;

/// Decode: a token generated after the prefill (Q5).
enum class SegmentKind { Text, Image, Video, Decode };
/// "text", "image", "video", "decode".
std::string_view to_string(SegmentKind kind);
/// "text", "image", "video", "decode" as a message (translated by the front end's catalog).
Message segment_name(SegmentKind kind);

struct Segment {
  SegmentKind kind = SegmentKind::Text;
  long tokens = 0;             ///< text: the number of tokens
  std::array<long, 3> grid{};  ///< image/video: grid_thw T, H, W in patches
};

/// "1x4x6" → the grid T, H, W (whole numbers ≥ 1). @throws InvalidArgument naming `what`.
std::array<long, 3> parse_grid(std::string_view text, std::string_view what);

/// The rule of every model's vision tokens (Qwen-VL, openPangu-VL, HunyuanVL): an image's or video's height and
/// width are whole multiples of the spatial merge size. @throws InvalidArgument naming the segment, its grid and the
/// side.
void check_grid_merges(const Segment& s, long merge);

struct PositionRules {
  long spatial_merge_size = 2;
  /// Qwen2.5-VL (Q3): vision_config.tokens_per_second; nullopt: Qwen2-VL's τ(t) = t.
  std::optional<double> tokens_per_second;
  /// Qwen2.5-VL: seconds per temporal grid step of a video (temporal_patch_size / fps; 1 for 2 frames at 2 fps).
  double second_per_grid = 1.0;
  /// Qwen3-VL (Q3'): a video is split into its frames, each after this many text tokens (its timestamp, with the
  /// vision start and end tokens around the frame); nullopt: a video is one block.
  std::optional<long> frame_text;
  /// Bailing's rule (B1) instead of (Q2)-(Q4); no time scaling (tokens_per_second must be unset).
  bool bailing = false;
  /// openPangu-VL (vLLM openpangu_vl.py @ 00d1d4c552, get_mrope_input_positions; docs/multi-axis.md (P1)): an image's
  /// frame t at time ⌊t · tokens_per_second⌋ (float32; tokens_per_second from vision_config, 1 by default), a video
  /// split into its frames, each a 1 × H × W block, two tokens (the frame's end, the next one's start) between two
  /// frames and none before the first or after the last; no time scaling of a video.
  bool pangu = false;
  /// HunyuanVL's four streams (models/xdrope_positions.hpp, (X1)): built by xdrope_index, not rope_index.
  bool xdrope = false;
};

struct TokenPosition {
  int segment = 0;  ///< index into the segments
  SegmentKind kind = SegmentKind::Text;
  std::array<long, 3> thw{};  ///< the position ids (t, h, w)
};

/// (Q1)-(Q4) over the segments, in order.
/// @throws InvalidArgument for an empty sequence, a grid side not divisible by the merge size, more than
/// kMaxSequenceTokens tokens, a non-positive merge size, a negative or non-finite time scale, Bailing's rule with a
/// time scale.
std::vector<TokenPosition> rope_index(const std::vector<Segment>& segments, const PositionRules& rules);

/// Most decode steps `rope positions` lists after a prefill.
inline constexpr long kMaxDecodeSteps = 100'000;

/// (Q5): rope_deltas of a prefill, max(all ids) + 1 − its length (0 for text alone; negative after a vision block,
/// whose ids span fewer than its tokens); under Bailing's rule (B1) max(time ids) + 1 − L.
/// @throws InvalidArgument for an empty prefill.
long rope_delta(const std::vector<TokenPosition>& prefill, const PositionRules& rules = {});

/// (Q5): the `steps` tokens decoded after the prefill, sequence indices L … L + steps − 1, each at index + δ on
/// every axis (kind Decode, segment one after the prefill's last). @throws InvalidArgument for an empty prefill or
/// steps outside [0, kMaxDecodeSteps].
std::vector<TokenPosition> decode_positions(const std::vector<TokenPosition>& prefill, long steps,
                                            const PositionRules& rules = {});

}  // namespace rope
