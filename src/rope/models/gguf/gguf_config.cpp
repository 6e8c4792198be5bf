#include "rope/models/gguf/gguf_config.hpp"
#include "rope/models/gguf/gguf_config_heads.hpp"
#include "rope/models/model_folder.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <numeric>

#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/io/text_file.hpp"
#include "rope/models/hf/hf_config.hpp"
#include "rope/models/scaling/scaling.hpp"

// Sources (ggml-org/llama.cpp): the key names of src/llama-arch.cpp (LLM_KV_NAMES, LLM_ARCH_NAMES) and
// gguf-py/gguf/constants.py; how they are read and their defaults, src/llama-model.cpp load_hparams
// (freq_base 10000, scaling type "linear" when absent with factor 0 meaning none, scaling.factor else the
// legacy scale_linear, n_ctx_orig_yarn = context_length unless original_context_length is given, n_rot =
// dimension_count else the head size); the rope type per architecture and what llama.cpp decides for it in code,
// data/families.json's llama_cpp rows (llama_architectures.hpp); what the
// converter writes, convert_hf_to_gguf.py (Llama 3.1's factors as the rope_freqs tensor, Phi-3's as
// rope_factors_long/short with attn_factor, DeepSeek-2's yarn_log_multiplier = 0.1·mscale_all_dim).

namespace rope {

namespace {

using T = GgufRopeType;

class Mapper {
 public:
  explicit Mapper(const GgufFile& f) : f_(f) { g_.model.name = f.name; }
  GgufModel run();

 private:
  [[noreturn]] void fail(const std::string& key, const std::string& rule) const {
    throw InvalidArgument(fmt::format("{}: {}: {}", f_.name, key, rule));
  }
  std::string key(std::string_view k) const { return fmt::format("{}.{}", arch_, k); }
  /// A number under `k` (nullopt when absent); a string, array or bool there is an error.
  std::optional<double> number(const std::string& k) const {
    const GgufValue* v = f_.find(k);
    if (!v) return std::nullopt;
    const auto x = v->as_number();
    if (!x) fail(k, fmt::format("expected a number, got {}", to_string(v->type)));
    if (!std::isfinite(*x)) fail(k, fmt::format("expected a finite number, got {}", format_number(*x)));
    return x;
  }
  std::optional<long> count(const std::string& k, long max = 1L << 30) const {
    const auto x = number(k);
    if (!x) return std::nullopt;
    if (*x < 0 || *x > static_cast<double>(max) || std::floor(*x) != *x) {
      fail(k, fmt::format("expected a whole number in 0 … {}, got {}", max, format_number(*x)));
    }
    return static_cast<long>(*x);
  }
  /// "what: value (from)"; `from` is a key (the same in every language), or words of their own.
  void origin(std::string_view what, const std::string& value, const Message& from) {
    g_.model.origin.push_back(detail::origin_line(Message::same(std::string(what)), value, from));
  }
  void origin(std::string_view what, const std::string& value, const std::string& from) {
    origin(what, value, Message::same(from));
  }
  void note(Message message) { g_.model.notes.push_back(std::move(message)); }

  void architecture();
  void shape();
  void base_and_context();
  void sections();

  const GgufFile& f_;
  GgufModel g_;
  std::string arch_;
  const GgufArchitecture* arch_row_ = nullptr;  ///< its row of data/families.json (llama_architectures.hpp)
};

void Mapper::architecture() {
  const GgufValue* a = f_.find("general.architecture");
  if (!a) fail("general.architecture", "missing: a GGUF model names its architecture");
  if (a->type != GgufType::String)
    fail("general.architecture", fmt::format("expected a string, got {}", to_string(a->type)));
  arch_ = a->text;
  g_.architecture = arch_;
  g_.model.model_type = printable(arch_);
  const GgufArchitecture* it = find_gguf_architecture(arch_);
  if (!it) {
    std::vector<std::string_view> names;
    for (const auto& x : gguf_architectures())
      if (x.type != T::None) names.push_back(x.name);
    fail("general.architecture",
         fmt::format("'{}' is not an architecture rope maps (it maps: {})", printable(arch_), fmt::join(names, ", ")));
  }
  arch_row_ = it;
  if (it->type == T::None) fail("general.architecture", fmt::format("'{}': llama.cpp applies no RoPE to it", arch_));
  // A key that switches RoPE off in every layer when false (Granite's rope.scaling.finetuned: the row's source).
  if (!it->rope_off_when_false.empty()) {
    const GgufValue* ft = f_.find(key(it->rope_off_when_false));
    if (ft && ft->type == GgufType::Bool && ft->integer == 0) {
      fail(key(it->rope_off_when_false), "false: llama.cpp applies no RoPE to any layer of this model");
    }
  }
  const GgufValue* s = f_.find(key("rope.dimension_sections"));
  // llama_hparams::use_mrope (src/llama-hparams.cpp:351-353): the first two sections both nonzero.
  bool use_mrope =
      s && s->type == GgufType::Array && s->items.size() >= 2 && s->items[0].integer > 0 && s->items[1].integer > 0;
  if (it->sections_any && s && s->type == GgufType::Array) {
    // DFlash: MROPE when any section is nonzero (drafts for M-RoPE targets carry [n_rot/2, 0, 0, 0]).
    for (const GgufValue& x : s->items) use_mrope = use_mrope || x.integer != 0;
  }
  g_.rope_type = use_mrope ? it->with_sections : it->type;
  if (!use_mrope && detail::gguf_dflash_dspark(f_, arch_))
    g_.rope_type = T::Norm;  // DSpark: the row's rope_type_condition
  const bool norm = g_.rope_type == T::Norm;
  g_.model.rope.layout = norm ? Layout::Interleaved : Layout::Half;
  // Known from the file, as llama.cpp knows it: the architecture's rope type (the spec's "how it is known").
  g_.model.layout_basis = LayoutBasis::ConfigKey;
  g_.model.layout_reason = msg("llama.cpp rope type {0} of architecture {1}", to_string(g_.rope_type), arch_);
  origin("layout", norm ? "interleaved" : "half", g_.model.layout_reason);
  if (!it->tested) {
    note(msg("architecture {0}: its rope type is from llama.cpp's table; rope's tests do not cover it", arch_));
  }
  if (norm && it->converter_permutes_qk) {
    note(
        msg("NORM: llama.cpp rotates adjacent pairs (2i, 2i+1); convert_hf_to_gguf.py permuted the rows of q_proj and "
            "k_proj so that this equals Hugging Face's rotate_half on the original weights (rope permute)"));
  }
}

void Mapper::shape() {
  // One number, or one per layer (llama_model_loader::get_key_or_arr): llama.cpp's n_head() is layer 0's, the head
  // size n_embd / n_head() (src/llama-model.cpp:1328-1336, 1371); the attention shape is the first layer's with
  // key/value heads (a layer without has no attention: gguf_config_heads.hpp).
  const long layers = count(key("block_count")).value_or(0);
  const auto heads = detail::gguf_heads_per_layer(f_, key("attention.head_count"), layers);
  const auto heads_kv = detail::gguf_heads_per_layer(f_, key("attention.head_count_kv"), layers);
  g_.n_head = heads ? heads->front() : 0;
  long kv = 0;
  for (const long x : heads_kv.value_or(std::vector<long>{})) {
    if (kv == 0) kv = x;
  }
  g_.n_head_kv = kv > 0 ? kv : g_.n_head;
  long hd = 0;
  // DeepSeek-2 with MLA (key_length_mla and value_length_mla given, llama_hparams::is_mla): key_length is the
  // compressed latent plus the rotary part (512 + 64); the head RoPE sees is key_length_mla (128 + 64), and its
  // RoPE nodes q_pe/k_pe hold the rotary channels alone (src/models/deepseek2.cpp:546-553, 527-535 at de3ff815ea7d).
  const auto mla = arch_row_->key_length_mla ? count(key("attention.key_length_mla")) : std::nullopt;
  if (mla && *mla > 0) {
    hd = *mla;
    origin("head_dim", std::to_string(hd), key("attention.key_length_mla"));
    note(
        msg("MLA: {0} {1} is the compressed latent and the rotary part; llama.cpp's RoPE nodes q_pe and k_pe hold the "
            "rotary channels alone (check such a dump with d = rope.dimension_count)",
            key("attention.key_length"), count(key("attention.key_length")).value_or(0)));
  } else if (const auto kl = count(key("attention.key_length"))) {
    hd = *kl;
    origin("head_dim", std::to_string(hd), key("attention.key_length"));
  } else {
    const auto embd = count(key("embedding_length"));
    if (!embd || g_.n_head == 0) {
      fail(key("attention.key_length"), "missing, and embedding_length / head_count cannot replace it");
    }
    if (*embd % g_.n_head != 0) {
      fail(key("embedding_length"), fmt::format("{} is not a multiple of head_count {}", *embd, g_.n_head));
    }
    hd = *embd / g_.n_head;
    origin("head_dim", std::to_string(hd),
           fmt::format("{} {} / {} {}", key("embedding_length"), *embd, key("attention.head_count"), g_.n_head));
  }
  if (hd < 2 || hd > 65536) fail(key("attention.key_length"), fmt::format("head size {} is outside 2 … 65536", hd));
  long rot = hd;
  if (const auto dc = count(key("rope.dimension_count"))) {
    rot = *dc;
    if (rot < 2 || rot % 2 != 0 || rot > hd) {
      fail(key("rope.dimension_count"),
           fmt::format("{} must be even, at least 2 and at most the head size {}", rot, hd));
    }
  }
  if (const long n = arch_row_->full_rotary_divisor; n != 1) {
    // Step 3.5: "full_attention layer only use half of the RoPE dimensions" (src/models/step35.cpp:8-9,
    // n_rot_full / 2 after the file's n_rot is read); its sliding layers keep the whole (gguf_config_layers.cpp).
    if (rot % n != 0 || (rot / n) % 2 != 0)
      fail(key("rope.dimension_count"), fmt::format("{}: Step 3.5's full layers would rotate an odd {}", rot, rot / n));
    rot /= n;
    origin("rotary_dim", std::to_string(rot),
           msg("llama.cpp: Step 3.5's full layers rotate rope.dimension_count / 2 channels"));
  }
  g_.head_dim = static_cast<int>(hd);
  g_.rotary_dim = static_cast<int>(rot);
  if ((arch_row_->last_channels || detail::gguf_dflash_dspark(f_, arch_)) && rot < hd) {
    // llama.cpp rotates the LAST n_rot channels: ggml_rope_set_offset(Qcur, n_embd_head_qk_nope)
    // (src/models/deepseek2.cpp: 615-617, deepseek4.cpp:923-935, minicpm3.cpp:165-170, plm.cpp:136-141,
    // dflash.cpp:895-897), or q_pe/k_pe views of them (deepseek2.cpp:546-553, deepseek32.cpp:335-362,
    // glm-dsa.cpp:379-381, bailingmoe3.cpp:313-319, hy-v4.cpp:290-305, dots3note.cpp:309-339); HF's DeepSeek splits
    // [nope, rope] alike.
    g_.model.qk_nope_head_dim = static_cast<int>(hd - rot);
    origin("qk_nope_head_dim", std::to_string(hd - rot),
           msg("head_dim − rope.dimension_count: llama.cpp rotates the last channels"));
  }
  g_.model.rope.head_dim = g_.head_dim;
  const double factor = detail::gguf_rotary_factor(rot, hd);
  g_.model.rope.partial_rotary_factor = factor;
  origin("partial_rotary_factor", fmt::format("{} = {} / {}", format_number(factor), rot, hd),
         f_.find(key("rope.dimension_count")) ? Message::same(key("rope.dimension_count"))
                                              : msg("no rope.dimension_count: n_rot = head_dim"));
}

void Mapper::base_and_context() {
  if (const auto b = number(key("rope.freq_base"))) {
    g_.model.rope.base = *b;
    origin("rope_theta", format_number(*b), key("rope.freq_base"));
  } else {
    g_.model.rope.base = 10000.0;
    origin("rope_theta", "10000", msg("llama.cpp default"));
  }
  if (const auto c = count(key("context_length"))) {
    g_.model.rope.max_position_embeddings = *c;
    origin("max_position_embeddings", std::to_string(*c), key("context_length"));
  }
  if (const auto swa = number(key("rope.freq_base_swa"))) {
    g_.freq_base_swa = *swa;
    origin("freq_base_swa", format_number(*swa), key("rope.freq_base_swa"));  // its note: gguf_config_layers.cpp
  }
  if (const auto w = count(key("attention.sliding_window"))) g_.sliding_window = *w;
}

void Mapper::sections() {
  const std::string k = key("rope.dimension_sections");
  const GgufValue* s = f_.find(k);
  if (!s) return;
  if (s->type != GgufType::Array || !(s->items.size() == s->count) || s->count == 0 || s->count > 4) {
    fail(k, "expected an array of 1 to 4 whole numbers");
  }
  for (const GgufValue& x : s->items) {
    if (!x.is_integer() || x.integer < 0 || x.integer > 65536)
      fail(k, "expected an array of whole numbers in 0 … 65536");
    g_.sections.push_back(static_cast<long>(x.integer));
  }
  const long sum = std::accumulate(g_.sections.begin(), g_.sections.end(), 0L);
  if (sum == 0 && g_.rope_type != T::Mrope && g_.rope_type != T::Imrope) {
    // llama_model_save_to_file writes the key for every model; llama.cpp uses sections only when the first two
    // are > 0 (llama_hparams::use_mrope, src/llama-hparams.cpp:351-353).
    note(msg("{0} [{1}]: no sections (llama.cpp uses them only when the first two are above 0)", k,
             fmt::format("{}", fmt::join(g_.sections, ", "))));
    g_.sections.clear();
    return;
  }
  if (sum != g_.rotary_dim / 2) {
    fail(k, fmt::format("the sections [{}] add up to {}, not rotary_dim / 2 = {}: every pair belongs to one section",
                        fmt::join(g_.sections, ", "), sum, g_.rotary_dim / 2));
  }
  origin("mrope_section", fmt::format("[{}]", fmt::join(g_.sections, ", ")), k);
  if (g_.rope_type == T::Mrope || g_.rope_type == T::Imrope) {  // the axis map of axes.hpp (A2), (A4)
    MropeSections ms;
    for (long x : g_.sections) ms.sections.push_back(static_cast<int>(x));
    ms.order = g_.rope_type == T::Imrope ? SectionOrder::GgmlImrope : SectionOrder::GgmlMrope;
    g_.model.mrope = ms;
    // The position ids of a text + image sequence need the vision tower's rules (spatial_merge_size and, for
    // Qwen2.5-VL, tokens_per_second), which live in the mmproj file, not in the language model's GGUF (and
    // architecture qwen2vl serves Qwen2-VL and Qwen2.5-VL alike): rope positions says so instead of guessing.
    g_.model.sequence_positions_error = fmt::format(
        "{} is a GGUF language model (architecture {}): the rules of its position ids (spatial_merge_size, and "
        "tokens_per_second for Qwen2.5-VL) are in the vision model's mmproj file, not here; give {} qwen2-vl-7b, "
        "qwen2.5-vl-7b or qwen3-vl-8b, the model's config.json, or the rules ({}, {}) without {}",
        g_.model.name, printable(arch_), option_name("model"), option_name("merge_size"),
        option_name("tokens_per_second"), option_name("config"));
  }
  note(
      msg("{0}: pairs follow the temporal, height and width positions in sections of [{1}] pairs{2}; a text-only "
          "input has the same position on every axis, so the frequencies below are what it sees",
          to_string(g_.rope_type), fmt::format("{}", fmt::join(g_.sections, ", ")),
          g_.rope_type == T::Imrope ? msg(", interleaved (pair i follows axis i mod 3 within the sections)")
                                    : Message::same("")));
  if (g_.model.mrope) {
    // llama.cpp gives a text token the position (p, p, p, 0) (src/llama-graph.cpp:131-140): pairs of slot e stay put.
    const AxisMap map = make_axis_map(*g_.model.mrope, g_.rotary_dim / 2);
    std::vector<int> e;
    for (std::size_t j = 0; j < map.pair_axis.size(); ++j) {
      if (map.pair_axis[j] == 3) e.push_back(static_cast<int>(j));
    }
    if (!e.empty()) {
      note(msg(
          "llama.cpp gives a text token the position (p, p, p, 0): pairs {0} read the fourth slot e and do not turn "
          "for text; one number p here means the same (p, p, p, 0)",
          fmt::format("{}", fmt::join(e, ", "))));
    }
  }
}

}  // namespace

GgufModel Mapper::run() {
  architecture();
  shape();
  base_and_context();
  sections();
  detail::gguf_scaling(f_, arch_, g_);
  detail::gguf_layers(f_, arch_, g_);
  detail::gguf_attention_scale(f_, arch_, g_);
  return std::move(g_);
}

GgufModel gguf_model(const GgufFile& file) { return Mapper(file).run(); }

const std::vector<std::string>& gguf_rope_tensor_names() {
  static const std::vector<std::string> names{kGgufRopeFreqs, kGgufRopeFactorsLong, kGgufRopeFactorsShort,
                                              "rope_freqs",   "rope_factors_long",  "rope_factors_short"};
  return names;
}

GgufModel read_gguf_model(const std::string& path) { return gguf_model(read_gguf(path, gguf_rope_tensor_names())); }

AttentionShape read_attention_shape(const std::string& given) {
  const std::string path = model_config_file(given);
  AttentionShape a;
  if (is_gguf_file(path)) {
    GgufModel g = read_gguf_model(path);
    if (g.n_head < 1)
      throw InvalidArgument(error_msg("{0}: {1}.attention.head_count: missing or 0", path, g.architecture));
    a.n_head = g.n_head;
    a.n_head_kv = g.n_head_kv;
    a.gguf = true;
    a.architecture = g.architecture;
    return a;
  }
  read_model_config(path);  // checks the file and its RoPE keys first
  const nlohmann::json doc = nlohmann::json::parse(read_file_bounded(path, kMaxConfigBytes).text, nullptr, false);
  const nlohmann::json& c = doc.contains("text_config") && doc["text_config"].is_object() ? doc["text_config"] : doc;
  const auto count = [&](const char* k) -> long {
    if (!c.contains(k)) return 0;
    const auto& v = c[k];
    if (!v.is_number_integer() || v.get<long>() < 1) {
      throw InvalidArgument(error_msg("{0}: {1}: expected a whole number >= 1", path, k));
    }
    return v.get<long>();
  };
  a.n_head = count("num_attention_heads");
  if (a.n_head == 0) throw InvalidArgument(error_msg("{0}: num_attention_heads: missing", path));
  a.n_head_kv = count("num_key_value_heads");
  if (a.n_head_kv == 0) a.n_head_kv = a.n_head;  // HF's default: no GQA
  return a;
}

ModelConfig read_model_file(const std::string& path) {
  return is_gguf_file(path) ? read_gguf_model(path).model : read_model_config(path);
}

}  // namespace rope
