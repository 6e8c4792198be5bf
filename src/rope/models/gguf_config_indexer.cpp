#include "rope/models/gguf_config_indexer.hpp"

#include <fmt/format.h>

#include "rope/models/hf_config.hpp"
#include "rope/models/layer_types.hpp"

namespace rope::detail {

namespace {
/// {arch}.KEY as a whole number, when the file has one.
std::optional<long> whole(const GgufFile& f, const std::string& k) {
  const GgufValue* v = f.find(k);
  const auto x = v ? v->as_number() : std::nullopt;
  if (!x || *x < 0 || *x > 65536 || *x != static_cast<double>(static_cast<long>(*x))) return std::nullopt;
  return static_cast<long>(*x);
}
}  // namespace

void gguf_hy_v4_indexer(const GgufFile& f, const std::string& arch, GgufModel& g) {
  // "DSA is absent on the all-full_attention checkpoints, so indexer_top_k stays 0 there" (hy-v4.cpp:45-48).
  const auto top_k = whole(f, arch + ".attention.indexer.top_k");
  if (!top_k || *top_k == 0 || !g.model.layer_types.empty()) return;
  const std::string ik = arch + ".attention.indexer.key_length", tk = arch + ".attention.indexer.types";
  const auto head = whole(f, ik);
  const long rot = g.rotary_dim;
  if (!head || *head <= rot) return;  // llama.cpp refuses such a file ("bad indexer head count / key length", :55-57)
  const long layers = gguf_block_count(f, arch, "the indexer layers need the layer count");
  // get_key_or_arr (:59): one number for every layer, or one per layer; absent: none (src/llama-model.cpp:1317).
  std::vector<bool> full(static_cast<std::size_t>(layers), false);
  const GgufValue* types = f.find(tk);
  if (types && types->type == GgufType::Array) {
    if (static_cast<long>(types->count) != layers || types->items.size() != types->count) return;  // llama.cpp refuses
    for (long i = 0; i < layers; ++i) full[static_cast<std::size_t>(i)] = types->items[static_cast<std::size_t>(i)].integer != 0;
  } else if (const auto n = types ? types->as_number() : std::nullopt) {
    full.assign(full.size(), *n != 0);
  }
  if (!full[0]) return;  // "layer 0 must own an indexer" (:60-62): llama.cpp refuses the file
  LayerTypeRope attention{"attention", {}, true, g.model.rope, msg("rope.freq_base and the scaling keys")};
  LayerTypeRope indexer{"indexer", {}, true, g.model.rope,
                        msg("the lightning indexer's q and k: heads of {0} {1}, the last {2} channels, with the model's "
                            "rope type and RoPE (src/models/hy-v4.cpp:342-375)", ik, *head, rot)};
  indexer.config.head_dim = static_cast<int>(*head);
  indexer.config.partial_rotary_factor = gguf_rotary_factor(rot, *head);
  for (long i = 0; i < layers; ++i) {
    attention.layers.push_back(static_cast<int>(i));
    if (full[static_cast<std::size_t>(i)]) indexer.layers.push_back(static_cast<int>(i));
  }
  g.model.layer_types = {attention, indexer};
  g.model.layer_type = attention.name;
  g.model.origin.push_back(origin_line(Message::same("layer_types"),
                                       fmt::format("{} attention, {} indexer", attention.layers.size(), indexer.layers.size()),
                                       Message::same(tk)));
}

}  // namespace rope::detail
