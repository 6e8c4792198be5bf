// The softmax scale of a config's attention (model_config.hpp AttentionScale): HF's self.scaling of the family's
// attention class as the family table records it (data/families.json attention_scale), from the config's key or
// the config class's default, with where each number came from.
#include <cmath>
#include <fmt/format.h>

#include "rope/io/csv.hpp"
#include "rope/models/families/family_table.hpp"
#include "rope/models/hf/hf_config.hpp"

namespace rope::detail {

namespace {

/// "text_config.query_pre_attn_scalar", or "HF Gemma2Config default" when the config has no such key.
Message key_origin(bool given, const std::string& path, const std::string& config_class) {
  return given ? Message::same(path) : msg("HF {0} default", config_class);
}

}  // namespace

void ConfigParser::read_attention_scale() {
  const ModelFamily* f = find_model_family(m_.model_type);
  AttentionScale s;
  if (!f || !f->attention_scale) {
    s = head_dim_attention_scale(
        static_cast<int>(head_dim_),
        f ? msg("HF {0}: self.scaling = head_dim**-0.5", f->source)
          : msg("assumed: HF's common self.scaling = head_dim**-0.5 (model_type '{0}' is not in the family table)",
                m_.model_type));
    if (m_.qk_nope_head_dim) {  // MLA outside the table's families: the head is qk_nope + qk_rope
      const long qk = *m_.qk_nope_head_dim + head_dim_;
      s.rule_value = 1.0 / std::sqrt(static_cast<double>(qk));
      s.rule = msg("{0}^−0.5 (qk_head_dim = qk_nope_head_dim {1} + qk_rope_head_dim {2})", qk, *m_.qk_nope_head_dim,
                   head_dim_);
      s.head_dim_rule = false;
    }
  } else {
    const AttentionScaleRule& a = *f->attention_scale;
    const Message source = Message::same("HF " + a.source);
    s.from = source;
    if (a.rule == "constant") {
      s.rule_value = a.default_value;
      s.rule = msg("{0}, a constant of the code", format_number(a.default_value));
    } else if (a.rule == "qk_head_dim") {
      const auto nope = r_.count(*cfg_, prefix_, "qk_nope_head_dim");
      const auto rope = r_.count(*cfg_, prefix_, "qk_rope_head_dim");
      const long n = nope.value_or(a.nope_default);
      const long r = rope.value_or(a.rope_default);
      s.rule_value = 1.0 / std::sqrt(static_cast<double>(n + r));
      s.rule = msg("{0}^−0.5 (qk_head_dim = qk_nope_head_dim {1} + qk_rope_head_dim {2})", n + r, n, r);
      s.from = msg("{0}; qk_nope_head_dim: {1}; qk_rope_head_dim: {2}", source,
                   key_origin(nope.has_value(), child(prefix_, "qk_nope_head_dim"), f->config_class),
                   key_origin(rope.has_value(), child(prefix_, "qk_rope_head_dim"), f->config_class));
    } else {  // inverse_sqrt_key, key
      const auto given = r_.positive(*cfg_, prefix_, a.key);
      const double v = given.value_or(a.default_value);
      s.rule_value = a.rule == "key" ? v : 1.0 / std::sqrt(v);
      s.rule = a.rule == "key" ? msg("{0} {1}", a.key, format_number(v))
                               : msg("{0}^−0.5 ({1} {0})", format_number(v), a.key);
      s.from =
          msg("{0}; {1}: {2}", source, a.key, key_origin(given.has_value(), child(prefix_, a.key), f->config_class));
    }
  }
  if (f && f->attention_scale && !f->attention_scale->softcap_key.empty()) {
    // Gemma 2: attn_logit_softcapping, the class default when absent; null in the config turns the cap off (HF
    // passes softcap=None).
    const AttentionScaleRule& a = *f->attention_scale;
    const auto it = cfg_->find(a.softcap_key);
    const std::string path = child(prefix_, a.softcap_key);
    if (it == cfg_->end() || !it->is_null()) {
      const auto given = r_.positive(*cfg_, prefix_, a.softcap_key);
      s.softcap = given.value_or(a.softcap_default);
      s.softcap_from = given ? Message::same(path) : msg("HF {0} default", f->config_class);
    }
  }
  m_.attention_scale = with_softmax_multiplier(std::move(s), m_.softmax_scale);
}

}  // namespace rope::detail
