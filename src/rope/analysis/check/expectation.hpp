/// @file
/// What a dump should contain, from a model's RoPE (models/resolve.hpp): the RopeExpectation that `rope check`
/// and the Python module's rope.check and rope.reference compare a dump with. One function, so that both front
/// ends check against the same reference.
#pragma once

#include <optional>

#include "rope/analysis/check/angle_error.hpp"
#include "rope/analysis/check/check.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/scaling/longrope_engine.hpp"

namespace rope {

/// How the spec was given and what the dump is, beyond the ModelRope itself.
struct ExpectationRequest {
  int head_dim = 0;         ///< d of the dump (its last axis)
  bool from_model = false;  ///< a preset or a file gave the spec: its layout is the model's
  bool vision = false;      ///< a 2-D vision RoPE of head_dim and base (no model): its layout is the kind's
  bool gguf = false;        ///< the file is a GGUF: llama.cpp computes the angles (ggml's error model by default)
  std::optional<AngleModel>
      angles;  ///< how the dump's angles were computed; nullopt: ggml's for a GGUF, else the dump type's
  std::optional<Layout> layout;  ///< imposed on the model's or plain RoPE's
  double max_position = 0;       ///< the largest position of the dump (LongRoPE's list, dynamic's base)
  LongRopeRule longrope;         ///< whose rule picks LongRoPE's list (HF's by default)
};

/// The expectation of a dump of `request.head_dim` channels under `rope`: θ_i of the spec at the dump's
/// largest position (spec_at_position: LongRoPE's list as HF picks it at seq_len = max(position_ids) + 1),
/// the attention factor, the rotary offset (0 when the dump holds the rotary channels alone, DeepSeek's
/// q_pe), the layout (request.layout, else the model's, else plain RoPE's), the axes of M-RoPE.
/// @throws InvalidArgument when the model's head_dim is not the dump's d, or the rotary dimension is larger.
RopeExpectation expectation_from_rope(ModelRope rope, const ExpectationRequest& request);

/// The positions as an engine's cache reads them, where that differs from the positions themselves: SGLang's
/// LongRoPE (rope_variant.py @ 0b1fd02d56, Phi3LongRoPEScaledRotaryEmbedding.forward) indexes one [short | long]
/// cache, so in a batch whose largest position is exactly L0 (the short list: no position > L0) the token at L0
/// reads row L0, the long list's position 0, and does not turn: `e.longrope_l0_unturned` is L0 then, and `note` says
/// so. The positions come back as they are (the kernel turns the token at L0 by 0, check_kernel.cpp variant_position,
/// and a variant of the other list, SGLang's long path, turns it as its position).
std::vector<AxisPosition> engine_cache_positions(RopeExpectation& e, const LongRopeRule& rule,
                                                 std::vector<AxisPosition> positions, std::optional<Message>& note);

}  // namespace rope

namespace rope {

/// RoPE(before) as `expected` computes it, in float64: the reference check_dump compares a dump with ((C1)'s
/// y_ref): pair i at position p turns by φ_i = θ_i·p ((A1): θ_i·p_a(i) with axes) and is multiplied by the
/// attention factor; the channels outside the rotary ones are copied. The result has before's shape and dtype F64.
/// @throws InvalidArgument when positions.size() != before.seq, the rotary channels do not fit in d, or a
///         position's components do not match the axes (axis_angles).
DumpVectors expected_dump(const DumpVectors& before, const std::vector<AxisPosition>& positions,
                          const RopeExpectation& expected);

}  // namespace rope
