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

enum class SegmentKind { Text, Image, Video };
/// "text", "image", "video".
std::string_view to_string(SegmentKind kind);
/// "text", "image", "video" as a message (translated by the front end's catalog).
Message segment_name(SegmentKind kind);

struct Segment {
  SegmentKind kind = SegmentKind::Text;
  long tokens = 0;             ///< text: the number of tokens
  std::array<long, 3> grid{};  ///< image/video: grid_thw T, H, W in patches
};

/// "1x4x6" → the grid T, H, W (whole numbers ≥ 1). @throws InvalidArgument naming `what`.
std::array<long, 3> parse_grid(std::string_view text, std::string_view what);

struct PositionRules {
  long spatial_merge_size = 2;
  /// Qwen2.5-VL (Q3): vision_config.tokens_per_second; nullopt: Qwen2-VL's τ(t) = t.
  std::optional<double> tokens_per_second;
  /// Qwen2.5-VL: seconds per temporal grid step of a video (temporal_patch_size / fps; 1 for 2 frames at 2 fps).
  double second_per_grid = 1.0;
};

struct TokenPosition {
  int segment = 0;  ///< index into the segments
  SegmentKind kind = SegmentKind::Text;
  std::array<long, 3> thw{};  ///< the position ids (t, h, w)
};

/// (Q1)-(Q4) over the segments, in order.
/// @throws InvalidArgument for an empty sequence, a grid side not divisible by the merge size, more than
/// kMaxSequenceTokens tokens, a non-positive merge size, a negative or non-finite time scale.
std::vector<TokenPosition> rope_index(const std::vector<Segment>& segments, const PositionRules& rules);

}  // namespace rope
