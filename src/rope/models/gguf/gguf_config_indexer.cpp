#include "rope/models/gguf/gguf_config_indexer.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "rope/core/error.hpp"
#include "rope/models/hf/hf_config.hpp"
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
    for (long i = 0; i < layers; ++i)
      full[static_cast<std::size_t>(i)] = types->items[static_cast<std::size_t>(i)].integer != 0;
  } else if (const auto n = types ? types->as_number() : std::nullopt) {
    full.assign(full.size(), *n != 0);
  }
  if (!full[0]) return;  // "layer 0 must own an indexer" (:60-62): llama.cpp refuses the file
  LayerTypeRope attention{"attention", {}, true, g.model.rope, msg("rope.freq_base and the scaling keys")};
  LayerTypeRope indexer{
      "indexer",
      {},
      true,
      g.model.rope,
      msg("the lightning indexer's q and k: heads of {0} {1}, the last {2} channels, with the model's "
          "rope type and RoPE (src/models/hy-v4.cpp:342-375)",
          ik, *head, rot)};
  indexer.config.head_dim = static_cast<int>(*head);
  indexer.config.partial_rotary_factor = gguf_rotary_factor(rot, *head);
  for (long i = 0; i < layers; ++i) {
    attention.layers.push_back(static_cast<int>(i));
    if (full[static_cast<std::size_t>(i)]) indexer.layers.push_back(static_cast<int>(i));
  }
  g.model.layer_types = {attention, indexer};
  g.model.layer_type = attention.name;
  g.model.origin.push_back(origin_line(
      Message::same("layer_types"),
      fmt::format("{} attention, {} indexer", attention.layers.size(), indexer.layers.size()), Message::same(tk)));
}

}  // namespace rope::detail

namespace rope::detail {

namespace {
using IndexerLayers = LlamaIndexerRule::Layers;

/// get_key_or_arr of llama.cpp (src/llama-model-loader.cpp:459-496): {arch}.KEY as n whole numbers, one per layer, or
/// one number for every layer; nullopt when absent. An array of another length: llama.cpp refuses the file.
std::optional<std::vector<long>> per_layer(const GgufFile& f, const std::string& k, long n) {
  const GgufValue* v = f.find(k);
  if (!v) return std::nullopt;
  if (v->type == GgufType::Array) {
    bool ok = static_cast<long>(v->count) == n && v->items.size() == v->count;
    for (const GgufValue& x : v->items) ok = ok && (x.is_integer() || x.type == GgufType::Bool);
    if (!ok)
      throw InvalidArgument(error_msg("{0}: {1}: expected an array of {2} whole numbers, one per layer", f.name, k, n));
    std::vector<long> out;
    for (const GgufValue& x : v->items) out.push_back(static_cast<long>(x.integer));
    return out;
  }
  const auto x = v->as_number();
  if (!x || *x != static_cast<double>(static_cast<long>(*x))) {
    throw InvalidArgument(error_msg("{0}: {1}: expected a whole number or an array of them", f.name, k));
  }
  return std::vector<long>(static_cast<std::size_t>(n), static_cast<long>(*x));
}

/// The layers of linear attention, without RoPE, as the hybrid loaders decide them (src/models/qwen4exp.cpp:127-135,
/// qwen35.cpp:15-23, qwen35moe.cpp:18-26, qwen3next.cpp:16-23, minimax-01.cpp:11-17):
/// {arch}.attention.recurrent_layers, else every layer of the trunk but each full_attention_interval-th (default
/// `every`).
std::vector<bool> recurrent_layers(const GgufFile& f, const std::string& arch, long all, long trunk, long every_default,
                                   bool refuses_zero) {
  std::vector<bool> r(static_cast<std::size_t>(trunk), false);
  if (const auto listed = per_layer(f, arch + ".attention.recurrent_layers", all)) {
    for (long i = 0; i < trunk; ++i) r[static_cast<std::size_t>(i)] = (*listed)[static_cast<std::size_t>(i)] != 0;
    return r;
  }
  const std::string ik = arch + ".full_attention_interval";
  const long every = whole(f, ik).value_or(every_default);
  if (every == 0) {
    throw InvalidArgument(
        refuses_zero ? error_msg("{0}: {1}: must be greater than zero (llama.cpp refuses 0)", f.name, ik)
                     : error_msg("{0}: {1}: must be greater than zero (llama.cpp's loader divides by it)", f.name, ik));
  }
  for (long i = 0; i < trunk; ++i) r[static_cast<std::size_t>(i)] = (i + 1) % every != 0;
  return r;
}

/// The layers with the indexer, of the trunk's `trunk` layers (the graph's il < n_layer).
std::vector<bool> indexer_layers(const GgufFile& f, const std::string& arch, const LlamaIndexerRule& rule,
                                 const GgufModel& g, long all, long trunk, const std::vector<bool>& recurrent) {
  std::vector<bool> on(static_cast<std::size_t>(trunk), rule.layers == IndexerLayers::Every);
  if (rule.layers == IndexerLayers::IndexerTypes) {  // glm-dsa.cpp:58-66, llama-hparams.cpp:304-306
    const auto types = per_layer(f, arch + ".attention.indexer.types", trunk);
    const auto ctx = whole(f, arch + ".context_length");
    for (long i = 0; i < trunk; ++i) {
      const auto k = static_cast<std::size_t>(i);
      on[k] = types                                  ? (*types)[k] != 0
              : ctx && *ctx < rule.all_below_context ? true
                                                     : k < rule.types_default.size() && rule.types_default[k] != 0;
    }
  } else if (rule.layers == IndexerLayers::NotSliding) {  // the graph's `if (!is_swa)`: the layers of no sliding type
    on.assign(on.size(), true);
    for (const LayerTypeRope& t : g.model.layer_types) {
      if (t.name.rfind("sliding", 0) != 0) continue;
      for (int i : t.layers) {
        if (i < trunk) on[static_cast<std::size_t>(i)] = false;
      }
    }
  } else if (rule.layers ==
             IndexerLayers::CompressRatios) {  // qwen4exp.cpp:785-788: a ratio above 0, not linear attention
    const auto ratios = per_layer(f, arch + ".attention.compress_ratios", all);
    for (long i = 0; i < trunk && ratios; ++i) {
      on[static_cast<std::size_t>(i)] =
          (*ratios)[static_cast<std::size_t>(i)] > 0 && !recurrent[static_cast<std::size_t>(i)];
    }
  }
  return on;
}
}  // namespace

void gguf_indexer(const GgufFile& f, const std::string& arch, const LlamaIndexerRule& rule, GgufModel& g) {
  const std::string ik = arch + ".attention.indexer.key_length";
  const auto head = whole(f, ik);
  const long rot = g.rotary_dim;
  if (!head || *head < rot || *head < 2)
    return;  // llama.cpp refuses such a file (a required key; GGML_ASSERT n_rot <= it)
  const long all = gguf_block_count(f, arch, "the indexer layers need the layer count");
  const long trunk = std::max(1L, all - whole(f, arch + ".nextn_predict_layers").value_or(0));  // the graph's n_layer
  const bool qwen4 = rule.layers == IndexerLayers::CompressRatios;
  const std::vector<bool> recurrent = qwen4 ? recurrent_layers(f, arch, all, trunk, 4, true) : std::vector<bool>{};
  const std::vector<bool> on = indexer_layers(f, arch, rule, g, all, trunk, recurrent);
  const Layout layout = rule.type == GgufRopeType::None   ? g.model.rope.layout
                        : rule.type == GgufRopeType::Norm ? Layout::Interleaved
                                                          : Layout::Half;
  const std::string type(rule.type == GgufRopeType::None ? to_string(g.rope_type) : to_string(rule.type));
  LayerTypeRope indexer{
      "indexer",
      {},
      true,
      g.model.rope,
      qwen4 ? msg("the indexer's q and k: heads of {0} {1}, the first {2} channels, with the model's rope "
                  "type and RoPE ({3}); its k, the mean key of a block, turns at the block's first "
                  "position in all four slots (src/llama-memory-hybrid-idx.cpp:482-492)",
                  ik, *head, rot, rule.source)
            : msg("the indexer's q and k: heads of {0} {1}, the first {2} channels, rope type {3}, with "
                  "the model's RoPE ({4})",
                  ik, *head, rot, type, rule.source)};
  indexer.config.head_dim = static_cast<int>(*head);
  indexer.config.partial_rotary_factor = gguf_rotary_factor(rot, *head);
  indexer.first_channels = true;
  if (layout != g.model.rope.layout || rule.type != GgufRopeType::None) {
    indexer.layout = layout;
    indexer.layout_reason = msg("llama.cpp rope type {0} of the indexer of {1} ({2})", type, arch, rule.source);
  }
  for (long i = 0; i < trunk; ++i) {
    if (on[static_cast<std::size_t>(i)]) indexer.layers.push_back(static_cast<int>(i));
  }
  // Qwen4-exp's linear-attention layers have no RoPE, with or without an indexer.
  const bool any_linear = std::find(recurrent.begin(), recurrent.end(), true) != recurrent.end();
  if (indexer.layers.empty() && !any_linear) return;
  const bool had_types = !g.model.layer_types.empty();
  if (!had_types) {  // one RoPE for every attention layer, and the indexer's
    LayerTypeRope attention{
        qwen4 ? "full_attention" : "attention", {}, true, g.model.rope, msg("rope.freq_base and the scaling keys")};
    LayerTypeRope linear{"linear_attention",
                         {},
                         false,
                         g.model.rope,
                         msg("llama.cpp: linear attention, no RoPE (src/models/qwen4exp.cpp:127-135, 411-414)")};
    for (long i = 0; i < trunk; ++i) {
      (qwen4 && recurrent[static_cast<std::size_t>(i)] ? linear : attention).layers.push_back(static_cast<int>(i));
    }
    g.model.layer_types = {attention};
    if (!linear.layers.empty()) g.model.layer_types.push_back(linear);
    g.model.layer_type = attention.name;
  }
  if (!indexer.layers.empty()) g.model.layer_types.push_back(indexer);
  std::string counts;
  for (const LayerTypeRope& t : g.model.layer_types)
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", t.layers.size(), t.name);
  g.model.origin.push_back(
      had_types
          ? origin_line(Message::same("indexer"), describe_layers(indexer.layers),
                        msg("llama.cpp's indexer ({0})", rule.source))
          : origin_line(Message::same("layer_types"), counts,
                        indexer.layers.empty()
                            ? msg("llama.cpp: linear attention, no RoPE (src/models/qwen4exp.cpp:127-135, 411-414)")
                            : msg("llama.cpp's indexer ({0})", rule.source)));
}

}  // namespace rope::detail

namespace rope::detail {

void gguf_linear_attention_layers(const GgufFile& f, const std::string& arch, long every_default,
                                  const std::string& source, GgufModel& g) {
  if (!g.model.layer_types.empty()) return;  // no other per-layer rule of these rows
  const long all = gguf_block_count(f, arch, "the linear-attention layers need the layer count");
  const long trunk = std::max(1L, all - whole(f, arch + ".nextn_predict_layers").value_or(0));  // the graph's n_layer
  const std::vector<bool> recurrent = recurrent_layers(f, arch, all, trunk, every_default, false);
  LayerTypeRope attention{"full_attention", {}, true, g.model.rope, msg("rope.freq_base and the scaling keys")};
  LayerTypeRope linear{
      "linear_attention", {}, false, g.model.rope, msg("llama.cpp: linear attention, no RoPE ({0})", source)};
  for (long i = 0; i < trunk; ++i)
    (recurrent[static_cast<std::size_t>(i)] ? linear : attention).layers.push_back(static_cast<int>(i));
  if (linear.layers.empty()) return;  // one RoPE for every layer
  if (attention.layers.empty()) {
    throw InvalidArgument(
        error_msg("{0}: every layer is linear attention: llama.cpp applies no RoPE to any layer of this "
                  "model ({1})",
                  f.name, source));
  }
  g.model.layer_types = {attention, linear};
  g.model.layer_type = attention.name;
  g.model.origin.push_back(
      origin_line(Message::same("layer_types"),
                  fmt::format("{} full_attention, {} linear_attention", attention.layers.size(), linear.layers.size()),
                  msg("llama.cpp: linear attention, no RoPE ({0})", source)));
}

}  // namespace rope::detail
