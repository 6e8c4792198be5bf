// The softmax scale of a model's attention (model_config.hpp AttentionScale, docs/scaling.md (S22)): the rule's
// scale, get_mscale² of the family table's softmax_scale on top, and the text that says both.
#include <cmath>
#include <fmt/format.h>

#include "rope/io/csv.hpp"
#include "rope/models/model_config.hpp"

namespace rope {

AttentionScale head_dim_attention_scale(int head_dim, Message from) {
  AttentionScale s;
  s.rule_value = 1.0 / std::sqrt(static_cast<double>(head_dim));
  s.value = s.rule_value;
  s.rule = msg("{0}^−0.5 (head_dim {0})", head_dim);
  s.from = std::move(from);
  s.head_dim_rule = true;
  return s;
}

AttentionScale with_softmax_multiplier(AttentionScale s, const std::optional<SoftmaxScale>& softmax_scale) {
  s.multiplier = softmax_scale ? softmax_scale->multiplier : 1.0;
  s.value = s.rule_value * s.multiplier;
  return s;
}

Message attention_scale_text(const AttentionScale& s) {
  // No words of its own: no catalog entry (the rule is translated as it is).
  if (s.multiplier == 1.0) return Message("{0:.6g} = {1}", {s.value, s.rule});
  return msg("{0:.6g} = {1} × get_mscale² {2:.6g} (the softmax scale note)", s.value, s.rule, s.multiplier);
}

}  // namespace rope
