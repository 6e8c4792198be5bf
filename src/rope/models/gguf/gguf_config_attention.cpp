// The softmax scale a GGUF model's attention uses in llama.cpp (model_config.hpp AttentionScale): kq_scale of its
// graph, by the rule of the architecture's row (data/families.json llama_cpp "kq_scale", llama_architectures.hpp
// LlamaKqScale, each with its llama.cpp lines; tests/conformance/llama_kq_scale.py reads every graph for it). The heads
// as llama_hparams has them (src/llama-model.cpp:1366-1376): n_embd_head_k = attention.key_length, else
// n_embd / n_head; n_embd_head_v = attention.value_length, else the same; n_embd_head_k_mla = attention.key_length_mla
// when the file gives it and value_length_mla (is_mla, src/llama-hparams.cpp:297-314), else n_embd_head_k.
#include <cmath>
#include <fmt/format.h>
#include <string_view>

#include "rope/io/csv.hpp"
#include "rope/models/gguf/gguf_config.hpp"
#include "rope/models/gguf/llama_architectures.hpp"
#include "rope/models/scaling/scaling.hpp"

namespace rope::detail {

namespace {

using KqRule = LlamaKqScale::Rule;

/// A head size of llama_hparams: `key`, else n_embd / n_head (llama.cpp's integer division), and what it came from.
struct KqHead {
  long size = 0;
  std::string from;
};

}  // namespace

void gguf_attention_scale(const GgufFile& file, const std::string& arch, GgufModel& g) {
  static const LlamaKqScale kDefault;
  const GgufArchitecture* row = find_gguf_architecture(arch);
  const LlamaKqScale& kq = row ? row->kq_scale : kDefault;
  const std::string source = kq.source;
  const auto number = [&](const std::string& k) -> std::optional<double> {
    const GgufValue* v = file.find(k);
    return v ? v->as_number() : std::nullopt;
  };
  const std::string key_prefix = arch + ".";
  const long embd = static_cast<long>(number(key_prefix + "embedding_length").value_or(0));
  const auto head = [&](const std::string& k) {
    const std::optional<double> v = number(key_prefix + k);
    if (v && *v > 0) return KqHead{static_cast<long>(*v), key_prefix + k};
    const long per_head = g.n_head > 0 ? embd / g.n_head : 0;  // llama.cpp's integer division
    if (per_head <= 0) return KqHead{g.head_dim, "head_dim"};  // no embedding_length: the head as read
    return KqHead{per_head, fmt::format("{}embedding_length / {}attention.head_count", key_prefix, key_prefix)};
  };
  const auto inverse_sqrt = [](const KqHead& h, AttentionScale& s) {
    s.rule_value = 1.0 / std::sqrt(static_cast<double>(h.size));
    s.rule = Message("{0}^−0.5 ({1} {0})", {h.size, h.from});
  };
  const KqHead head_k = head("attention.key_length");
  AttentionScale s = head_dim_attention_scale(
      static_cast<int>(head_k.size),
      msg("llama.cpp: kq_scale = 1/√n_embd_head_k, as the graph of {0} computes it (src/models/llama.cpp:122 and most "
          "graphs)",
          arch));
  s.head_dim_rule = false;  // the file's head, not a typed --dim
  if (kq.rule == KqRule::AttentionScaleKey) {
    const std::optional<double> k = number(key_prefix + "attention.scale");
    if (k && *k != 0.0) {
      s.rule_value = *k;
      s.rule = msg("{0} {1}", key_prefix + "attention.scale", format_number(*k));
    }
    s.from =
        msg("llama.cpp: {0} when given and not 0, else 1/√n_embd_head ({1})", key_prefix + "attention.scale", source);
  } else if (kq.rule == KqRule::Gemma27B) {
    const long layers = static_cast<long>(number(key_prefix + "block_count").value_or(0));
    if (layers == kq.layers_27b && g.n_head > 0 && embd > 0) {
      const long per_head = embd / g.n_head;  // llama.cpp's integer division
      s.rule_value = 1.0 / std::sqrt(static_cast<double>(per_head));
      s.rule = msg("{0}^−0.5 (n_embd {1} / n_head {2}: the 27B, {3} layers)", per_head, embd, g.n_head, layers);
    }
    s.from =
        msg("llama.cpp: q × f_attention_scale, 1/√(n_embd / n_head) for the 27B, else 1/√n_embd_head_k ({0})", source);
  } else if (kq.rule == KqRule::One) {
    s.rule_value = 1.0;
    s.rule = msg("{0}, a constant of the code", "1");
    s.from = msg("llama.cpp: kq_scale = 1, nothing on q ({0})", source);
  } else if (kq.rule == KqRule::MlaMscale) {
    // deepseek2.cpp:431-443: mscale = attn_factor_org · (1 + 0.1 · yarn_log_mul · ln(1/freq_scale)), with
    // attn_factor_org = yarn_attn_factor · (1 + 0.1 · ln(1/freq_scale)); yarn_attn_factor (llama-context.cpp:177-211)
    // for YaRN is get_mscale(f, mscale) / get_mscale(f, yarn_log_mul) with the key, get_mscale(f, 1) without, over (1 +
    // 0.1 · ln f), else 1; × rope.scaling.attn_factor either way. 1/freq_scale: rope.scaling.factor (or
    // rope.scale_linear) unless the type (default linear, src/llama-model.cpp:1349-1360) is none. The MLA head
    // n_embd_head_k_mla: head_dim as read.
    const RopeConfig& r = g.model.rope;
    const GgufValue* type = file.find(key_prefix + "rope.scaling.type");
    const auto type_is = [&](std::string_view t) { return type && type->type == GgufType::String && type->text == t; };
    const std::optional<double> factor = number(key_prefix + "rope.scaling.factor")
                                             ? number(key_prefix + "rope.scaling.factor")
                                             : number(key_prefix + "rope.scale_linear");
    const double f = !type_is("none") && factor && *factor != 0.0 ? *factor : 1.0;
    const double l = r.mscale_all_dim.value_or(0.0);  // yarn_log_mul as the row's loader leaves it
    const double gain = 1.0 + 0.1 * std::log(f);
    double yarn_attn = 1.0;
    if (type_is("yarn")) {
      yarn_attn =
          (l != 0.0 ? yarn_get_mscale(f, r.mscale.value_or(1.0)) / yarn_get_mscale(f, l) : yarn_get_mscale(f)) / gain;
    }
    const double a = yarn_attn * g.attn_factor * gain;
    const double mscale = a * (1.0 + 0.1 * l * std::log(f));
    s.rule_value = mscale * mscale / std::sqrt(static_cast<double>(g.head_dim));
    s.rule = msg("mscale² / √{0} with mscale = {1:.6g} · (0.1 · {2} · ln {3} + 1) = {4:.6g}", g.head_dim, a,
                 format_number(l), format_number(f), mscale);
    s.from = msg("llama.cpp: kq_scale = mscale² / √n_embd_head_k_mla ({0})", source);
  } else if (kq.rule == KqRule::KeyLengthMla) {
    // The loaders of these rows require key_length_mla and value_length_mla (is_mla), so n_embd_head_k_mla is the key.
    inverse_sqrt(head("attention.key_length_mla").from == key_prefix + "attention.key_length_mla"
                     ? head("attention.key_length_mla")
                     : head_k,
                 s);
    s.from = row && row->sliding && row->sliding->own_dims
                 ? msg("llama.cpp: kq_scale = 1/√n_embd_head_k_mla, on the sliding layers 1/√{0} ({1})",
                       key_prefix + row->sliding->swa_head_key, source)
                 : msg("llama.cpp: kq_scale = 1/√n_embd_head_k_mla ({0})", source);
  } else if (kq.rule == KqRule::RotaryDim) {
    inverse_sqrt(
        KqHead{g.rotary_dim,
               file.find(key_prefix + "rope.dimension_count") ? key_prefix + "rope.dimension_count" : head_k.from},
        s);
    s.from = msg("llama.cpp: kq_scale = 1/√n_rot, the rotary channels ({0})", source);
  } else if (kq.rule == KqRule::ValueHead) {
    inverse_sqrt(head("attention.value_length"), s);
    s.from = msg("llama.cpp: kq_scale = 1/√n_embd_head_v, the value head ({0})", source);
  } else if (kq.rule == KqRule::InverseHead) {
    s.rule_value = 1.0 / static_cast<double>(head_k.size);
    s.rule = Message("{0}^−1 ({1} {0})", {head_k.size, head_k.from});
    s.from = msg("llama.cpp: kq_scale = 1/n_embd_head, not its square root (μP) ({0})", source);
  } else if (kq.rule == KqRule::OutputScaleKey) {
    const std::optional<double> k = number(key_prefix + "attention.output_scale");
    s.rule_value = k ? *k : kq.default_value;
    s.rule = k ? msg("{0} {1}", key_prefix + "attention.output_scale", format_number(*k))
               : msg("{0}, llama.cpp's default", format_number(kq.default_value));
    s.from = msg("llama.cpp: the scores × {0} before the cap, kq_scale 1 ({1})", key_prefix + "attention.output_scale",
                 source);
  }
  if (kq.softcap) {  // attn_soft_cap, or Grok's branch: kq / cap, tanh, × cap (src/llama-graph.cpp)
    const std::optional<double> cap = number(key_prefix + "attn_logit_softcapping");
    s.softcap = cap && *cap > 0 ? *cap : *kq.softcap;
    s.softcap_from = cap ? Message::same(key_prefix + "attn_logit_softcapping")
                         : msg("llama.cpp's default {0} ({1})", format_number(*kq.softcap), kq.softcap_source);
  }
  g.model.attention_scale = with_softmax_multiplier(std::move(s), std::nullopt);
}

}  // namespace rope::detail
