// DeepSeek-V4's per-layer RoPE in a GGUF file (gguf_config_layers.cpp holds the other architectures'), as
// ggml-org/llama.cpp at the node-llama-cpp 3.22.1 bundle (commit de3ff815ea7d) computes it.
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/gguf_config.hpp"
#include "rope/models/hf_config.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/scaling.hpp"

namespace rope::detail {

/// DeepSeek-V4 (src/models/deepseek4.cpp:903-935): every layer slides (set_swa_pattern(0)); a layer whose
/// {arch}.attention.compress_ratios entry is not 0 turns q and kv with {arch}.attention.compress_rope_freq_base and the
/// model's scaling, the others with rope.freq_base unscaled (freq_scale 1, ext_factor 0); both with attn_factor
/// dsv4_rope_attn_factor (:11-17), which cancels ggml's YaRN magnitude: cos and sin of magnitude 1. The last n_rot
/// channels turn (ggml_rope_set_offset). Its compressed keys and indexer turn at other positions (:509, :582, :614).
void gguf_deepseek4_layers(const GgufFile& f, const std::string& arch, GgufModel& g) {
  const std::string rk = arch + ".attention.compress_ratios", bk = arch + ".attention.compress_rope_freq_base";
  const GgufValue* ratios = f.find(rk);
  const GgufValue* base = f.find(bk);
  if (!ratios || !base) return;  // llama.cpp refuses such a file (required keys)
  const long layers = gguf_block_count(f, arch, "the compressed layers need the layer count");
  bool integers = ratios->type == GgufType::Array && ratios->items.size() == ratios->count;
  for (const GgufValue& x : ratios->items) integers = integers && x.is_integer();
  if (!integers || static_cast<long>(ratios->count) < layers) {
    throw InvalidArgument(fmt::format("{}: {}: {}", f.name, rk, fmt::format("expected an array of at least {} whole numbers, one per layer", layers)));
  }
  const auto b = base->as_number();
  if (!b || !(*b > 1.0)) throw InvalidArgument(fmt::format("{}: {}: expected a number above 1", f.name, bk));
  LayerTypeRope plain{"sliding_attention", {}, true, RopeConfig{}, msg("rope.freq_base {0}, no scaling", format_number(g.model.rope.base))};
  plain.config.head_dim = g.model.rope.head_dim;
  plain.config.partial_rotary_factor = g.model.rope.partial_rotary_factor;
  plain.config.layout = g.model.rope.layout;
  plain.config.max_position_embeddings = g.model.rope.max_position_embeddings;
  plain.config.base = g.model.rope.base;
  LayerTypeRope compressed{"compressed_attention", {}, true, g.model.rope,
                           msg("{0} {1}, with the model's scaling at magnitude 1", bk, format_number(*b))};
  compressed.config.base = *b;
  if (compressed.config.type != ScalingType::Default) compressed.config.attention_factor = 1.0;
  for (long i = 0; i < layers; ++i) {
    (ratios->items[static_cast<std::size_t>(i)].integer != 0 ? compressed : plain).layers.push_back(static_cast<int>(i));
  }
  if (plain.layers.empty() || compressed.layers.empty()) {  // one RoPE for every layer
    g.model.rope = plain.layers.empty() ? compressed.config : plain.config;
    return;
  }
  // In the order of their first layer; the values without --layer-type are the compressed layers'.
  g.model.layer_types = plain.layers.front() < compressed.layers.front() ? std::vector<LayerTypeRope>{plain, compressed}
                                                                         : std::vector<LayerTypeRope>{compressed, plain};
  g.model.rope = compressed.config;
  g.model.layer_type = compressed.name;
  g.model.notes.push_back(msg("the values here are those of layers {0} ({1}); --layer-type with a type or a layer index gives "
                              "the others'", describe_layers(compressed.layers), compressed.name));
  g.model.origin.push_back(origin_line(Message::same("layer_types"),
                                       fmt::format("{} compressed, {} sliding only", compressed.layers.size(), plain.layers.size()),
                                       Message::same(rk)));
}

}  // namespace rope::detail
