// The per-layer part of gguf_config.hpp's mapping: the layers llama.cpp gives another RoPE (or none), as
// ModelConfig::layer_types (layer_types.hpp), so that the per-layer specs (resolve.hpp ModelRope::layers) and
// --layer-type work for a GGUF as for a config.json.
//
// The architectures whose sliding layers llama.cpp turns with their own base (ggml-org/llama.cpp at the
// node-llama-cpp 3.22.1 bundle, commit de3ff815ea7d; each graph takes model.get_rope_freq_base(cparams, il)):
//   src/models/gemma3.cpp:3-12        sliding layers only when {arch}.attention.sliding_window > 0; their pattern
//                                     load_swa_pattern(ml, 6), their base {arch}.rope.freq_base_swa
//   src/models/gemma2.cpp:3-12        load_swa_pattern(ml, 2); base_swa = freq_base, scale_swa = the scaling's,
//                                     then {arch}.rope.freq_base_swa when the file has it
//   src/models/gemma3n.cpp:3-10       load_swa_pattern(ml, 5); {arch}.rope.freq_base_swa, else 10000, unscaled
//   src/models/openai-moe.cpp:3-14    gpt-oss: load_swa_pattern(ml, 2); as gemma2
//   src/models/plamo3.cpp:3-12        only when sliding_window > 0; load_swa_pattern(ml, 8); as gemma3
//   src/models/mimo2.cpp:3-13         the pattern only as an array; {arch}.rope.freq_base_swa, else 10000, unscaled
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

/// How an architecture's sliding layers are turned (the sources above).
struct SwaRule {
  const char* arch;
  long pattern;         ///< load_swa_pattern's default n (0: the file's array of bools only)
  bool needs_window;    ///< sliding layers only when {arch}.attention.sliding_window > 0
  bool base_is_global;  ///< without rope.freq_base_swa: the file's rope.freq_base (else 10000)
  bool scaled;          ///< the sliding layers keep the scaling (rope_freq_scale_train_swa = rope_freq_scale_train)
};
constexpr SwaRule kSwaRules[] = {
    {"gemma2", 2, false, true, true},   {"gemma3", 6, true, false, false}, {"gemma3n", 5, false, false, false},
    {"gpt-oss", 2, false, true, true},  {"plamo3", 8, true, false, false}, {"mimo2", 0, false, false, false},
};
/// The architectures whose load_arch_hparams reads {arch}.rope.freq_base_swa (src/models/*.cpp, LLM_KV_ROPE_FREQ_BASE_SWA);
/// for any other llama.cpp never reads the key (llama_model_save_to_file writes it for every model).
constexpr const char* kReadsFreqBaseSwa[] = {
    "afmoe",  "cohere2", "cohere2moe", "dflash", "dots3note", "exaone-moe", "exaone4", "gemma-embedding", "gemma2",
    "gemma3", "gemma3n", "gemma4-assistant", "gemma4", "laguna", "llama4", "maple", "mellum", "mimo2", "modern-bert",
    "muse-glimmer", "olmo2", "gpt-oss", "plamo3", "smallthinker", "spark2_5", "step35"};
/// llama.cpp's base of the sliding layers when the file has no rope.freq_base_swa.
constexpr double kDefaultSwaBase = 10000.0;
/// Most layers a GGUF is mapped with (a real model has at most a few hundred).
constexpr long kMaxGgufLayers = 4096;

[[noreturn]] void fail(const GgufFile& f, const std::string& k, const std::string& rule) {
  throw InvalidArgument(fmt::format("{}: {}: {}", f.name, k, rule));
}

/// {arch}.attention.sliding_window_pattern as llama.cpp reads it: one bool per layer, else every n-th full.
std::vector<bool> sliding_layers(const GgufFile& f, const std::string& arch, long layers, long pattern) {
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
    for (long i = 0; i < layers; ++i) slides[static_cast<std::size_t>(i)] = v->items[static_cast<std::size_t>(i)].integer != 0;
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

void swa_layers(const GgufFile& f, const std::string& arch, const SwaRule& rule, GgufModel& g) {
  if (rule.needs_window && (!g.sliding_window || *g.sliding_window == 0)) return;  // llama.cpp: no sliding layers at all
  const std::vector<bool> slides =
      sliding_layers(f, arch, block_count(f, arch, "the sliding layers need the layer count"), rule.pattern);
  LayerTypeRope sliding{"sliding_attention", {}, true, {}, {}};
  LayerTypeRope full{"full_attention", {}, true, g.model.rope, msg("rope.freq_base and the scaling keys")};
  for (std::size_t i = 0; i < slides.size(); ++i) (slides[i] ? sliding : full).layers.push_back(static_cast<int>(i));
  const double base = g.freq_base_swa.value_or(rule.base_is_global ? g.model.rope.base : kDefaultSwaBase);
  RopeConfig& s = sliding.config;
  if (rule.scaled) {
    if (base == g.model.rope.base) return;  // the sliding layers turn as the others
    s = g.model.rope;
  } else {
    s.head_dim = g.model.rope.head_dim;
    s.partial_rotary_factor = g.model.rope.partial_rotary_factor;
    s.layout = g.model.rope.layout;
    s.max_position_embeddings = g.model.rope.max_position_embeddings;
  }
  s.base = base;
  sliding.from = rule.scaled ? msg("{0}.rope.freq_base_swa {1}, with the model's scaling", arch, format_number(base))
                 : g.freq_base_swa ? msg("{0}.rope.freq_base_swa {1}, no scaling", arch, format_number(base))
                                   : msg("no {0}.rope.freq_base_swa: llama.cpp's base {1}, no scaling", arch, format_number(base));
  if (sliding.layers.empty() || full.layers.empty()) return;  // one RoPE for every layer after all
  g.model.layer_types = {sliding, full};
  g.model.layer_type = "full_attention";
  const std::string pk = arch + ".attention.sliding_window_pattern";
  g.model.origin.push_back(origin_line(Message::same("layer_types"),
                                       fmt::format("{} sliding, {} full", sliding.layers.size(), full.layers.size()),
                                       f.find(pk) ? Message::same(pk)
                                                  : msg("no {0}: llama.cpp's pattern {1}, layer il slides when il % {1} < {2}",
                                                        pk, rule.pattern, rule.pattern - 1)));
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
  const SwaRule* rule = nullptr;
  for (const SwaRule& r : kSwaRules) rule = arch == r.arch ? &r : rule;
  if (rule) swa_layers(file, arch, *rule, g);
  if (arch == "smollm3") smollm3(file, arch, g);
  if (!g.freq_base_swa) return;
  const std::string swa = format_number(*g.freq_base_swa);
  bool reads = false;
  for (const char* a : kReadsFreqBaseSwa) reads = reads || arch == a;
  if (!g.model.layer_types.empty() && rule) {
    g.model.notes.push_back(rule->scaled ? msg("rope.freq_base_swa {0}: the sliding-window layers use base {0} with the "
                                                "model's scaling; the values here are the full-attention layers'", swa)
                                          : msg("rope.freq_base_swa {0}: the sliding-window layers use base {1} without "
                                                "scaling; the values here are the full-attention layers'", swa, swa));
  } else if (rule) {
    g.model.notes.push_back(msg("rope.freq_base_swa {0}: no layer of this file slides, so llama.cpp turns every layer with "
                                "the values here", swa));
  } else if (reads) {
    g.model.notes.push_back(msg("rope.freq_base_swa {0}: llama.cpp may turn the sliding-window layers of {1} with this "
                                "base; rope does not model them, the values here are the other layers'", swa, arch));
  } else {
    g.model.notes.push_back(msg("rope.freq_base_swa {0}: llama.cpp does not read this key for {1}, it changes nothing", swa, arch));
  }
}

}  // namespace rope::detail
