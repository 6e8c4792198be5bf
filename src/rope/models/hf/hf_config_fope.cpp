// FoPE's keys (models/fope.hpp): Intern-S1-Pro's rope_scaling holds fope_init_factor, fope_sep_head and num_inv_freq.
// Intern-S1-Pro's own modeling_interns1_pro.py (Hub remote code; read in muyaostudio/intern-s1-pro-vs-qwen3-235b-a22b
// @ 4591d649e4) turns FoPE on when any of the three is not None (InternS1ProTextModel.__init__, use_fope) and reads
// num_key_value_heads for fope_sep_head's matrices; vLLM's get_rope (rotary_embedding/__init__.py) builds
// FourierRotaryEmbedding under rope_type default when rope_scaling.use_fope is true (the model file sets it).
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/models/fope.hpp"
#include "rope/models/hf/hf_config.hpp"
#include "rope/models/scaling/scaling_table.hpp"

namespace rope::detail {

void ConfigParser::read_fope() {
  if (!scaling_.dict) return;
  const json& s = *scaling_.dict;
  const std::string& p = scaling_.path;
  const auto use = r_.boolean(s, p, "use_fope");
  const bool keys =
      Reader::find(s, "fope_init_factor") || Reader::find(s, "fope_sep_head") || Reader::find(s, "num_inv_freq");
  if (use == std::optional<bool>(false) || (!use && !keys)) return;
  FopeConfig f;
  f.num_inv_freq = r_.count(s, p, "num_inv_freq");
  f.sep_head = r_.boolean(s, p, "fope_sep_head").value_or(false);
  f.init_factor = r_.number(s, p, "fope_init_factor");
  const json& c = *cfg_;
  const auto kv = r_.count(c, prefix_, "num_key_value_heads");
  const auto heads = r_.count(c, prefix_, "num_attention_heads");
  if (f.sep_head && !kv && !heads) {
    throw InvalidArgument(
        error_msg("{0}: FoPE with fope_sep_head has one coefficient matrix per key-value head, and "
                  "the config gives neither num_key_value_heads nor num_attention_heads",
                  name_));
  }
  f.kv_heads = kv ? *kv : heads.value_or(1);
  if (!f.num_inv_freq && !Reader::find(c, "max_position_embeddings")) {
    throw InvalidArgument(
        error_msg("{0}: FoPE keeps the pairs with θ_i > 2π / max_position_embeddings, and the config "
                  "gives neither max_position_embeddings nor {1}.num_inv_freq",
                  name_, p));
  }
  f.max_position = m_.rope.max_position_embeddings.value_or(0);
  if (m_.rope.type != ScalingType::Default) {
    throw InvalidArgument(
        error_msg("{0}: FoPE is built only with rope_type default (vLLM's get_rope; the model's "
                  "remote code raises NotImplementedError for dynamic), not {1}",
                  name_, std::string(to_string(m_.rope.type))));
  }
  if (m_.mrope) {
    throw InvalidArgument(
        error_msg("{0}: FoPE with mrope_section: no engine builds that combination and rope does not model it", name_));
  }
  if (d_ != head_dim_) {
    throw InvalidArgument(
        error_msg("{0}: FoPE with a partial rotary dimension ({1} of {2} channels): the engines pad "
                  "cos and sin to head_dim / 2 over θ of the rotary dimension, which rope does not "
                  "model",
                  name_, d_, head_dim_));
  }
  if (f.num_inv_freq && *f.num_inv_freq > d_ / 2) {
    throw InvalidArgument(error_msg("FoPE: num_inv_freq {0} is more than the {1} pairs of the rotary dimension {2}",
                                    *f.num_inv_freq, d_ / 2, d_));
  }
  origin("fope", f.sep_head ? "fope_sep_head" : "one matrix",
         child(p, Reader::find(s, "fope_sep_head") ? "fope_sep_head"
                  : use                            ? "use_fope"
                                                   : "num_inv_freq"));
  if (kv) origin("num_key_value_heads", std::to_string(*kv), child(prefix_, "num_key_value_heads"));
  note(fope_note(f, d_, d_, m_.rope.base));
  m_.fope = f;
}

}  // namespace rope::detail
