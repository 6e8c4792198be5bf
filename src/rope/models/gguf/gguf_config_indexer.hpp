// Internal to the GGUF reader (gguf_config_layers.cpp calls it): the lightning indexers, as their own layer type
// "indexer" selected by name.
#pragma once

#include <string>

#include "rope/models/gguf/gguf_config.hpp"

namespace rope::detail {

/// HY-V4's lightning indexer (its row's layers_code hy_v4): on the layers whose {arch}.attention.indexer.types entry
/// is not 0, heads of {arch}.attention.indexer.key_length whose last rope.dimension_count channels turn with the
/// model's rope type and RoPE (ggml_rope_set_offset: src/models/hy-v4.cpp:342-375, 439-440 at de3ff815ea7d), when
/// {arch}.attention.indexer.top_k > 0 (hy-v4.cpp:45-62). Adds the layer types "attention" (every layer) and "indexer".
void gguf_hy_v4_indexer(const GgufFile& file, const std::string& arch, GgufModel& g);

/// The indexers whose heads are [rope | nope] (the row's indexer, llama_architectures.hpp): heads of
/// {arch}.attention.indexer.key_length whose first rope.dimension_count channels turn with the model's RoPE and the
/// rule's rope type (DeepSeek-3.2: src/models/deepseek32.cpp:226-249; GLM-DSA: glm-dsa.cpp:264-287; dots3note:
/// dots3note.cpp:207-230; Qwen4-exp: qwen4exp.cpp:626-642, its k at a block's first position). Adds the layer type
/// "indexer" (and, when the model has none yet, "attention" for every layer with RoPE; Qwen4-exp: "full_attention" and
/// its linear-attention layers without RoPE, "linear_attention").
void gguf_indexer(const GgufFile& file, const std::string& arch, const LlamaIndexerRule& rule, GgufModel& g);

/// The hybrids whose linear-attention (recurrent) layers have no RoPE (the row's linear_attention_every): the layers
/// {arch}.attention.recurrent_layers lists, else all of the trunk but every {arch}.full_attention_interval-th (default
/// `every_default`), are "linear_attention" without RoPE; the others "full_attention" with the model's RoPE
/// (src/models/qwen35.cpp:15-23,166-171, qwen35moe.cpp:18-26,189-194, qwen3next.cpp:16-23,163-168,
/// minimax-01.cpp:11-17,252-278). @throws InvalidArgument if no layer has RoPE or the interval is 0.
void gguf_linear_attention_layers(const GgufFile& file, const std::string& arch, long every_default,
                                  const std::string& source, GgufModel& g);

}  // namespace rope::detail
