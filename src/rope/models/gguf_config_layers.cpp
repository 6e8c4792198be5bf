// The per-layer part of gguf_config.hpp's mapping: the layers llama.cpp gives another RoPE (or none), as
// ModelConfig::layer_types (layer_types.hpp), so that the per-layer specs (resolve.hpp ModelRope::layers) and
// --layer-type work for a GGUF as for a config.json.
//
// Gemma 3 (ggml-org/llama.cpp at the node-llama-cpp 3.22.1 bundle, commit de3ff815ea7d):
//   src/models/gemma3.cpp:3-12        sliding layers only when {arch}.attention.sliding_window > 0; their pattern
//                                     load_swa_pattern(ml, 6), their base {arch}.rope.freq_base_swa
//   src/llama-model.cpp:3308-3315     load_swa_pattern: {arch}.attention.sliding_window_pattern, an array of
//                                     bools (per layer) or a number n (default 6)
//   src/llama-hparams.cpp:8-17        set_swa_pattern(n, dense_first = false): layer il slides iff il % n < n − 1
//   src/llama-hparams.h:151-153       rope_freq_base_train_swa = 10000, rope_freq_scale_train_swa = 1
//   src/llama-model.cpp:2251-2257     a sliding layer's RoPE: that base and scale 1, whatever the scaling
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/models/gguf_config.hpp"
#include "rope/models/hf_config.hpp"

namespace rope::detail {

namespace {

/// llama.cpp's default pattern of Gemma 3: five sliding layers, then one full.
constexpr long kGemma3Pattern = 6;
/// llama.cpp's base of the sliding layers when the file has no rope.freq_base_swa.
constexpr double kDefaultSwaBase = 10000.0;
/// Most layers a GGUF is mapped with (a real model has at most a few hundred).
constexpr long kMaxGgufLayers = 4096;

[[noreturn]] void fail(const GgufFile& f, const std::string& k, const std::string& rule) {
  throw InvalidArgument(fmt::format("{}: {}: {}", f.name, k, rule));
}

/// {arch}.attention.sliding_window_pattern as llama.cpp reads it: one bool per layer, else every n-th full.
std::vector<bool> sliding_layers(const GgufFile& f, const std::string& arch, long layers) {
  const std::string k = arch + ".attention.sliding_window_pattern";
  std::vector<bool> slides(static_cast<std::size_t>(layers), false);
  const GgufValue* v = f.find(k);
  if (v && v->type == GgufType::Array) {
    if (v->item_type != GgufType::Bool || v->items.size() != v->count || static_cast<long>(v->count) != layers) {
      fail(f, k, fmt::format("expected an array of {} bools, one per layer", layers));
    }
    for (long i = 0; i < layers; ++i) slides[static_cast<std::size_t>(i)] = v->items[static_cast<std::size_t>(i)].integer != 0;
    return slides;
  }
  long n = kGemma3Pattern;
  if (v) {
    const auto x = v->as_number();
    if (!x || *x < 0 || *x > kMaxGgufLayers || *x != static_cast<double>(static_cast<long>(*x))) {
      fail(f, k, fmt::format("expected a whole number in 0 … {} or an array of bools", kMaxGgufLayers));
    }
    n = static_cast<long>(*x);
  }
  for (long i = 0; i < layers; ++i) slides[static_cast<std::size_t>(i)] = n == 0 || i % n < n - 1;
  return slides;
}

/// {arch}.block_count, required for `why`.
long block_count(const GgufFile& f, const std::string& arch, const char* why) {
  const std::string bk = arch + ".block_count";
  const GgufValue* b = f.find(bk);
  const auto layers = b ? b->as_number() : std::nullopt;
  if (!layers || *layers < 1 || *layers > kMaxGgufLayers || *layers != static_cast<double>(static_cast<long>(*layers))) {
    fail(f, bk, fmt::format("expected a whole number in 1 … {}: {}", kMaxGgufLayers, why));
  }
  return static_cast<long>(*layers);
}

void gemma3(const GgufFile& f, const std::string& arch, GgufModel& g) {
  if (!g.sliding_window || *g.sliding_window == 0) return;  // llama.cpp: no sliding layers at all
  const std::vector<bool> slides = sliding_layers(f, arch, block_count(f, arch, "the sliding layers need the layer count"));
  LayerTypeRope sliding{"sliding_attention", {}, true, {}, {}};
  LayerTypeRope full{"full_attention", {}, true, g.model.rope, msg("rope.freq_base and the scaling keys")};
  for (std::size_t i = 0; i < slides.size(); ++i) (slides[i] ? sliding : full).layers.push_back(static_cast<int>(i));
  const double base = g.freq_base_swa.value_or(kDefaultSwaBase);
  RopeConfig& s = sliding.config;
  s.head_dim = g.model.rope.head_dim;
  s.partial_rotary_factor = g.model.rope.partial_rotary_factor;
  s.layout = g.model.rope.layout;
  s.max_position_embeddings = g.model.rope.max_position_embeddings;
  s.base = base;
  sliding.from = g.freq_base_swa ? msg("{0}.rope.freq_base_swa {1}, no scaling", arch, format_number(base))
                                 : msg("no {0}.rope.freq_base_swa: llama.cpp's base {1}, no scaling", arch, format_number(base));
  if (sliding.layers.empty() || full.layers.empty()) return;  // one RoPE for every layer after all
  g.model.layer_types = {sliding, full};
  g.model.layer_type = "full_attention";
  const std::string pk = arch + ".attention.sliding_window_pattern";
  g.model.origin.push_back(origin_line(Message::same("layer_types"),
                                       fmt::format("{} sliding, {} full", sliding.layers.size(), full.layers.size()),
                                       f.find(pk) ? Message::same(pk)
                                                  : msg("no {0}: llama.cpp's pattern {1}, layer il slides when il % {1} < {2}",
                                                        pk, kGemma3Pattern, kGemma3Pattern - 1)));
}

/// SmolLM3: llama.cpp leaves every fourth layer without RoPE, decided in code with no key
/// (src/models/smollm3.cpp:5 n_no_rope_layer_step = 4, :69 use_rope = (il + 1) % 4 != 0).
void smollm3(const GgufFile& f, const std::string& arch, GgufModel& g) {
  const long layers = block_count(f, arch, "the NoPE layers need the layer count");
  LayerTypeRope rope{"rope", {}, true, g.model.rope, msg("rope.freq_base and the scaling keys")};
  LayerTypeRope nope{"nope", {}, false, g.model.rope, msg("llama.cpp: no RoPE on every fourth layer (SmolLM3)")};
  for (long i = 0; i < layers; ++i) ((i + 1) % 4 != 0 ? rope : nope).layers.push_back(static_cast<int>(i));
  if (nope.layers.empty()) return;
  g.model.layer_types = {rope, nope};
  g.model.layer_type = "rope";
  g.model.origin.push_back(origin_line(Message::same("layer_types"),
                                       fmt::format("{} with RoPE, {} without", rope.layers.size(), nope.layers.size()),
                                       msg("llama.cpp: no RoPE on every fourth layer (SmolLM3)")));
}

}  // namespace

void gguf_layers(const GgufFile& file, const std::string& arch, GgufModel& g) {
  if (arch == "gemma3") gemma3(file, arch, g);
  if (arch == "smollm3") smollm3(file, arch, g);
}

}  // namespace rope::detail
