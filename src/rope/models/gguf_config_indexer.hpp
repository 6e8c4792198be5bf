// Internal to the GGUF reader (gguf_config_layers.cpp calls it): the lightning indexers that turn with the model's own
// rope type, as their own layer type selected by name.
#pragma once

#include <string>

#include "rope/models/gguf_config.hpp"

namespace rope::detail {

/// HY-V4's lightning indexer (its row's layers_code hy_v4): on the layers whose {arch}.attention.indexer.types entry
/// is not 0, heads of {arch}.attention.indexer.key_length whose last rope.dimension_count channels turn with the
/// model's rope type and RoPE (ggml_rope_set_offset: src/models/hy-v4.cpp:342-375, 439-440 at de3ff815ea7d), when
/// {arch}.attention.indexer.top_k > 0 (hy-v4.cpp:45-62). Adds the layer types "attention" (every layer) and "indexer".
void gguf_hy_v4_indexer(const GgufFile& file, const std::string& arch, GgufModel& g);

}  // namespace rope::detail
