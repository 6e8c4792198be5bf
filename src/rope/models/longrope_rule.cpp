#include "rope/models/longrope_rule.hpp"

#include <algorithm>
#include <cmath>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "rope/models/scaling/scaling_table.hpp"

namespace rope {

RopeSpec spec_with_rule(const RopeSpec& spec, const LongRopeRule& rule, std::optional<double> max_position) {
  if (spec.config.type != ScalingType::LongRope) return spec;
  const bool by_context = rule.engine == LongRopeEngine::Vllm || rule.engine == LongRopeEngine::LlamaCpp;
  if (by_context && spec.config.seq_len) {
    if (spec.config.seq_len == rule.context) return spec;  // the rule applied already (with_longrope_rule)
    throw InvalidArgument(error_msg("give {0} or {1} {2}, not both: the engine's context picks LongRoPE's list",
                                    option_name("seq_len"), option_name("engine"), to_string(rule.engine)));
  }
  if (rule.engine == LongRopeEngine::Hf) return max_position ? spec_at_position(spec, *max_position) : spec;
  if (!by_context && (!max_position || spec.config.seq_len)) return spec;
  RopeSpec s = spec;
  const long n = longrope_rule_length(rule.engine, rule.context, max_position.value_or(0));
  s.config.seq_len = std::max(1L, n);  // the length compared with L0 (SGLang's largest position may be 0)
  s.params = rope_parameters(s.config);
  s.notes.push_back(longrope_rule_note(rule.engine, n, s.params.original_max_position));
  return s;
}

std::optional<Message> longrope_rule_unused(const ModelRope& rope, const LongRopeRule& rule) {
  if (!rule.given || rope.spec.config.type == ScalingType::LongRope) return std::nullopt;
  for (const LayerRope& layer : rope.layers) {
    if (layer.spec && layer.spec->config.type == ScalingType::LongRope) return std::nullopt;
  }
  return msg("{0} {1} chooses LongRoPE's list, and this model's rope_type is {2}: the engine changes nothing",
             option_name("engine"), to_string(rule.engine), to_string(rope.spec.config.type));
}

ModelRope with_longrope_rule(ModelRope rope, const LongRopeRule& rule) {
  if (const auto unused = longrope_rule_unused(rope, rule)) rope.spec.params.warnings.push_back(*unused);
  if (rule.engine == LongRopeEngine::Hf) return rope;
  rope.spec = spec_with_rule(rope.spec, rule, std::nullopt);
  for (LayerRope& layer : rope.layers) {
    if (layer.spec) layer.spec = spec_with_rule(*layer.spec, rule, std::nullopt);
  }
  return rope;
}

}  // namespace rope
