// DeepSeek-V4's per-layer RoPE in a GGUF file (gguf_config_layers.cpp holds the other architectures'), as
// ggml-org/llama.cpp at the node-llama-cpp 3.22.1 bundle (commit de3ff815ea7d) computes it.
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/gguf/gguf_config.hpp"
#include "rope/models/hf/hf_config.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/scaling/scaling.hpp"

namespace rope::detail {

/// DeepSeek-V4 (src/models/deepseek4.cpp:903-935): every layer slides (set_swa_pattern(0)); a layer whose
/// {arch}.attention.compress_ratios entry is not 0 turns q and kv with {arch}.attention.compress_rope_freq_base and the
/// model's scaling, the others with rope.freq_base unscaled (freq_scale 1, ext_factor 0); both with attn_factor
/// dsv4_rope_attn_factor (:11-17), which cancels ggml's YaRN magnitude: cos and sin of magnitude 1. The last n_rot
/// channels turn (ggml_rope_set_offset). Its compressors (:509, :582) turn a block's compressed key with the compressed
/// layers' RoPE at the block's first position (state_write_pos = pos + 1 − ratio: src/llama-kv-cache-dsv4.cpp:523-527).
namespace {
/// An uncompressed DeepSeek-V4 layer's RoPE: rope.freq_base, no scaling (freq_scale 1, ext_factor 0).
LayerTypeRope unscaled_layers(const GgufModel& g) {
  LayerTypeRope plain{"sliding_attention",
                      {},
                      true,
                      RopeConfig{},
                      msg("rope.freq_base {0}, no scaling", format_number(g.model.rope.base))};
  plain.config.head_dim = g.model.rope.head_dim;
  plain.config.partial_rotary_factor = g.model.rope.partial_rotary_factor;
  plain.config.layout = g.model.rope.layout;
  plain.config.max_position_embeddings = g.model.rope.max_position_embeddings;
  plain.config.base = g.model.rope.base;
  return plain;
}
}  // namespace

bool gguf_dflash_dspark(const GgufFile& f, const std::string& arch) {
  const GgufArchitecture* row = find_gguf_architecture(arch);
  const GgufValue* hc = row && row->layers_code == "dflash" ? f.find(arch + ".hyper_connection.count") : nullptr;
  const auto n = hc ? hc->as_number() : std::nullopt;
  return n && *n > 0;
}

/// DFlash's DeepSeek-V4 DSpark draft (src/models/dflash.cpp:48-92, hyper_connection.count > 0): every stage an
/// uncompressed DeepSeek-V4 layer (compress_ratios all 0, else llama.cpp refuses the file): rope.freq_base unscaled.
/// A DFlash draft without it has one RoPE for every layer (dflash.cpp:94-101: "the SWA rope == main rope").
void gguf_dflash_layers(const GgufFile& f, const std::string& arch, GgufModel& g) {
  if (!gguf_dflash_dspark(f, arch)) return;
  const bool scaled = g.model.rope.type != ScalingType::Default;
  g.model.rope = unscaled_layers(g).config;
  g.model.origin.push_back(
      origin_line(Message::same("rope_type"), "default",
                  msg("{0}.hyper_connection.count: DeepSeek-V4 DSpark draft, every stage uncompressed: "
                      "rope.freq_base, no scaling (src/models/dflash.cpp:48-92)",
                      arch)));
  if (scaled) {
    g.model.notes.push_back(
        msg("the file's scaling keys are not used: llama.cpp turns every stage of a DeepSeek-V4 DSpark "
            "draft with rope.freq_base unscaled"));
  }
}

void gguf_deepseek4_layers(const GgufFile& f, const std::string& arch, GgufModel& g) {
  const std::string rk = arch + ".attention.compress_ratios", bk = arch + ".attention.compress_rope_freq_base";
  const GgufValue* ratios = f.find(rk);
  const GgufValue* base = f.find(bk);
  if (!ratios || !base) return;  // llama.cpp refuses such a file (required keys)
  const long layers = gguf_block_count(f, arch, "the compressed layers need the layer count");
  bool integers = ratios->type == GgufType::Array && ratios->items.size() == ratios->count;
  for (const GgufValue& x : ratios->items) integers = integers && x.is_integer();
  if (!integers || static_cast<long>(ratios->count) < layers) {
    throw InvalidArgument(
        fmt::format("{}: {}: {}", f.name, rk,
                    fmt::format("expected an array of at least {} whole numbers, one per layer", layers)));
  }
  const auto b = base->as_number();
  if (!b || !(*b > 1.0)) throw InvalidArgument(fmt::format("{}: {}: expected a number above 1", f.name, bk));
  LayerTypeRope plain = unscaled_layers(g);
  LayerTypeRope compressed{"compressed_attention",
                           {},
                           true,
                           g.model.rope,
                           msg("{0} {1}, with the model's scaling at magnitude 1", bk, format_number(*b))};
  compressed.config.base = *b;
  if (compressed.config.type != ScalingType::Default) compressed.config.attention_factor = 1.0;
  for (long i = 0; i < layers; ++i) {
    (ratios->items[static_cast<std::size_t>(i)].integer != 0 ? compressed : plain)
        .layers.push_back(static_cast<int>(i));
  }
  if (plain.layers.empty() || compressed.layers.empty()) {  // one RoPE for every layer
    g.model.rope = plain.layers.empty() ? compressed.config : plain.config;
    return;
  }
  // In the order of their first layer; the values without --layer-type are the compressed layers'.
  g.model.layer_types = plain.layers.front() < compressed.layers.front()
                            ? std::vector<LayerTypeRope>{plain, compressed}
                            : std::vector<LayerTypeRope>{compressed, plain};
  g.model.rope = compressed.config;
  g.model.layer_type = compressed.name;
  g.model.notes.push_back(
      msg("the values here are those of layers {0} ({1}); {2} with a type or a layer index gives "
          "the others'",
          describe_layers(compressed.layers), compressed.name, option_name("layer_type")));
  g.model.origin.push_back(origin_line(
      Message::same("layer_types"),
      fmt::format("{} compressed, {} sliding only", compressed.layers.size(), plain.layers.size()), Message::same(rk)));
  // The lightning indexer of the layers with compress ratio 4 (:1189-1194): its q at the tokens' positions (:609-616)
  // and its compressed k at each block's first position (:1055-1068, :582), heads of attention.indexer.key_length whose
  // last n_rot channels turn as the compressed layers'. Selected by name only: its layers are compressed ones too.
  const std::string ik = arch + ".attention.indexer.key_length";
  const GgufValue* iv = f.find(ik);
  const auto ikl = iv ? iv->as_number() : std::nullopt;
  const long rot = g.rotary_dim;
  if (!ikl || *ikl < static_cast<double>(rot) || *ikl > 65536 || *ikl != static_cast<double>(static_cast<long>(*ikl)))
    return;
  LayerTypeRope indexer{
      "indexer",
      {},
      true,
      compressed.config,
      msg("the lightning indexer's q and compressed k: heads of {0} {1}, the last {2} channels, as the "
          "compressed layers (src/models/deepseek4.cpp:609-616)",
          ik, static_cast<long>(*ikl), rot)};
  indexer.config.head_dim = static_cast<int>(*ikl);
  indexer.config.partial_rotary_factor = gguf_rotary_factor(rot, static_cast<long>(*ikl));
  for (long i = 0; i < layers; ++i) {
    if (ratios->items[static_cast<std::size_t>(i)].integer == 4) indexer.layers.push_back(static_cast<int>(i));
  }
  if (!indexer.layers.empty()) g.model.layer_types.push_back(indexer);
}

}  // namespace rope::detail
