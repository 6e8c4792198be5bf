/// @file
/// LongRoPE's list as an engine's rule picks it (scaling/longrope_engine.hpp), applied to a resolved spec.
#pragma once

#include <optional>

#include "rope/models/resolve.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/models/scaling/longrope_engine.hpp"

namespace rope {

/// The spec with the list `rule` takes: vLLM's and llama.cpp's by their context (whatever the positions), HF's and
/// SGLang's at the largest position `max_position` of a dump (none: the spec as it is, its list by its seq_len or the
/// short one). A spec other than LongRoPE's, or HF's rule without a position, is returned unchanged; the rule's
/// note is added to the spec's notes.
/// @throws InvalidArgument when the spec's seq_len was given as well as a context rule and is not that context (the
///         two would disagree; the context itself is the rule applied already, with_longrope_rule).
RopeSpec spec_with_rule(const RopeSpec& spec, const LongRopeRule& rule, std::optional<double> max_position);

/// The same on a resolved model (its spec and every layer type's). An engine named for a model with no LongRoPE
/// spec adds longrope_rule_unused's warning to the spec's warnings.
/// @throws InvalidArgument as spec_with_rule, and for vLLM's or llama.cpp's rule without its context on LongRoPE.
ModelRope with_longrope_rule(ModelRope rope, const LongRopeRule& rule);

/// The layer type the engine gives the selected layer index, where engines differ (ModelRope::other_layer_reading,
/// DeepSeek-V4): HF's rule keeps HF's port's; every other engine (the official inference, vLLM, SGLang, llama.cpp)
/// takes the official inference's, and HF's becomes the other reading. Unchanged otherwise, and when applied already.
ModelRope with_layer_reading(ModelRope rope, const LongRopeRule& rule);

/// The warning for an engine named (`rule.given`) where no spec of `rope` is LongRoPE, the one rope_type whose list
/// an engine chooses; nullopt otherwise.
std::optional<Message> longrope_rule_unused(const ModelRope& rope, const LongRopeRule& rule);

}  // namespace rope
