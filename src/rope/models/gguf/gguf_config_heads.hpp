// Internal to the GGUF reader (gguf_config.cpp and gguf_config_layers.cpp call it): the heads of each layer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rope/models/gguf/gguf_config.hpp"

namespace rope::detail {

/// {arch}.attention.head_count or .head_count_kv as llama.cpp reads it (llama_model_loader::get_key_or_arr,
/// src/llama-model.cpp:1328-1336 at de3ff815ea7d): one whole number for every layer (returned as one entry), or an
/// array of exactly `layers` whole numbers; nullopt when absent. @throws InvalidArgument for another value or length.
std::optional<std::vector<long>> gguf_heads_per_layer(const GgufFile& file, const std::string& key, long layers);

/// The layers whose {arch}.attention.head_count_kv entry is 0 have no attention (llama_hparams::n_head_kv(il) == 0:
/// the recurrent layers of LFM2, Ling/BailingMoE 3, Granite 4.0-H, Jamba, Nemotron-H, PLaMo 2, Kimi Linear,
/// src/models/lfm2.cpp:12, bailingmoe3.cpp:35-37), so no RoPE: they become the layer type "no_attention"; the other
/// layer types keep the layers with attention ("attention" when there was none). Nothing when the key is one number.
/// @throws InvalidArgument when every entry is 0.
void gguf_layers_without_attention(const GgufFile& file, const std::string& arch, GgufModel& g);

}  // namespace rope::detail
