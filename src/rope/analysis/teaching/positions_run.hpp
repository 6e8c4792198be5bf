/// @file
/// `rope positions` (M-RoPE) as one call (the report pattern of check_run.hpp): the position ids (t, h, w) of a
/// text + image + video sequence as HF's get_rope_index builds them, docs/multi-axis.md (Q1)–(Q5), sglang's
/// Bailing rule (B1) or vLLM's openPangu-VL rule (P1), or HunyuanVL's four streams (p, w, h, t) as vLLM builds them
/// (X1), (X2); the rules a model's vision_config gives, with what the request types over them. (The
/// context-parallel positions are analysis/dumps/cp_positions.hpp.)
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "rope/core/message.hpp"
#include "rope/models/grid_rope.hpp"
#include "rope/models/mrope_positions.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/xdrope_positions.hpp"

namespace rope {

/// The text prints at most this many rows (the CSV and the figure have them all).
inline constexpr std::size_t kMaxPrintedPositions = 2000;

struct PositionsRequest {
  std::vector<Segment> segments;            ///< in their order
  std::optional<ModelRope> model;           ///< a Qwen-VL model, resolved once: its vision_config's rules
  std::optional<long> merge_size;           ///< spatial_merge_size typed; nullopt: the model's, else 2
  std::optional<double> tokens_per_second;  ///< Qwen2.5-VL time scaling (over the model's)
  std::optional<double> second_per_grid;    ///< seconds per temporal grid step; nullopt: 1
  std::optional<long> frame_text;           ///< Qwen3-VL: text tokens before each frame of a video (Q3')
  std::optional<long> decode;               ///< decode steps listed after the prefill (Q5)
  bool bailing = false;                     ///< Bailing's rule (B1) without a model
  bool csv = false;                         ///< a front end writes every row: the text does not point to it
  /// A diffusers transformer (grid_rope.hpp): the latent it receives, F×H×W, with the text tokens (`text`), Flux.2's
  /// reference images and LTX's or Cosmos's frame rate; the model must be one of grid_rope.hpp's classes.
  std::optional<GridRequest> latent;
};

struct PositionsRun {
  PositionsRequest request;
  PositionRules rules;                  ///< the rules applied
  std::vector<Message> origin;          ///< with a model: where each rule came from
  std::vector<TokenPosition> ids;       ///< the prefill's tokens, then the decoded ones (empty under rules.xdrope)
  std::vector<XdropePosition> streams;  ///< HunyuanVL (rules.xdrope): the four streams of every token, as ids
  std::size_t prefill = 0;              ///< the prefill's tokens
  long delta = 0;                       ///< rope_deltas of the prefill (Q5), (B1)
  std::optional<GridPositions> grid;    ///< a diffusers transformer's positions (request.latent)
};

/// @throws InvalidArgument for second_per_grid without tokens_per_second, a model without position rules or
/// whose rules the request contradicts (sequence_positions_for), the limits of rope_index and decode_positions
/// (a typed rule out of range named by its setting).
PositionsRun run_positions(const PositionsRequest& request);

}  // namespace rope
