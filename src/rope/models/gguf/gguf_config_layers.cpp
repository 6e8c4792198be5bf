// The per-layer part of gguf_config.hpp's mapping: the layers llama.cpp gives another RoPE (or none), as
// ModelConfig::layer_types (layer_types.hpp), so that the per-layer specs (resolve.hpp ModelRope::layers) and
// --layer-type (a type's name or a layer index) work for a GGUF as for a config.json. The rules, with the
// llama.cpp source lines each follows: the architecture's row of data/families.json (llama_architectures.hpp).
#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/gguf/gguf_config.hpp"
#include "rope/models/gguf/gguf_config_heads.hpp"
#include "rope/models/gguf/gguf_config_indexer.hpp"
#include "rope/models/hf/hf_config.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/scaling/scaling.hpp"

namespace rope::detail {

namespace {
using SwaRule = LlamaSlidingRule;
using Gate = SwaRule::Gate;
using SwaBase = SwaRule::SwaBase;
using Rotates = SwaRule::Rotates;

/// llama.cpp's base of the sliding layers when the file has no rope.freq_base_swa.
constexpr double kDefaultSwaBase = 10000.0;
/// Most layers a GGUF is mapped with (a real model has at most a few hundred).
constexpr long kMaxGgufLayers = 4096;

[[noreturn]] void fail(const GgufFile& f, const std::string& k, const std::string& rule) {
  throw InvalidArgument(fmt::format("{}: {}: {}", f.name, k, rule));
}

/// {arch}.attention.sliding_window_pattern as llama.cpp reads it: one bool per layer, else every n-th full.
std::vector<bool> sliding_layers(const GgufFile& f, const std::string& arch, long layers, long pattern,
                                 bool dense_first) {
  const std::string k = arch + ".attention.sliding_window_pattern";
  std::vector<bool> slides(static_cast<std::size_t>(layers), false);
  const GgufValue* v = f.find(k);
  if (v && v->type == GgufType::Array) {
    // Bools from convert_hf_to_gguf.py; whole numbers 0 or 1 from llama_model_save_to_file (llama-model-saver.cpp:280).
    bool integers = v->items.size() == v->count;
    for (const GgufValue& x : v->items) integers = integers && (x.type == GgufType::Bool || x.is_integer());
    if (!integers || static_cast<long>(v->count) != layers) {
      fail(f, k, fmt::format("expected an array of {} bools, one per layer", layers));
    }
    for (long i = 0; i < layers; ++i)
      slides[static_cast<std::size_t>(i)] = v->items[static_cast<std::size_t>(i)].integer != 0;
    return slides;
  }
  if (pattern == 0 && !v) return {};  // llama.cpp requires the array: no layer types without it
  long n = pattern;
  if (v) {
    const auto x = v->as_number();
    if (!x || *x < 0 || *x > kMaxGgufLayers || *x != static_cast<double>(static_cast<long>(*x))) {
      fail(f, k, fmt::format("expected a whole number in 0 … {} or an array of bools", kMaxGgufLayers));
    }
    n = static_cast<long>(*x);
  }
  for (long i = 0; i < layers; ++i) {
    slides[static_cast<std::size_t>(i)] = n == 0 || (dense_first ? i % n != 0 : i % n < n - 1);
  }
  return slides;
}

/// Whether llama.cpp gives the architecture sliding layers for this file.
bool gate_open(const GgufFile& f, const std::string& arch, const SwaRule& rule, const GgufModel& g) {
  switch (rule.gate) {
    case Gate::Always:
      return true;
    case Gate::Window:
      return g.sliding_window && *g.sliding_window > 0;
    case Gate::WindowUnlessZero:
      return !g.sliding_window || *g.sliding_window != 0;
    case Gate::Layers64:
      return gguf_block_count(f, arch, "the sliding layers need the layer count") == 64;
  }
  return false;
}

/// Whether layer i turns q and k (the graphs above).
bool rotates(const SwaRule& rule, bool open, const std::vector<bool>& swa, long i, long layers, long lead) {
  switch (rule.rotates) {
    case Rotates::All:
      return true;
    case Rotates::Sliding:
      return !open || swa[static_cast<std::size_t>(i)];
    case Rotates::SlidingOrLead:
      return swa[static_cast<std::size_t>(i)] || i < lead;
    case Rotates::NotEveryFourth:
      return (i + 1) % 4 != 0;
    case Rotates::NotFirstOfFour:
      return !open || i % 4 != 0;
    case Rotates::Llama4:
      return (i + 1) % (open ? 4 : layers) != 0;
  }
  return true;
}

/// The sliding layers' RoPE and where it comes from.
/// {arch}.KEY as a positive whole number, when the file has it.
std::optional<long> count_key(const GgufFile& f, const std::string& k) {
  const GgufValue* v = f.find(k);
  const auto x = v ? v->as_number() : std::nullopt;
  if (!v) return std::nullopt;
  if (!x || *x < 2 || *x > 65536 || *x != static_cast<double>(static_cast<long>(*x)))
    fail(f, k, "expected a whole number in 2 … 65536");
  return static_cast<long>(*x);
}

/// The sliding layers' head and rotary dims when the graph takes them per layer (SwaRule::own_dims).
void own_dims(const GgufFile& f, const std::string& arch, const SwaRule& rule, const GgufModel& g, RopeConfig& s) {
  const long hd = count_key(f, arch + "." + rule.swa_head_key).value_or(g.head_dim);
  // n_rot_swa's default is n_rot_full as the file gives it, before load_arch_hparams (Step 3.5 halves n_rot_full
  // after it: src/llama-model.cpp:1400,1411, step35.cpp:9).
  const long rot = !rule.swa_rot_key ? g.rotary_dim
                                     : count_key(f, arch + ".rope.dimension_count_swa")
                                           .value_or(count_key(f, arch + ".rope.dimension_count").value_or(g.head_dim));
  if (rot % 2 != 0 || rot > hd) {
    fail(f, arch + ".rope.dimension_count_swa",
         fmt::format("{} must be even and at most the sliding head size {}", rot, hd));
  }
  s.head_dim = static_cast<int>(hd);
  s.partial_rotary_factor = gguf_rotary_factor(rot, hd);
}

LayerTypeRope sliding_rope(const SwaRule& rule, const std::string& arch, const GgufModel& g) {
  const double base = rule.base == SwaBase::Global          ? g.model.rope.base
                      : g.freq_base_swa                     ? *g.freq_base_swa
                      : rule.base == SwaBase::KeyElseGlobal ? g.model.rope.base
                                                            : kDefaultSwaBase;
  LayerTypeRope t{"sliding_attention", {}, true, g.model.rope, msg("rope.freq_base and the scaling keys")};
  RopeConfig& s = t.config;
  if (!rule.scaled) {
    s = RopeConfig{};
    s.head_dim = g.model.rope.head_dim;
    s.partial_rotary_factor = g.model.rope.partial_rotary_factor;
    s.layout = g.model.rope.layout;
    s.max_position_embeddings = g.model.rope.max_position_embeddings;
  }
  s.base = base;
  const bool key = rule.base != SwaBase::Global && g.freq_base_swa;
  if (key) {
    t.from = rule.scaled ? msg("{0}.rope.freq_base_swa {1}, with the model's scaling", arch, format_number(base))
                         : msg("{0}.rope.freq_base_swa {1}, no scaling", arch, format_number(base));
  } else if (rule.base == SwaBase::KeyElse10000) {
    t.from = msg("no {0}.rope.freq_base_swa: llama.cpp's base {1}, no scaling", arch, format_number(base));
  } else if (!rule.scaled) {
    t.from = msg("rope.freq_base {0}, no scaling", format_number(base));
  }
  return t;
}

bool same_rope(const RopeConfig& a, const RopeConfig& b) {
  return a.base == b.base && a.type == b.type && a.factor == b.factor && a.attention_factor == b.attention_factor &&
         a.head_dim == b.head_dim && a.partial_rotary_factor == b.partial_rotary_factor;
}

void swa_layers(const GgufFile& f, const std::string& arch, const SwaRule& rule, GgufModel& g) {
  const bool open = gate_open(f, arch, rule, g);
  const bool nope_anyway = rule.rotates == Rotates::NotEveryFourth || rule.rotates == Rotates::Llama4;
  if (!open && !nope_anyway) return;  // llama.cpp: no sliding layers, every layer the same RoPE
  const long layers = gguf_block_count(f, arch, "the sliding layers need the layer count");
  std::vector<bool> swa = open ? sliding_layers(f, arch, layers, rule.pattern, rule.dense_first) : std::vector<bool>{};
  if (open && swa.empty()) return;  // the array llama.cpp requires is missing
  if (swa.empty()) swa.assign(static_cast<std::size_t>(layers), false);
  const GgufValue* lead_key = f.find(arch + ".leading_dense_block_count");
  const long lead = lead_key && lead_key->as_number() ? static_cast<long>(*lead_key->as_number()) : 0;
  bool any_swa = false;
  for (bool s : swa) any_swa = any_swa || s;
  LayerTypeRope sliding = sliding_rope(rule, arch, g);
  if (rule.own_dims) own_dims(f, arch, rule, g, sliding.config);
  const LayerTypeRope full{"full_attention", {}, true, g.model.rope, msg("rope.freq_base and the scaling keys")};
  const std::string swa_name = rule.rotates == Rotates::Llama4 ? "chunked_attention" : "sliding_attention";
  // One type per (slides, rotates), in the order of their first layer.
  std::vector<LayerTypeRope> types;
  std::vector<std::pair<bool, bool>> keys;
  for (long i = 0; i < layers; ++i) {
    const bool s = swa[static_cast<std::size_t>(i)], r = rotates(rule, open, swa, i, layers, lead);
    std::size_t k = 0;
    while (k < keys.size() && keys[k] != std::make_pair(s, r)) ++k;
    if (k == keys.size()) {
      keys.emplace_back(s, r);
      types.push_back(s ? sliding : full);
      types.back().name = any_swa ? (s ? swa_name : std::string("full_attention")) : std::string("rope");
      if (!r) {
        types.back().rope = false;
        types.back().from = msg("llama.cpp: no RoPE in these layers ({0})", rule.source);
      }
    }
    types[k].layers.push_back(static_cast<int>(i));
  }
  // A class of layers with and without RoPE: the ones without are named apart.
  for (std::size_t k = 0; k < types.size(); ++k) {
    bool mixed = false;
    for (std::size_t j = 0; j < keys.size(); ++j) mixed = mixed || (j != k && keys[j].first == keys[k].first);
    if (!keys[k].second) types[k].name = !any_swa ? "nope" : mixed ? types[k].name + "_nope" : types[k].name;
  }
  bool differ = types.size() > 1;
  if (types.size() == 2 && types[0].rope && types[1].rope && same_rope(types[0].config, types[1].config))
    differ = false;
  if (!differ) return;  // one RoPE for every layer after all
  // The type the values without --layer-type are: the first full one with RoPE, else the first with RoPE.
  const LayerTypeRope* pick = nullptr;
  for (std::size_t k = 0; k < types.size(); ++k) {
    if (types[k].rope && !keys[k].first && !pick) pick = &types[k];
  }
  for (std::size_t k = 0; k < types.size(); ++k) {
    if (types[k].rope && !pick) pick = &types[k];
  }
  g.model.layer_types = types;
  if (pick) {
    g.model.layer_type = pick->name;
    if (!same_rope(pick->config, g.model.rope)) {
      g.model.rope = pick->config;
      g.model.notes.push_back(msg("only the layers {0} ({1}) turn q and k: the values here are theirs",
                                  describe_layers(pick->layers), pick->name));
    }
  }
  std::string counts;
  for (const LayerTypeRope& t : types)
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", t.layers.size(), t.name);
  const std::string pk = arch + ".attention.sliding_window_pattern";
  g.model.origin.push_back(origin_line(
      Message::same("layer_types"), counts,
      !any_swa           ? msg("llama.cpp: no RoPE in these layers ({0})", rule.source)
      : f.find(pk)       ? Message::same(pk)
      : rule.dense_first ? msg("no {0}: llama.cpp's pattern {1}, layer il is full when il % {1} = 0", pk, rule.pattern)
                         : msg("no {0}: llama.cpp's pattern {1}, layer il slides when il % {1} < {2}", pk, rule.pattern,
                               rule.pattern - 1)));
  if (rule.rotates == Rotates::Llama4 && open) {
    g.model.nope_temperature = NopeTemperature{8192.0, 0.1};  // llama4.cpp:15-17, llama-graph.cpp:157-170
  } else if (rule.rotates == Rotates::Llama4) {
    // Tried on libllama: decoding such a file aborts there (llama_pipeline.cpp's model with sliding_window 0).
    g.model.notes.push_back(
        msg("{0}.attention.sliding_window 0: llama.cpp's graph leaves the last layer ({1}) without RoPE "
            "(n_no_rope_layer_step = the layer count, {2}) and scales its query by a temperature of "
            "scale 0, which aborts llama.cpp's first decode (GGML_ASSERT, src/llama-graph.cpp:161)",
            arch, layers - 1, rule.source));
  }
}

/// SmolLM3: llama.cpp leaves every fourth layer without RoPE, decided in code with no key (the row's nope_every and
/// layers_source: src/models/smollm3.cpp:5 n_no_rope_layer_step = 4, :69 use_rope = (il + 1) % 4 != 0).
void nope_every(const GgufFile& f, const std::string& arch, long every, GgufModel& g) {
  const long layers = gguf_block_count(f, arch, "the NoPE layers need the layer count");
  LayerTypeRope rope{"rope", {}, true, g.model.rope, msg("rope.freq_base and the scaling keys")};
  LayerTypeRope nope{"nope", {}, false, g.model.rope, msg("llama.cpp: no RoPE on every fourth layer (SmolLM3)")};
  for (long i = 0; i < layers; ++i) ((i + 1) % every != 0 ? rope : nope).layers.push_back(static_cast<int>(i));
  if (nope.layers.empty()) return;
  g.model.layer_types = {rope, nope};
  g.model.layer_type = "rope";
  g.model.origin.push_back(origin_line(Message::same("layer_types"),
                                       fmt::format("{} with RoPE, {} without", rope.layers.size(), nope.layers.size()),
                                       msg("llama.cpp: no RoPE on every fourth layer (SmolLM3)")));
}

}  // namespace

double gguf_rotary_factor(long rot, long head) {
  double factor = static_cast<double>(rot) / static_cast<double>(head);
  for (int i = 0; i < 4 && static_cast<long>(static_cast<double>(head) * factor) < rot; ++i)
    factor = std::nextafter(factor, 2.0);
  return factor;
}

long gguf_block_count(const GgufFile& f, const std::string& arch, const char* why) {
  const std::string bk = arch + ".block_count";
  const GgufValue* b = f.find(bk);
  const auto layers = b ? b->as_number() : std::nullopt;
  if (!layers || *layers < 1 || *layers > kMaxGgufLayers ||
      *layers != static_cast<double>(static_cast<long>(*layers))) {
    throw InvalidArgument(fmt::format("{}: {}: {}", f.name, bk,
                                      fmt::format("expected a whole number in 1 … {}: {}", kMaxGgufLayers, why)));
  }
  return static_cast<long>(*layers);
}

/// Granite SWA: {arch}.attention.rope_pattern (the row's rope_pattern_key), one bool per layer (1: RoPE), when the file
/// has it (src/models/granite-swa.cpp:43, :211 has_rope(il); conversion/granite.py:115-119 writes HF's no_rope_layers).
static void rope_pattern(const GgufFile& f, const std::string& arch, const std::string& key, GgufModel& g) {
  const std::string k = arch + "." + key;
  const GgufValue* v = f.find(k);
  if (!v) return;
  const long layers = gguf_block_count(f, arch, "the NoPE layers need the layer count");
  bool ok = v->type == GgufType::Array && v->items.size() == v->count && static_cast<long>(v->count) == layers;
  for (const GgufValue& x : v->items) ok = ok && (x.type == GgufType::Bool || x.is_integer());
  if (!ok) fail(f, k, fmt::format("expected an array of {} bools, one per layer", layers));
  LayerTypeRope rope{"rope", {}, true, g.model.rope, msg("rope.freq_base and the scaling keys")};
  LayerTypeRope nope{"nope", {}, false, g.model.rope, Message::same(k)};
  for (long i = 0; i < layers; ++i)
    (v->items[static_cast<std::size_t>(i)].integer != 0 ? rope : nope).layers.push_back(static_cast<int>(i));
  if (nope.layers.empty() || rope.layers.empty()) {
    if (rope.layers.empty()) fail(f, k, "every layer false: llama.cpp applies no RoPE to any layer of this model");
    return;
  }
  g.model.layer_types = {rope, nope};
  g.model.layer_type = "rope";
  g.model.origin.push_back(origin_line(Message::same("layer_types"),
                                       fmt::format("{} with RoPE, {} without", rope.layers.size(), nope.layers.size()),
                                       Message::same(k)));
}

void gguf_layers(const GgufFile& file, const std::string& arch, GgufModel& g) {
  // The architecture's rules: its row of data/families.json (gguf_model has found it).
  const GgufArchitecture& row = *find_gguf_architecture(arch);
  const SwaRule* rule = row.sliding ? &*row.sliding : nullptr;
  if (rule) swa_layers(file, arch, *rule, g);
  if (row.nope_every > 0) nope_every(file, arch, row.nope_every, g);
  if (row.linear_attention_every > 0)
    gguf_linear_attention_layers(file, arch, row.linear_attention_every, row.layers_source, g);
  if (row.layers_code == "deepseek4") gguf_deepseek4_layers(file, arch, g);
  if (row.layers_code == "dflash") gguf_dflash_layers(file, arch, g);
  if (row.layers_code == "hy_v4") gguf_hy_v4_indexer(file, arch, g);
  if (row.indexer) gguf_indexer(file, arch, *row.indexer, g);
  if (!row.rope_pattern_key.empty()) rope_pattern(file, arch, row.rope_pattern_key, g);
  gguf_layers_without_attention(file, arch, g);  // any architecture: a layer without key/value heads has no RoPE
  if (!g.freq_base_swa) return;
  const std::string swa = format_number(*g.freq_base_swa);
  bool slides = false;
  for (const LayerTypeRope& t : g.model.layer_types)
    slides = slides || t.name.rfind("sliding", 0) == 0 || t.name.rfind("chunked", 0) == 0;
  if (rule && rule->base == SwaBase::Global) {
    g.model.notes.push_back(
        msg("rope.freq_base_swa {0}: llama.cpp reads it for {1}, but its graph turns the sliding-window "
            "layers with rope.freq_base ({2})",
            swa, arch, rule->source));
  } else if (slides && g.model.layer_type != "full_attention") {
    return;  // the layers with RoPE all slide: the note above says the values are theirs
  } else if (slides) {
    g.model.notes.push_back(rule->scaled
                                ? msg("rope.freq_base_swa {0}: the sliding-window layers use base {0} with the "
                                      "model's scaling; the values here are the full-attention layers'",
                                      swa)
                                : msg("rope.freq_base_swa {0}: the sliding-window layers use base {1} without "
                                      "scaling; the values here are the full-attention layers'",
                                      swa, swa));
  } else if (rule) {
    g.model.notes.push_back(
        msg("rope.freq_base_swa {0}: no layer of this file slides, so llama.cpp turns every layer with "
            "the values here",
            swa));
  } else {  // every architecture that reads the key has a sliding rule (tests/conformance/llama_rope_types.py checks
            // it)
    g.model.notes.push_back(
        msg("rope.freq_base_swa {0}: llama.cpp does not read this key for {1}, it changes nothing", swa, arch));
  }
}

}  // namespace rope::detail
