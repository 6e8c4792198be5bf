// The softmax scale a GGUF model's attention uses in llama.cpp (model_config.hpp AttentionScale): kq_scale of its
// graph, as the architecture decides it in code (src/models/*.cpp at de3ff815ea7d, the llama_cpp rows' commit).
//   default   kq_scale = 1/√n_embd_head (src/models/llama.cpp:122 and most graphs);
//   granite   {arch}.attention.scale when given and not 0, else 1/√n_embd_head (src/models/granite.cpp:10, 235);
//   gemma2/3  Qcur × f_attention_scale, kq_scale 1: 1/√(n_embd / n_head) for the 27B (46 or 62 layers), else
//             1/√n_embd_head_k (src/models/gemma2.cpp:25-27, 108; gemma3.cpp:29-31, 152);
//   gemma3n/4 f_attention_scale = 1 (src/models/gemma3n.cpp:8, gemma4.cpp:11);
//   gemma2    and the scores capped, cap·tanh(kq / cap), cap attn_logit_softcapping else 50 (gemma2.cpp:7, 14);
//   deepseek2 mscale²/√n_embd_head_k_mla, mscale = attn_factor_org · (1 + 0.1 · yarn_log_mul · ln f)
//             (src/models/deepseek2.cpp:433-443; deepseek32.cpp:193-194; glm-dsa.cpp:227-228).
#include <cmath>
#include <fmt/format.h>
#include <string_view>

#include "rope/io/csv.hpp"
#include "rope/models/gguf_config.hpp"
#include "rope/models/scaling.hpp"

namespace rope::detail {

namespace {

enum class KqRule { AttentionScaleKey, Gemma27B, One, MlaMscale };

struct KqArchitecture {
  std::string_view architecture;
  KqRule rule;
  long layers_27b;          ///< Gemma27B: block_count of the 27B model
  std::string_view source;  ///< llama.cpp file:line
};

constexpr KqArchitecture kKqArchitectures[] = {
    {"granite", KqRule::AttentionScaleKey, 0, "src/models/granite.cpp:10, 235"},
    {"granitemoe", KqRule::AttentionScaleKey, 0, "src/models/granite-moe.cpp:8; granite.cpp:235"},
    {"granitehybrid", KqRule::AttentionScaleKey, 0, "src/models/granite-hybrid.cpp:8, 223-224"},
    {"graniteswitch", KqRule::AttentionScaleKey, 0, "src/models/granite-switch.cpp:10, 378-379"},
    {"granite_swa", KqRule::AttentionScaleKey, 0, "src/models/granite-swa.cpp:10, 231"},
    {"dflash", KqRule::AttentionScaleKey, 0, "src/models/dflash.cpp:10, 592"},
    {"gemma2", KqRule::Gemma27B, 46, "src/models/gemma2.cpp:17-27, 108"},
    {"gemma3", KqRule::Gemma27B, 62, "src/models/gemma3.cpp:20-31, 152"},
    {"gemma3n", KqRule::One, 0, "src/models/gemma3n.cpp:8, 174"},
    {"gemma4", KqRule::One, 0, "src/models/gemma4.cpp:11, 268"},
    {"gemma4-assistant", KqRule::One, 0, "src/models/gemma4-assistant.cpp:12, 151"},
    {"deepseek2", KqRule::MlaMscale, 0, "src/models/deepseek2.cpp:433-443"},
    {"deepseek2-ocr", KqRule::MlaMscale, 0, "src/models/deepseek2.cpp:420-443"},
    {"deepseek32", KqRule::MlaMscale, 0, "src/models/deepseek32.cpp:168, 193-194"},
    {"glm-dsa", KqRule::MlaMscale, 0, "src/models/glm-dsa.cpp:202, 227-228"},
};

}  // namespace

void gguf_attention_scale(const GgufFile& file, const std::string& arch, GgufModel& g) {
  const KqArchitecture* row = nullptr;
  for (const KqArchitecture& a : kKqArchitectures) {
    if (a.architecture == arch) row = &a;
  }
  const auto number = [&](const std::string& k) -> std::optional<double> {
    const GgufValue* v = file.find(k);
    return v ? v->as_number() : std::nullopt;
  };
  const std::string key_prefix = arch + ".";
  AttentionScale s = head_dim_attention_scale(
      g.head_dim, msg("llama.cpp's common kq_scale = 1/√n_embd_head (src/models/llama.cpp:122); rope has not read "
                      "the graph of {0} for another", arch));
  s.head_dim_rule = false;  // the file's head, not a typed --dim
  if (row && row->rule == KqRule::AttentionScaleKey) {
    const std::optional<double> k = number(key_prefix + "attention.scale");
    if (k && *k != 0.0) {
      s.rule_value = *k;
      s.rule = msg("{0} {1}", key_prefix + "attention.scale", format_number(*k));
    }
    s.from = msg("llama.cpp: {0} when given and not 0, else 1/√n_embd_head ({1})", key_prefix + "attention.scale",
                 std::string(row->source));
  } else if (row && row->rule == KqRule::Gemma27B) {
    const long layers = static_cast<long>(number(key_prefix + "block_count").value_or(0));
    const long embd = static_cast<long>(number(key_prefix + "embedding_length").value_or(0));
    if (layers == row->layers_27b && g.n_head > 0 && embd > 0) {
      const long per_head = embd / g.n_head;  // llama.cpp's integer division
      s.rule_value = 1.0 / std::sqrt(static_cast<double>(per_head));
      s.rule = msg("{0}^−0.5 (n_embd {1} / n_head {2}: the 27B, {3} layers)", per_head, embd, g.n_head, layers);
    }
    s.from = msg("llama.cpp: q × f_attention_scale, 1/√(n_embd / n_head) for the 27B, else 1/√n_embd_head_k ({0})",
                 std::string(row->source));
  } else if (row && row->rule == KqRule::One) {
    s.rule_value = 1.0;
    s.rule = msg("{0}, a constant of the code", "1");
    s.from = msg("llama.cpp: f_attention_scale = 1 ({0})", std::string(row->source));
  } else if (row && row->rule == KqRule::MlaMscale) {
    // The MLA head n_embd_head_k_mla (key_length_mla, else key_length): head_dim as the file gives it.
    const RopeConfig& r = g.model.rope;
    const double f = r.type == ScalingType::Yarn && r.factor ? *r.factor : 1.0;
    const double m = r.mscale_all_dim.value_or(0.0);
    // attn_factor_org: llama-context.cpp's yarn_attn_factor, get_mscale(f, mscale) / get_mscale(f, mscale_all_dim)
    // with a yarn_log_multiplier, else the file's rope.scaling.attn_factor.
    const double a = m != 0.0 ? yarn_get_mscale(f, r.mscale.value_or(1.0)) / yarn_get_mscale(f, m) : g.attn_factor;
    const double mscale = a * yarn_get_mscale(f, m);
    s.rule_value = mscale * mscale / std::sqrt(static_cast<double>(g.head_dim));
    s.rule = msg("mscale² / √{0} with mscale = {1:.6g} · (0.1 · {2} · ln {3} + 1) = {4:.6g}", g.head_dim, a,
                 format_number(m), format_number(f), mscale);
    s.from = msg("llama.cpp: kq_scale = mscale² / √n_embd_head_k_mla ({0})", std::string(row->source));
  }
  if (arch == "gemma2") {  // attn_soft_cap: kq / cap, tanh, × cap (src/models/gemma2.cpp:7, 14; llama-graph.cpp:2691-2696)
    const std::optional<double> cap = number(key_prefix + "attn_logit_softcapping");
    s.softcap = cap && *cap > 0 ? *cap : 50.0;  // llama_hparams' default 50 (src/llama-hparams.h:134)
    s.softcap_from = cap ? Message::same(key_prefix + "attn_logit_softcapping")
                         : msg("llama.cpp's default {0} (src/llama-hparams.h:134)", "50");
  }
  g.model.attention_scale = with_softmax_multiplier(std::move(s), std::nullopt);
}

}  // namespace rope::detail
