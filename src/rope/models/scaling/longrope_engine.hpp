/// @file
/// The rules where engines read one config otherwise: which of LongRoPE's two factor lists an engine applies
/// (docs/scaling.md, "Which LongRoPE list, per engine"), and the length at which dynamic NTK computes its base
/// ("Dynamic NTK's length, per engine"):
///   Hf        transformers modeling_rope_utils.py @ 5fd7ca7bc9, _compute_dynamic_ntk_parameters with
///             dynamic_rope_update: at L = max(max(position_ids) + 1, M) per forward pass (guarded: M at most)
///   Vllm      vllm/model_executor/layers/rotary_embedding/dynamic_ntk_scaling_rope.py (@ 50feac95f9 at f·M; the
///             form of PR #41277 at the served length): once at start-up, at max_model_len N (f·M unless given,
///             as vLLM derives max_model_len for a dynamic config), unguarded below M (vLLM issue #52665)
///   SGLang and llama.cpp have no dynamic reading in rope (refused).
/// For DeepSeek-V4's layers (ModelRope::other_layer_reading): HF's port turns every layer's queries with
/// rope_parameters.main; the official inference (deepseek-ai inference/model.py, Attention.__init__), vLLM, SGLang and
/// llama.cpp a compressed layer's queries, window keys, compressor and indexer with compress_rope_theta and YaRN.
/// For LongRoPE:
/// The lists are HF's (S12); what differs between the engines is the rule that picks one:
///   Hf        transformers src/transformers/modeling_rope_utils.py @ ef46806472, longrope_frequency_update: per
///   forward pass, the long list
///             when max(position_ids) + 1 > L0
///   Vllm      vllm/model_executor/layers/rotary_embedding/phi3_long_rope_scaled_rope.py @ 63c2b7abcd:
///             use_long_rope = max_model_len > original_max_position_embeddings, fixed at start-up
///   Sglang    sglang python/sglang/srt/layers/rotary_embedding/rope_variant.py @ 0b1fd02d56
///             (Phi3LongRoPEScaledRotaryEmbedding.forward): the long list when torch.any(positions > L0) over the
///             whole batch; a position of exactly L0 in a short batch reads row L0 of the concatenated
///             [short | long] cache, the long list's position 0
///   LlamaCpp  llama.cpp src/llama-model.cpp get_rope_factors (de3ff815ea7d, lines 2259-2272): rope_long when the
///             context per sequence n_ctx_seq > n_ctx_orig_yarn
#pragma once

#include <optional>
#include <string_view>

#include "rope/core/message.hpp"

namespace rope {

/// Official: the model's own inference code (DeepSeek-V4's inference/model.py), for the layer readings alone.
enum class LongRopeEngine { Hf, Vllm, Sglang, LlamaCpp, Official };

/// An engine's rule with the context it needs (vLLM's max_model_len, llama.cpp's n_ctx per sequence).
struct LongRopeRule {
  LongRopeEngine engine = LongRopeEngine::Hf;
  std::optional<long> context;
  bool given = false;  ///< the engine was named (even hf): a model that is not LongRoPE is told it changes nothing
};

/// The rule of the settings `engine` ("" for HF's), `max_model_len` (vLLM's alone) and `n_ctx` (llama.cpp's alone).
/// @throws InvalidArgument for an unknown engine, a context given to another engine, a context < 1 (each setting
///         named by option_name). A context missing from vLLM's or llama.cpp's rule is refused where a LongRoPE
///         spec needs it (spec_with_rule), not here: a model of another rope_type has no list to choose.
LongRopeRule longrope_rule(std::string_view engine, std::optional<long> max_model_len, std::optional<long> n_ctx);

/// "hf", "vllm", "sglang", "llamacpp", "official".
std::string_view to_string(LongRopeEngine engine);
/// @throws InvalidArgument for another name.
LongRopeEngine parse_longrope_engine(std::string_view text);
/// The engine's name as its users write it: "Hugging Face", "vLLM", "SGLang", "llama.cpp".
std::string_view engine_title(LongRopeEngine engine);

/// The length the engine compares with L0 (the long list when it is > L0), at the largest position `m` of a batch
/// or dump: HF max + 1, SGLang max, vLLM its max_model_len, llama.cpp its n_ctx (`context`, required for those two).
long longrope_rule_length(LongRopeEngine engine, std::optional<long> context, double m);

/// Whether the engine's rule takes the long list at largest position `m` (L0 the original context).
bool longrope_takes_long(LongRopeEngine engine, std::optional<long> context, double m, long l0);

/// The note of the list chosen: the engine's rule in words, with the length `n` it compares with L0
/// (longrope_rule_length).
Message longrope_rule_note(LongRopeEngine engine, long n, long l0);

/// The length at which vLLM computes dynamic NTK's base: its max_model_len `context`, else floor(f·M), the
/// max_model_len vLLM derives for a dynamic config (vllm/config.py @ e24113a8fe, _get_and_verify_max_len).
long vllm_dynamic_length(std::optional<long> context, double factor, long max_position);

/// The note of dynamic NTK's length as vLLM takes it: `n` the length, `given` whether max_model_len was given.
Message vllm_dynamic_note(long n, bool given, long max_position);

/// The engines (and the contexts) whose rule takes the other list at largest position `m`, for the diagnosis of a
/// dump that matches it: `other_is_short` the list the dump matches.
Message longrope_engines_for(bool other_is_short, double m, long l0);

}  // namespace rope
