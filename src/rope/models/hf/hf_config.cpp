#include "rope/models/hf/hf_config.hpp"

#include <cmath>
#include <fmt/format.h>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/core/types.hpp"
#include "rope/io/text_file.hpp"
#include "rope/models/families/family_table.hpp"
#include "rope/models/model_folder.hpp"
#include "rope/models/rope_spec.hpp"

// The keys and their defaults are Hugging Face transformers' (the configuration_*.py of each model and
// modeling_rope_utils.py); docs/scaling.md lists them.

namespace rope::detail {

ModelConfig ConfigParser::parse() {
  if (!doc_.is_object()) {
    throw InvalidArgument(error_msg("{0}: expected a JSON object at the top level, got {1}", name_, doc_.type_name()));
  }
  select_text_config();
  select_scaling_dict();
  read_head_dim();
  read_partial_rotary();
  read_base();
  read_layout();
  read_positions();
  read_scaling();
  read_softmax_scale();
  read_attention_scale();
  read_mrope();
  read_fope();
  read_vision();
  read_sequence_positions();
  return std::move(m_);
}

Message origin_line(const Message& what, const std::string& value, const Message& from) {
  if (what.verbatim && from.verbatim) return Message::same(fmt::format("{}: {} ({})", what.en, value, from.en));
  return Message("{0}: {1} ({2})", {what, value, from});
}

/// "what: value (from)"; `from` is a JSON path (the same in every language), or words of their own.
void ConfigParser::origin(std::string_view what, const std::string& value, const Message& from) {
  m_.origin.push_back(origin_line(Message::same(std::string(what)), value, from));
}

// Multimodal wrappers (Gemma 3, Llava, …) keep the language model's keys in text_config.
void ConfigParser::select_text_config() {
  const auto top_type = r_.string(doc_, "", "model_type");
  if (const json* tc = r_.object(doc_, "", "text_config")) {
    cfg_ = tc;
    prefix_ = "text_config";
    const auto text_type = r_.string(*tc, prefix_, "model_type");
    m_.model_type = text_type ? *text_type : top_type.value_or("");
    note(msg("text_config: the RoPE keys are read from the language model's config{0}",
             top_type ? msg(" (model_type {0} wraps {1})", *top_type, m_.model_type) : Message::same("")));
  } else {
    cfg_ = &doc_;
    m_.model_type = top_type.value_or("");
  }
}

void ConfigParser::read_head_dim() {
  const json& c = *cfg_;
  if (is_deepseek_v4(m_.model_type)) {
    // DeepSeek-V4: heads of head_dim (512) whose last rope_dim (64) channels turn: the channels before them are
    // represented as MLA's qk_nope ones (rope_spec.hpp rotary_offset), read_partial_rotary takes rope_dim / head_dim.
    const DeepseekV4Head h = deepseek_v4_head(r_, c, prefix_);
    head_dim_ = h.head_dim;
    m_.qk_nope_head_dim = static_cast<int>(h.head_dim - h.rope_dim);
    m_.rope.head_dim = static_cast<int>(head_dim_);
    origin("head_dim", std::to_string(h.head_dim), h.head_from);
    origin("qk_rope_head_dim", std::to_string(h.rope_dim), h.rope_from);
    note(
        msg("DeepSeek-V4: the last {0} channels of each {1}-channel head turn, pairs (2i, 2i+1); the first {2} pass "
            "through (HF's apply_rotary_pos_emb: x[..., -rope_dim:], modular_deepseek_v4.py @ 02356fecf2)",
            h.rope_dim, h.head_dim, h.head_dim - h.rope_dim));
    return;
  }
  // Multi-head latent attention; the class's qk_rope_head_dim and qk_nope_head_dim when the config has none
  // (DeepseekV3Config, Mistral4Config: data/families.json).
  const ModelFamily* mla = find_model_family(m_.model_type);
  if (mla && !mla->default_qk_rope_head_dim) mla = nullptr;
  const auto class_default = [&](const char* key, std::optional<long> given, std::optional<long> fallback) {
    if (given || !fallback) return given;
    origin(key, std::to_string(*fallback), msg("HF {0} default", mla->config_class));
    note(msg("{0} not given: HF's {1} default {2} assumed ({3})", key, mla->config_class, *fallback, mla->source));
    return fallback;
  };
  const auto given_rope_dim = r_.count(c, prefix_, "qk_rope_head_dim");
  if (const auto rope_dim =
          mla ? class_default("qk_rope_head_dim", given_rope_dim, mla->default_qk_rope_head_dim) : given_rope_dim) {
    head_dim_ = *rope_dim;
    if (given_rope_dim) origin("head_dim", std::to_string(*rope_dim), child(prefix_, "qk_rope_head_dim"));
    const auto given_nope = r_.count(c, prefix_, "qk_nope_head_dim");
    const auto nope = mla ? class_default("qk_nope_head_dim", given_nope, mla->default_qk_nope_head_dim) : given_nope;
    if (nope) {
      if (*nope > kMaxDim)
        r_.fail(child(prefix_, "qk_nope_head_dim"), fmt::format("must be at most {}, got {}", kMaxDim, *nope));
      m_.qk_nope_head_dim = static_cast<int>(*nope);
      if (given_nope) origin("qk_nope_head_dim", std::to_string(*nope), child(prefix_, "qk_nope_head_dim"));
    }
    note(msg("qk_rope_head_dim {0}: multi-head latent attention rotates only these channels of each head{1}", *rope_dim,
             nope ? msg("; the other qk_nope_head_dim {0} carry no position", *nope) : Message::same("")));
  } else if (const ModelFamily* f = find_model_family(m_.model_type);
             f && f->layer_head_dim && f->layer_head_dim->layer_type == layer_type_) {
    // Gemma 4: the full-attention layers' heads are global_head_dim wide (Gemma4TextAttention).
    const LayerHeadDim& rule = *f->layer_head_dim;
    const auto given = r_.count(c, prefix_, rule.key);
    head_dim_ = given.value_or(rule.default_value);
    origin("head_dim", std::to_string(head_dim_),
           given ? msg("{0}, the {1} layers' heads", child(prefix_, rule.key), rule.layer_type)
                 : msg("HF {0} default {1}, the {2} layers' heads", f->config_class, rule.key, rule.layer_type));
  } else if (const auto hd = r_.count(c, prefix_, "head_dim")) {
    head_dim_ = *hd;
    origin("head_dim", std::to_string(*hd), child(prefix_, "head_dim"));
  } else if (const ModelFamily* f = find_model_family(m_.model_type); f && f->default_head_dim) {
    // The class's head_dim field wins over hidden_size / num_attention_heads (e.g. Qwen3Config 128, GptOssConfig 64).
    head_dim_ = *f->default_head_dim;
    origin("head_dim", std::to_string(head_dim_), msg("HF {0} default", f->config_class));
    note(msg("head_dim not given: HF's {0} default {1} assumed ({2})", f->config_class, head_dim_, f->source));
  } else if (const auto kv = m_.model_type == "chatglm" ? r_.count(c, prefix_, "kv_channels") : std::nullopt) {
    // THUDM's modeling_chatglm.py: rotary_dim = kv_channels (else hidden_size // num_attention_heads).
    head_dim_ = *kv;
    origin("head_dim", std::to_string(*kv), child(prefix_, "kv_channels"));
  } else {
    // GPT-J and GPT-2 style configs spell these n_embd and n_head (HF attribute_map).
    const char* hidden_key = Reader::find(c, "hidden_size") || !Reader::find(c, "n_embd") ? "hidden_size" : "n_embd";
    const char* heads_key =
        Reader::find(c, "num_attention_heads") || !Reader::find(c, "n_head") ? "num_attention_heads" : "n_head";
    const auto hidden = r_.count(c, prefix_, hidden_key);
    const auto heads = r_.count(c, prefix_, heads_key);
    if (hidden && heads) {
      head_dim_ = *hidden / *heads;
      origin("head_dim", std::to_string(head_dim_),
             fmt::format("{} {} / {} {}", child(prefix_, hidden_key), *hidden, child(prefix_, heads_key), *heads));
      if (*hidden % *heads != 0) {
        note(msg("{0} {1} is not a multiple of {2} {3}: head_dim rounded down to {4}, as HF's // does", hidden_key,
                 *hidden, heads_key, *heads, head_dim_));
      }
    } else {
      r_.fail(child(prefix_, "head_dim"),
              fmt::format("missing (give head_dim, or hidden_size and num_attention_heads{})",
                          hidden  ? "; num_attention_heads is missing"
                          : heads ? "; hidden_size is missing"
                                  : ""));
    }
  }
  if (head_dim_ < 2 || head_dim_ > kMaxDim) {
    r_.fail(child(prefix_, "head_dim"), fmt::format("must be between 2 and {}, got {}", kMaxDim, head_dim_));
  }
  m_.rope.head_dim = static_cast<int>(head_dim_);
}

/// d = int(head_dim · factor); the factor may come from several spellings (docs/scaling.md, "Reading a model's
/// config").
void ConfigParser::read_partial_rotary() {
  const json& c = *cfg_;
  if (is_deepseek_v4(m_.model_type)) {  // read_head_dim took qk_rope_head_dim = int(head_dim × partial_rotary_factor)
    const long rope_dim = head_dim_ - *m_.qk_nope_head_dim;
    m_.rope.partial_rotary_factor = exact_factor(rope_dim);
    d_ = static_cast<int>(rope_dim);
    return;
  }
  struct Candidate {
    double factor;
    std::string path;
    long rotary_dim;  // > 0 when given as rotary_dim
  };
  std::vector<Candidate> found;
  if (scaling_.dict) {
    if (const auto f = r_.positive(*scaling_.dict, scaling_.path, "partial_rotary_factor")) {
      found.push_back({*f, child(scaling_.path, "partial_rotary_factor"), 0});
    }
  }
  if (const auto f = r_.positive(c, prefix_, "partial_rotary_factor")) {
    found.push_back({*f, child(prefix_, "partial_rotary_factor"), 0});
  }
  if (const auto f = r_.positive(c, prefix_, "rotary_pct")) found.push_back({*f, child(prefix_, "rotary_pct"), 0});
  if (const auto rd = r_.count(c, prefix_, "rotary_dim")) {
    if (*rd > head_dim_) {
      r_.fail(child(prefix_, "rotary_dim"), fmt::format("must not exceed head_dim {}, got {}", head_dim_, *rd));
    }
    found.push_back({exact_factor(*rd), child(prefix_, "rotary_dim"), *rd});
  }
  double factor = 1.0;
  const ModelFamily* row = find_model_family(m_.model_type);
  // Mistral 4: HF's head_dim is qk_nope_head_dim + qk_rope_head_dim and the rotary class rotates int(that × factor)
  // channels, the last ones of the head (Mistral4Config.__post_init__, LlamaRotaryEmbedding).
  const bool of_qk_head = row && row->partial_rotary_of == "qk_head_dim" && m_.qk_nope_head_dim;
  if (!found.empty() && of_qk_head && found.front().rotary_dim == 0) {
    const Candidate& use = found.front();
    const long qk_head = head_dim_ + *m_.qk_nope_head_dim;
    const long d = static_cast<long>(static_cast<double>(qk_head) * use.factor);
    if (d < 2 || d > head_dim_ || d % 2 != 0) {
      r_.fail(use.path, fmt::format("rotary dim d = int(qk_nope_head_dim + qk_rope_head_dim = {} × {}) = {} must be "
                                    "even, at least 2 and at most qk_rope_head_dim {} ({})",
                                    qk_head, num(use.factor), d, head_dim_, row->source));
    }
    factor = exact_factor(d);
    origin("partial_rotary_factor",
           fmt::format("{} of qk_nope_head_dim + qk_rope_head_dim {}: {} channels", num(use.factor), qk_head, d),
           use.path);
    for (std::size_t i = 1; i < found.size(); ++i) {
      if (found[i].factor != use.factor) {
        note(msg("{0} ({1}) is ignored: {2} comes first", found[i].path, num(found[i].factor), use.path));
      }
    }
  } else if (!found.empty()) {
    const Candidate& use = found.front();
    factor = use.factor;
    if (factor > 1) r_.fail(use.path, fmt::format("must be at most 1, got {}", num(factor)));
    origin("partial_rotary_factor",
           use.rotary_dim > 0 ? fmt::format("{} = {} / {}", num(factor), use.rotary_dim, head_dim_) : num(factor),
           use.path);
    for (std::size_t i = 1; i < found.size(); ++i) {
      if (rotary_dim(found[i].factor) != rotary_dim(factor)) {
        const std::string value = found[i].rotary_dim > 0 ? std::to_string(found[i].rotary_dim) : num(found[i].factor);
        note(msg("{0} ({1}) is ignored: {2} comes first", found[i].path, value, use.path));
      }
    }
  } else if (m_.model_type == "gpt_neox") {
    factor = 0.25;
    origin("partial_rotary_factor", "0.25", msg("HF GPTNeoXConfig default rotary_pct"));
    note(msg("rotary_pct not given: HF's GPT-NeoX default 0.25 assumed"));
  } else if (m_.model_type == "chatglm") {
    factor = 0.5;
    origin("partial_rotary_factor", "0.5", msg("ChatGLM modeling code: RotaryEmbedding(rotary_dim // 2)"));
    note(msg("ChatGLM rotates half of each head: its modeling_chatglm.py builds RotaryEmbedding(rotary_dim // 2)"));
  } else if (const ModelFamily* family = find_model_family(m_.model_type);
             family && family->default_partial_rotary_factor) {
    factor = *family->default_partial_rotary_factor;
    origin("partial_rotary_factor", num(factor), msg("HF {0} default", family->config_class));
    note(msg("partial_rotary_factor not given: HF's {0} default {1} assumed ({2})", family->config_class, num(factor),
             family->source));
  } else {
    origin("partial_rotary_factor", "1", msg("HF default: every channel rotates"));
  }
  const int d = rotary_dim(factor);
  if (d < 2 || d % 2 != 0) {
    const std::string path = found.empty() ? child(prefix_, "head_dim") : found.front().path;
    r_.fail(path,
            fmt::format("rotary dim d = int(head_dim {} × partial_rotary_factor {}) = {} must be even and at least 2",
                        head_dim_, num(factor), d));
  }
  m_.rope.partial_rotary_factor = factor;
  d_ = d;
  const json* type = scaling_.dict ? Reader::find(*scaling_.dict, "rope_type") : nullptr;
  if (d != head_dim_ && type && type->is_string() && type->get<std::string>() == "proportional") {
    // (S14): the frequencies are over the whole head, rotate_half pairs (i, i + head_dim/2), the first d/2 turning.
    note(
        msg("proportional: pairs (i, i + {0}) of head_dim {1}, the first {2} turning; the other {3} pairs have "
            "frequency 0 and pass through unchanged (docs/scaling.md (S14))",
            head_dim_ / 2, head_dim_, d / 2, (head_dim_ - d) / 2));
  } else if (d != head_dim_) {
    note(
        msg("partial rotary: d = {0} of head_dim {1} channels rotate (pairs within the first d); the other {2} "
            "pass through unchanged",
            d, head_dim_, head_dim_ - d));
  }
}

/// rotary_dim / head_dim, nudged up by ulps if needed so that int(head_dim · factor) gives back rotary_dim.
double ConfigParser::exact_factor(long rd) const {
  double f = static_cast<double>(rd) / static_cast<double>(head_dim_);
  for (int i = 0; i < 4 && rotary_dim(f) < rd; ++i) f = std::nextafter(f, 2.0);
  return f;
}

void ConfigParser::read_base() {
  const json& c = *cfg_;
  const auto top = r_.number(c, prefix_, "rope_theta");
  std::optional<double> in_dict;
  if (scaling_.dict) in_dict = r_.number(*scaling_.dict, scaling_.path, "rope_theta");
  const auto neox = r_.number(c, prefix_, "rotary_emb_base");
  double base = kDefaultBase;
  std::string from;
  std::optional<Message> from_v4;         // a transformers 4.x config without rope_theta: 4.x's class default
  if (in_dict && !theta_from_.empty()) {  // a block whose rope_theta the reader put there (DeepSeek-V4's)
    base = *in_dict;
    from = theta_from_;
  } else if (in_dict) {
    base = *in_dict;
    from = child(scaling_.path, "rope_theta");
    if (top && *top != *in_dict) {
      note(msg("rope_theta {0} at the top level is ignored: {1} = {2} wins (HF v5)", num(*top), from, num(*in_dict)));
    }
  } else if (top) {
    base = *top;
    from = child(prefix_, "rope_theta");
  } else if (neox) {
    base = *neox;
    from = child(prefix_, "rotary_emb_base");
  } else if (const auto ratio = r_.positive(c, prefix_, "rope_ratio")) {
    // THUDM's modeling_chatglm.py (GLM-4, ChatGLM3-32k …): base = 10000 * rope_ratio.
    base = kDefaultBase * *ratio;
    from = fmt::format("10000 × {} {}", child(prefix_, "rope_ratio"), num(*ratio));
  } else {
    // HF v5's precedence (modeling_rope_utils.py @ 347328108a) ends with the config
    // class's default_theta (data/families.json).
    const ModelFamily* family = find_model_family(m_.model_type);
    if (family && family->default_theta) base = *family->default_theta;
    from = "HF default";
    // A config written by transformers 4.x (its transformers_version, at the top level or in text_config) was
    // loaded by 4.x, whose class default θ is the one the model was trained and run with where v4 and v5 differ.
    std::string version;
    for (const json* o : {&doc_, cfg_}) {
      if (const json* v = Reader::find(*o, "transformers_version"); v && v->is_string())
        version = v->get<std::string>();
    }
    const bool v4 = !version.empty() && version.size() >= 2 && version[0] == '4' && version[1] == '.';
    if (v4 && family && family->default_theta_v4 && *family->default_theta_v4 != base) {
      note(
          msg("rope_theta not given and transformers_version {0}: {1} of transformers 4.x defaulted to {2}, the value "
              "this config was loaded with; transformers 5 ({3}) would use {4}",
              version, family->config_class, num(*family->default_theta_v4), family->source, num(base)));
      base = *family->default_theta_v4;
      from_v4 = msg("transformers 4.x's {0} default: the config says transformers_version {1}", family->config_class,
                    version);
    } else {
      note(msg("rope_theta not given: HF default {0} assumed{1}", num(base),
               base == kDefaultBase ? Message::same("") : msg(" for model_type {0}", m_.model_type)));
    }
    if (!from_v4 && family && family->default_theta_v4 && *family->default_theta_v4 != base) {
      note(
          msg("transformers 4.x's {0} defaulted to rope_theta {1}; v5 ({2}) uses {3}: a model trained with 4.x without "
              "rope_theta in its config used {1}",
              family->config_class, num(*family->default_theta_v4), family->source, num(base)));
    }
  }
  if (!(base > 1)) {
    r_.fail(from == "HF default" ? "rope_theta" : from, fmt::format("must be greater than 1, got {}", num(base)));
  }
  m_.rope.base = base;
  origin("rope_theta", num(base), from_v4 ? *from_v4 : from == "HF default" ? msg("HF default") : Message::same(from));
  if (const auto local = r_.number(c, prefix_, "rope_local_base_freq")) {
    note(
        msg("rope_local_base_freq {0}: the local (sliding-window) layers use base {1} without scaling; "
            "the values here are the global (full-attention) layers'",
            num(*local), num(*local)));
  }
}

void ConfigParser::read_layout() {
  const std::string type = m_.model_type.empty() ? "(none)" : m_.model_type;
  const auto set = [this](Layout layout, LayoutBasis basis, Message reason, const std::string& from) {
    m_.rope.layout = layout;
    m_.layout_basis = basis;
    m_.layout_reason = std::move(reason);
    origin("layout", std::string(to_string(layout)), from);
  };
  if (const auto interleave = r_.boolean(*cfg_, prefix_, "rope_interleave")) {
    const std::string key = fmt::format("rope_interleave {}", *interleave ? "true" : "false");
    set(*interleave ? Layout::Interleaved : Layout::Half, LayoutBasis::ConfigKey, Message::same(key),
        child(prefix_, "rope_interleave"));
  } else if (const auto family = family_layout(m_.model_type)) {
    set(*family, LayoutBasis::Family, msg("model family {0}", type), "model_type " + type);
    const ModelFamily* row = find_model_family(m_.model_type);
    if (row->rope_interleave_default) {
      note(msg("rope_interleave not given: HF's {0} default {1} assumed", row->config_class,
               *row->rope_interleave_default ? msg("true (interleaved pairs)") : msg("false (half pairs)")));
    }
  } else {
    // HF's most common convention; said as an assumption, never as the model's.
    set(Layout::Half, LayoutBasis::Assumed, msg("assumed: model_type {0} is not a family rope knows", type),
        "assumed for model_type " + type);
    note(
        msg("warning: model_type {0} is not a family rope knows: its pair layout is assumed to be HF's "
            "rotate_half (half); check the model's code and give {1}",
            type, option_name("layout")));
  }
  if (const ModelFamily* row = find_model_family(m_.model_type); row && !row->unread_code.empty()) {
    note(
        msg("warning: model_type {0} runs its own modeling code ({1}), which rope could not read (no public copy of "
            "it was found): the numbers here follow HF's {2}, not checked against that code",
            type, row->unread_code, row->unread_code_follows));
  }
}

void ConfigParser::read_positions() {
  const json& c = *cfg_;
  // GPT-J spells it n_positions, ChatGLM seq_length.
  const char* key = Reader::find(c, "max_position_embeddings") ? "max_position_embeddings"
                    : Reader::find(c, "n_positions")           ? "n_positions"
                    : Reader::find(c, "seq_length")            ? "seq_length"
                                                               : "max_position_embeddings";
  if (const auto m = r_.count(c, prefix_, key)) {
    m_.rope.max_position_embeddings = *m;
    origin("max_position_embeddings", std::to_string(*m), child(prefix_, key));
  } else if (m_.model_type == "gemma3_text") {
    m_.rope.max_position_embeddings = 131072;
    origin("max_position_embeddings", "131072", msg("HF Gemma3TextConfig default"));
    note(msg("max_position_embeddings not given: HF's Gemma3TextConfig default 131072 assumed"));
  }
  // L0: inside the scaling dict, else top level (Phi-3); read_scaling prefers the dict's.
  if (const auto l0 = r_.count(c, prefix_, "original_max_position_embeddings")) {
    top_l0_ = *l0;
  }
}

}  // namespace rope::detail

namespace rope {

// The config.json reader the top of models/ declares (model_config.hpp): the JSON read strictly, a diffusers
// transformer's config recognized first, else Hugging Face's keys, then the RoPE of each layer type.
ModelConfig parse_model_config(std::string_view json_text, const std::string& name) {
  const detail::json doc = detail::parse_json(json_text, name, kMaxConfigBytes);
  if (std::optional<ModelConfig> diffusers = detail::parse_diffusers_config(doc, name)) return std::move(*diffusers);
  ModelConfig m = detail::ConfigParser(doc, name).parse();
  detail::read_layer_types(doc, name, m);
  return m;
}

ModelConfig read_model_config(const std::string& given) {
  if (given.empty()) throw IoError(error_msg("cannot read '{0}': {1}", "", "the config path is empty"));
  const std::string path = model_config_file(given);  // a model's folder: its config file (model_folder.hpp)
  // The read stops one buffer past the limit, so /dev/zero or a huge file cannot exhaust memory;
  // parse_model_config refuses a text over the limit.
  const BoundedRead file = read_file_bounded(path, kMaxConfigBytes);
  if (file.error != 0) throw IoError(error_msg("cannot read '{0}': {1}", path, file.reason()));
  return parse_model_config(file.text, path);
}

}  // namespace rope
