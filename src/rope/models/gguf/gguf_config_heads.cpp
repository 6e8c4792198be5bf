// A GGUF file's heads per layer (gguf_config_heads.hpp): llama.cpp reads attention.head_count and
// attention.head_count_kv as one number or an array of one per layer, and a layer with no key/value heads has no
// attention, so no RoPE (the hybrids whose loaders decide their recurrent layers by n_head_kv(il) == 0).
#include "rope/models/gguf/gguf_config_heads.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "rope/core/error.hpp"
#include "rope/models/hf/hf_config.hpp"
#include "rope/models/layer_types.hpp"

namespace rope::detail {

std::optional<std::vector<long>> gguf_heads_per_layer(const GgufFile& f, const std::string& k, long layers) {
  const GgufValue* v = f.find(k);
  if (!v) return std::nullopt;
  if (v->type != GgufType::Array) {
    const auto x = v->as_number();
    // !(0 <= x <= 1e9) refuses NaN before the cast to long, whose result would be undefined (fuzz_gguf's crash-9083f81)
    if (!x || !(*x >= 0 && *x <= 1e9) || *x != static_cast<double>(static_cast<long>(*x))) {
      throw InvalidArgument(error_msg("{0}: {1}: expected a whole number or an array of them", f.name, k));
    }
    return std::vector<long>{static_cast<long>(*x)};  // the same for every layer: one entry (block_count may be huge)
  }
  // llama_model_loader::get_key_or_arr (src/llama-model-loader.cpp:476-479): an array has one entry per layer.
  bool ok = layers > 0 && static_cast<long>(v->count) == layers && v->items.size() == v->count;
  for (const GgufValue& x : v->items) ok = ok && x.is_integer() && x.integer >= 0;
  if (!ok)
    throw InvalidArgument(
        error_msg("{0}: {1}: expected an array of {2} whole numbers, one per layer", f.name, k, layers));
  std::vector<long> out;
  for (const GgufValue& x : v->items) out.push_back(static_cast<long>(x.integer));
  return out;
}

void gguf_layers_without_attention(const GgufFile& f, const std::string& arch, GgufModel& g) {
  const std::string k = arch + ".attention.head_count_kv";
  const GgufValue* v = f.find(k);
  if (!v || v->type != GgufType::Array) return;
  const long layers = gguf_block_count(f, arch, "the heads of each layer need the layer count");
  const std::vector<long> kv = *gguf_heads_per_layer(f, k, layers);
  std::vector<int> none;
  for (long i = 0; i < layers; ++i) {
    if (kv[static_cast<std::size_t>(i)] == 0) none.push_back(static_cast<int>(i));
  }
  if (none.empty()) return;
  if (static_cast<long>(none.size()) == layers) {
    throw InvalidArgument(
        error_msg("{0}: {1}: every entry is 0: no layer has attention, so llama.cpp applies no RoPE", f.name, k));
  }
  const auto without = [&](int layer) { return kv[static_cast<std::size_t>(layer)] == 0; };
  if (g.model.layer_types.empty()) {  // one RoPE for the layers with attention
    LayerTypeRope attention{"attention", {}, true, g.model.rope, msg("rope.freq_base and the scaling keys")};
    for (long i = 0; i < layers; ++i) {
      if (!without(static_cast<int>(i))) attention.layers.push_back(static_cast<int>(i));
    }
    g.model.layer_types = {attention};
    g.model.layer_type = attention.name;
  } else {  // the other rules' layer types keep their layers with attention
    for (LayerTypeRope& t : g.model.layer_types)
      t.layers.erase(std::remove_if(t.layers.begin(), t.layers.end(), without), t.layers.end());
    auto& types = g.model.layer_types;
    types.erase(std::remove_if(types.begin(), types.end(), [](const LayerTypeRope& t) { return t.layers.empty(); }),
                types.end());
    const bool kept =
        std::any_of(types.begin(), types.end(), [&](const LayerTypeRope& t) { return t.name == g.model.layer_type; });
    if (!kept && !types.empty()) g.model.layer_type = types.front().name;  // the default type lost all its layers
  }
  const Message why = msg("llama.cpp: no key/value heads ({0} is 0 there), so no attention and no RoPE", k);
  g.model.layer_types.push_back(LayerTypeRope{"no_attention", none, false, g.model.rope, why});
  g.model.origin.push_back(origin_line(
      Message::same("layer_types"), fmt::format("{} without attention: {}", none.size(), describe_layers(none)), why));
}

}  // namespace rope::detail
