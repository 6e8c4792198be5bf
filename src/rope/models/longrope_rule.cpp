#include "rope/models/longrope_rule.hpp"

#include <algorithm>
#include <cmath>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "rope/models/scaling/scaling_table.hpp"

namespace rope {

namespace {

/// Dynamic NTK's base as the engine computes it: HF's at the dump's largest position (max(position) + 1, at least M),
/// vLLM's once at its max_model_len, unguarded.
RopeSpec dynamic_with_rule(const RopeSpec& spec, const LongRopeRule& rule, std::optional<double> max_position) {
  if (rule.engine == LongRopeEngine::Hf) return max_position ? spec_at_position(spec, *max_position) : spec;
  if (rule.engine != LongRopeEngine::Vllm) {
    throw InvalidArgument(
        error_msg("{0} {1}: rope reads dynamic NTK's length as hf or vllm compute it, not as this engine",
                  option_name("engine"), to_string(rule.engine)));
  }
  if (spec.config.dynamic_served) return spec;  // the rule applied already (with_longrope_rule)
  if (spec.config.seq_len) {
    throw InvalidArgument(
        error_msg("give {0} or {1} {2}, not both: vLLM computes dynamic NTK's base at its "
                  "max_model_len",
                  option_name("seq_len"), option_name("engine"), to_string(rule.engine)));
  }
  if (spec.config.ntk_alpha) {
    throw InvalidArgument(error_msg("{0} {1}: rope does not read NTK-α's base as vLLM computes it",
                                    option_name("engine"), to_string(rule.engine)));
  }
  const long m = spec.config.max_position_embeddings.value_or(0);
  RopeSpec s = spec;
  s.config.seq_len = vllm_dynamic_length(rule.context, spec.config.factor.value_or(1.0), m);
  s.config.dynamic_served = true;
  s.params = rope_parameters(s.config);
  s.notes.push_back(vllm_dynamic_note(*s.config.seq_len, rule.context.has_value(), m));
  return s;
}

}  // namespace

RopeSpec spec_with_rule(const RopeSpec& spec, const LongRopeRule& rule, std::optional<double> max_position) {
  if (spec.config.type == ScalingType::Dynamic) return dynamic_with_rule(spec, rule, max_position);
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
  const auto read = [](ScalingType t) { return t == ScalingType::LongRope || t == ScalingType::Dynamic; };
  if (!rule.given || read(rope.spec.config.type) || rope.other_layer_reading) return std::nullopt;
  for (const LayerRope& layer : rope.layers) {
    if (layer.spec && read(layer.spec->config.type)) return std::nullopt;
  }
  return msg("{0} {1} chooses LongRoPE's list, and this model's rope_type is {2}: the engine changes nothing",
             option_name("engine"), to_string(rule.engine), to_string(rope.spec.config.type));
}

ModelRope with_layer_reading(ModelRope rope, const LongRopeRule& rule) {
  if (rule.engine == LongRopeEngine::Hf || !rope.other_layer_reading || !rope.other_layer_reading->official)
    return rope;
  const ModelRope::OtherLayerReading other = *rope.other_layer_reading;
  for (const LayerRope& l : rope.layers) {
    if (l.type != other.layer_type || !l.spec) continue;
    rope.other_layer_reading = ModelRope::OtherLayerReading{rope.spec.layer_type, other.layer, false};
    rope.spec = *l.spec;
    rope.spec.notes.push_back(
        msg("layer {0} as {1} reads it: layer type {2} (the official inference's reading, which vLLM, SGLang and "
            "llama.cpp follow; HF's port gives this layer {3})",
            other.layer, engine_title(rule.engine), other.layer_type, rope.other_layer_reading->layer_type));
    break;
  }
  return rope;
}

ModelRope with_longrope_rule(ModelRope rope, const LongRopeRule& rule) {
  if (const auto unused = longrope_rule_unused(rope, rule)) rope.spec.params.warnings.push_back(*unused);
  rope = with_layer_reading(std::move(rope), rule);
  if (rule.engine == LongRopeEngine::Hf) return rope;
  rope.spec = spec_with_rule(rope.spec, rule, std::nullopt);
  for (LayerRope& layer : rope.layers) {
    if (layer.spec) layer.spec = spec_with_rule(*layer.spec, rule, std::nullopt);
  }
  return rope;
}

}  // namespace rope
