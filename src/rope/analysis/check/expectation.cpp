#include "rope/analysis/check/expectation.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/models/longrope_rule.hpp"
#include "rope/models/scaling/longrope_engine.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "rope/models/scaling/scaling_table.hpp"

namespace rope {

namespace {

/// The sentence of a layer index that the other reading gives another layer type (DeepSeek-V4): `other` that type's
/// spec, `mine` the checked one's.
Message layer_reading_says(const ModelRope::OtherLayerReading& o, const RopeSpec& other, const RopeSpec& mine) {
  const auto rope = [](const RopeSpec& s) {
    return fmt::format("{} (base {:g}, {})", s.layer_type, s.config.base, to_string(s.config.type));
  };
  if (o.official) {
    return msg(
        "matches the official inference's reading of layer {0}, not HF's port: {1}, with which the official "
        "inference, vLLM, SGLang and llama.cpp turn this layer's queries and window keys, where HF's port turns "
        "every layer's queries with {2}",
        o.layer, rope(other), rope(mine));
  }
  return msg(
      "matches HF's port's reading of layer {0}, not the official inference's: {1}, with which HF's port turns "
      "every layer's queries, where the official inference, vLLM, SGLang and llama.cpp turn this layer's with "
      "{2}",
      o.layer, rope(other), rope(mine));
}

}  // namespace

RopeExpectation expectation_from_rope(ModelRope rope, const ExpectationRequest& q) {
  const int head_dim = q.head_dim;
  // The layer type the engine gives a layer index (DeepSeek-V4: HF's port or the official inference's).
  rope = with_layer_reading(std::move(rope), q.longrope);
  // LongRoPE's list is the one the engine's rule picks (longrope_rule.hpp; HF's by default: seq_len =
  // max(position_ids) + 1 > L0; SGLang's any position > L0; vLLM and llama.cpp by their context).
  Eigen::VectorXd other_list;  // LongRoPE: the frequencies of the list not chosen
  bool other_is_short = false;
  long l0 = 0;
  if (!rope.plain && rope.spec.config.type == ScalingType::LongRope) {
    const RopeSpec chosen = spec_with_rule(rope.spec, q.longrope, q.max_position);
    l0 = chosen.params.original_max_position;
    other_is_short = chosen.config.seq_len.value_or(0) > l0;  // the long list chosen: the other is the short one
    RopeConfig other = chosen.config;
    other.seq_len = other_is_short ? l0 : l0 + 1;
    other_list = rope_parameters(other).inv_freq;
    rope.spec = chosen;
  }
  // Dynamic NTK (and HunYuan's NTK-α): HF's dynamic update computes the frequencies at seq_len = max(position_ids) + 1,
  // vLLM once at its max_model_len (longrope_rule.hpp); the other engine's reading is kept for its variant.
  std::optional<RopeExpectation::EngineOther> engine_other;
  if (!rope.plain && rope.spec.config.type == ScalingType::Dynamic) {
    const RopeSpec chosen = spec_with_rule(rope.spec, q.longrope, q.max_position);
    const bool vllm = chosen.config.dynamic_served;
    if (!chosen.config.ntk_alpha && (vllm || !rope.spec.config.seq_len)) {
      RopeSpec free = rope.spec;  // the config without a length: the other engine takes its own
      free.config.seq_len.reset();
      free.config.dynamic_served = false;
      LongRopeRule other;
      other.engine = vllm ? LongRopeEngine::Hf : LongRopeEngine::Vllm;
      try {
        const RopeSpec o = spec_with_rule(free, other, q.max_position);
        const RopeSpec& hf = vllm ? o : chosen;
        const RopeSpec& served = vllm ? chosen : o;
        const long m = hf.config.max_position_embeddings.value_or(0);
        const long l = std::max(hf.config.seq_len.value_or(m), m);  // HF's L = max(max position + 1, M)
        const auto base = [](const RopeSpec& s) { return fmt::format("{:.7g}", s.params.effective_base.value_or(0)); };
        const long n = served.config.seq_len.value_or(0);
        // The other reading's length and base (vLLM's max_model_len, or HF's L), against the checked reading's.
        const double other_length = static_cast<double>(vllm ? l : n),
                     checked_length = static_cast<double>(vllm ? n : l);
        const double other_base = (vllm ? hf : served).params.effective_base.value_or(0);
        const double checked_base = (vllm ? served : hf).params.effective_base.value_or(0);
        engine_other = {o.params.inv_freq,
                        o.params.attention_factor,
                        vllm ? msg("matches HF's reading of this config, not vLLM's: dynamic NTK's base {0} at the "
                                   "dump's length, L = max(max position + 1, M) = {1}, where vLLM computes it once at "
                                   "start-up at max_model_len {2} (base {3})",
                                   base(hf), l, n, base(served))
                             : msg("matches vLLM's reading of this config, not HF's: dynamic NTK's base {0} computed "
                                   "once at start-up at max_model_len {1}, where HF computes it at the dump's length, "
                                   "L = max(max position + 1, M) = {2} (base {3})",
                                   base(served), n, l, base(hf)),
                        {{"length", other_length}, {"base", other_base}},
                        {{"length", checked_length, other_length}, {"base", checked_base, other_base}}};
      } catch (const InvalidArgument&) {
        // the other engine's length gives no real base: no reading of it to compare with
      }
    }
    rope.spec = chosen;
  }
  if (!rope.plain && rope.other_layer_reading) {
    for (const LayerRope& l : rope.layers) {
      if (l.type != rope.other_layer_reading->layer_type || !l.spec) continue;
      engine_other = {l.spec->params.inv_freq, l.spec->params.attention_factor,
                      layer_reading_says(*rope.other_layer_reading, *l.spec, rope.spec)};
    }
  }
  RopeExpectation e;
  // The model's spec as the dump holds it (plain RoPE: its base and frequencies alone, half layout unless given).
  if (!rope.plain) e.rope = rope.spec;
  e.rope.head_dim = head_dim;
  // The error model of the angles (angle_error.hpp): the one asked for, else ggml's for a GGUF (llama.cpp computes it).
  // Hugging Face's code computes inv_freq, the angles and cos/sin in float32 for every dtype ("# Force float32" in
  // every rotary class's forward): PyTorch's float32 for a config.json or a preset, a float64 dump's too.
  e.angles = q.angles;
  if (!e.angles && (q.from_model || q.gguf)) e.angles = q.gguf ? AngleModel::Ggml : AngleModel::Float32;
  e.set_theta(rope.spec.params.inv_freq);
  e.rope.config.base = rope.spec.config.base;
  e.scaling = scaling_parameters(rope.spec.config);
  if (!rope.plain) {  // the spec's axes (M-RoPE: pair i turns by θ_i·p_a(i)), factor, scaling, output order
    // DeepSeek's RoPE part alone (llama.cpp's q_pe/k_pe nodes, HF's q_pe): the dump holds the rotary channels only.
    const bool rotary_part = rope.spec.rotary_offset > 0 && head_dim == rope.spec.rotary_dim;
    e.rope.rotary_offset = rotary_part ? 0 : rope.spec.rotary_offset;
    // The head as the model's attention holds it: DeepSeek's q = cat(q_nope, q_pe) has qk_nope_head_dim +
    // qk_rope_head_dim.
    if (rope.spec.head_dim != head_dim && !rotary_part) {
      throw InvalidArgument(error_msg("{0} has head_dim {1}, the dump's last axis is d = {2}", rope.spec.name,
                                      rope.spec.head_dim, head_dim));
    }
    if (rope.spec.config.type == ScalingType::Yarn) e.yarn_factor = rope.spec.params.factor;
    if (rope.spec.config.type == ScalingType::Yarn && rope.spec.config.truncate == false) {
      // truncate: false keeps YaRN's correction range fractional; an engine that rounds it anyway (vLLM #27722)
      RopeConfig rounded = rope.spec.config;
      rounded.truncate = true;
      const Eigen::VectorXd theta = rope_parameters(rounded).inv_freq;
      if (theta.size() == e.theta().size() && theta != e.theta()) e.yarn_truncated_theta = theta;
    }
    if (other_list.size() == e.theta().size() && other_list != e.theta())
      e.longrope_other = {other_list, other_is_short};
    // The other layer types' RoPE on this layer, whole or as their scaling on this layer's base (Gemma 3's sliding
    // layers turned with the full layers' linear factor 8: antonellof/ferrox issue #39).
    int checked = -1;
    for (std::size_t index = 0; index < rope.layers.size(); ++index)
      if (rope.layers[index].type == rope.spec.layer_type) checked = static_cast<int>(index);
    for (std::size_t index = 0; index < rope.layers.size(); ++index) {
      const LayerRope& l = rope.layers[index];
      if (!l.spec || l.type == rope.spec.layer_type || l.spec->params.inv_freq.size() != e.theta().size()) continue;
      const RopeSpec& o = *l.spec;
      std::vector<RopeExpectation::OtherLayerType> tries = {
          {l.type, static_cast<int>(index), o.params.inv_freq, o.params.attention_factor, false}};
      if (o.original.size() == e.theta().size() && rope.spec.original.size() == e.theta().size() &&
          (o.original.array() > 0).all()) {
        tries.push_back({l.type, static_cast<int>(index),
                         (rope.spec.original.array() * o.params.inv_freq.array() / o.original.array()).matrix(),
                         o.params.attention_factor, true});
      }
      for (RopeExpectation::OtherLayerType& t : tries) {
        const auto same = [&](const Eigen::VectorXd& theta, double a) {
          return theta == t.theta && a == t.attention_factor;
        };
        bool seen = same(e.theta(), e.attention_factor());
        for (const RopeExpectation::OtherLayerType& k : e.other_layer_types)
          seen = seen || same(k.theta, k.attention_factor);
        t.checked = checked;
        if (!seen) e.other_layer_types.push_back(std::move(t));
      }
    }
    if (engine_other && engine_other->theta.size() == e.theta().size() &&
        (engine_other->theta != e.theta() || engine_other->attention_factor != e.attention_factor()))
      e.engine_other = engine_other;
    // The spec's layout: the model's class, or a vision kind's own (Llama 4 and axial interleave, (V4), (V5)).
    if (!q.from_model && !q.vision) e.rope.layout = Layout::Half;
  }
  if (2 * e.theta().size() + e.rope.rotary_offset > head_dim) {
    throw InvalidArgument(
        error_msg("the rotary dimension {0} is larger than the dump's d = {1}", 2 * e.theta().size(), head_dim));
  }
  if (q.layout) {
    // A layout given: the pairs in it, written back in place (llama.cpp's order; HF's DeepSeek-V3 de-interleaves
    // its output, which the model's own spec says).
    e.rope.layout = *q.layout;
    e.rope.deinterleaved_output = false;
  }
  return e;
}

std::vector<AxisPosition> engine_cache_positions(RopeExpectation& e, const LongRopeRule& rule,
                                                 std::vector<AxisPosition> positions, std::optional<Message>& note) {
  const RopeSpec& spec = e.rope;
  if (spec.config.type != ScalingType::LongRope || rule.engine != LongRopeEngine::Sglang || !spec.config.seq_len ||
      *spec.config.seq_len != spec.params.original_max_position) {
    return positions;  // SGLang's short batch whose largest position is L0 (seq_len = that position): the one case
  }
  const long l0 = spec.params.original_max_position;
  long moved = 0;
  for (const AxisPosition& p : positions) {
    if (!p.multi() && p.value[0] == static_cast<double>(l0)) ++moved;
  }
  if (moved > 0) {
    e.longrope_l0_unturned = static_cast<double>(l0);
    note =
        msg("SGLang reads the {0} token(s) at position {1} = L0 from row {1} of its [short | long] cache, the long "
            "list's position 0: they do not turn (rope_variant.py, Phi3LongRoPEScaledRotaryEmbedding)",
            moved, l0);
  }
  return positions;
}

}  // namespace rope

namespace rope {

DumpVectors expected_dump(const DumpVectors& before, const std::vector<AxisPosition>& positions,
                          const RopeExpectation& e) {
  if (static_cast<long>(positions.size()) != before.seq) {
    throw InvalidArgument(
        error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), before.seq));
  }
  const int d = before.d, r = e.rotary_dim(), off = e.rope.rotary_offset;
  if (r + off > d || r < 2 || off < 0) {
    throw InvalidArgument(error_msg("the rotary dimension {0} does not fit in the dump's d = {1}", r, d));
  }
  DumpVectors out = before;
  out.dtype = DType::F64;
  const AxisMap* map = e.rope.axes ? &*e.rope.axes : nullptr;
  for (long s = 0; s < before.seq; ++s) {
    const AxisPosition& at = positions[static_cast<std::size_t>(s)];
    const Eigen::VectorXd phi = channel_angles(e.theta(), map, at, false);  // (A1), (V1)
    const Eigen::VectorXd phi2 = channel_angles(e.theta(), map, at, true);  // (A11): HF's XD-RoPE, its own stream
    for (long g = 0; g < before.groups(); ++g) {
      const double* x = before.vector(s, g);
      double* y = out.values.data() + (s * before.groups() + g) * d;
      const double q = e.query_scale(positions[static_cast<std::size_t>(s)][0]);  // (S21) on every channel, 1 without
      for (int ch = 0; ch < d; ++ch) y[ch] = q * x[ch];
      for (int i = 0; i < r / 2; ++i) {  // read at the pair's channels, written where it goes (de-interleaved output)
        const auto [pa, pb] = pair_channels(e, i, false);
        const auto [oa, ob] = pair_channels(e, i, true);
        const double sign = e.mode == CheckMode::Grad ? -1.0 : 1.0;  // (G1): R(m)ᵀ
        const double xa = x[pa], xb = x[pb], c = std::cos(phi[i]), sn = std::sin(phi[i]) * sign;
        const double c2 = std::cos(phi2[i]), sn2 = std::sin(phi2[i]) * sign;
        y[oa] = q * e.attention_factor() * (xa * c - xb * sn);
        y[ob] = q * e.attention_factor() * (xa * sn2 + xb * c2);
      }
    }
  }
  return out;
}

}  // namespace rope
