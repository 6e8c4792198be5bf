#include "rope/models/resolve.hpp"
#include "rope/models/resolve_count.hpp"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>

#include <utility>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/core/types.hpp"
#include "rope/core/message.hpp"
#include "rope/core/utf8.hpp"
#include "rope/models/fope.hpp"
#include "rope/models/grid_rope.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/layers_without_rope.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/scaling/scaling_table.hpp"
#include "rope/models/vision_rope.hpp"

namespace rope {

std::optional<ModelConfig> load_source(const ModelSource& source) {
  if (!source.file.empty() && !source.preset.empty()) {
    throw InvalidArgument(
        error_msg("give {0} FILE or {1} NAME, not both", option_name("config"), option_name("model")));
  }
  if (!source.preset.empty()) return load_preset(source.preset);
  if (!source.file.empty()) return read_model_file(source.file);  // config.json, or GGUF by its magic
  return std::nullopt;
}

std::string RopeOverrides::first_scaling_setting() const {
  const std::pair<bool, const char*> given[] = {
      {!scaling.empty(), "scaling"},
      {factor.has_value(), "factor"},
      {original_max_position_embeddings.has_value(), "original_max_position_embeddings"},
      {max_position_embeddings.has_value(), "max_position_embeddings"},
      {beta_fast.has_value(), "beta_fast"},
      {beta_slow.has_value(), "beta_slow"},
      {truncate.has_value(), "truncate"},
      {!yarn_variant.empty(), "yarn_variant"},
      {mscale.has_value(), "mscale"},
      {mscale_all_dim.has_value(), "mscale_all_dim"},
      {attention_factor.has_value(), "attention_factor"},
      {low_freq_factor.has_value(), "low_freq_factor"},
      {high_freq_factor.has_value(), "high_freq_factor"},
      {short_factor.has_value(), "short_factor"},
      {long_factor.has_value(), "long_factor"},
      {seq_len.has_value(), "seq_len"},
      {!layer_type.empty(), "layer_type"},
      {partial_rotary_factor.has_value(), "partial_rotary_factor"},
      {float32, "float32"}};
  for (const auto& [is_given, name] : given) {
    if (is_given) return name;
  }
  return "";
}

namespace {

std::atomic<long> g_resolutions{0};

/// A vision RoPE of the overrides, or a vision-language model's tower, in place of the language model's
/// (docs/multi-axis.md §6).
void select_tower(const RopeOverrides& o, bool from_file, ModelConfig& m, int dim, double base) {
  if (o.tower != Tower::Default && !from_file) {
    throw InvalidArgument(error_msg("{0} needs {1} or {2} (a vision-language model's config)", option_name("tower"),
                                    option_name("model"), option_name("config")));
  }
  if (!o.vision.empty()) {
    if (from_file) {
      throw InvalidArgument(
          error_msg("{0} builds a 2-D vision RoPE from {1} and {2}; for the vision tower of {3} or {4} give {5} "
                    "vision",
                    option_name("vision"), option_name("dim"), option_name("base"), option_name("model"),
                    option_name("config"), option_name("tower")));
    }
    m = vision_model(parse_vision_rope(o.vision), dim, base);
    m.name = kNoModelName;
    m.origin.push_back(msg("vision RoPE: {0} ({1} on the command line)", o.vision, option_name("vision")));
  } else if (o.tower == Tower::Audio) {
    // LTX-2's audio stream (grid_rope.hpp (G7)): its own RoPE, read from the same config as the video's.
    if (!m.grid || !m.grid->ltx2_audio) {
      throw InvalidArgument(error_msg("{0} audio: {1} has no audio stream (LTX-2's LTX2VideoTransformer3DModel has)",
                                      option_name("tower"), m.name));
    }
    GridRope audio = ltx2_audio_rope(*m.grid);
    m.rope.head_dim = audio.head_dim;
    for (const Message& line : audio.ltx2_audio->origin) m.origin.push_back(line);
    m.origin.push_back(msg("tower: audio ({0} on the command line): LTX-2's audio stream", option_name("tower")));
    m.notes = audio.notes;
    m.layout_reason = Message(msg("diffusers {0}: {1}", std::string(class_name(audio.model)), audio.source));
    m.grid = std::move(audio);
  } else if (o.tower == Tower::Text && m.vision_only) {
    throw InvalidArgument(
        error_msg("{0} text: {1} is the config of a vision tower (model_type {2}), it has no language model",
                  option_name("tower"), m.name, m.vision_tower ? m.vision_tower->model_type : m.model_type));
  } else if (o.tower == Tower::Vision || (o.tower == Tower::Default && m.vision_only)) {
    const bool implicit = o.tower == Tower::Default;
    m = select_vision_tower(m);
    if (implicit) {
      m.notes.insert(m.notes.begin(),
                     msg("model_type {0} is a vision tower's config: read as its 2-D RoPE", m.model_type));
    }
  } else if (m.vision_tower && from_file) {
    m.notes.push_back(msg("{0} also has a vision tower ({1}): {2} vision gives its 2-D RoPE", m.name,
                          m.vision_tower->model_type, option_name("tower")));
  }
  if (m.vision) {
    const std::string setting = o.first_scaling_setting();
    if (!setting.empty()) {
      throw InvalidArgument(
          error_msg("{0}: a vision tower's 2-D RoPE ({1}) has no context scaling, partial rotation, layer "
                    "types or float32 path in rope",
                    option_name(setting), to_string(*m.vision)));
    }
  }
}

/// --layer-type: the RoPE of one layer type in place of the model's default.
void select_layer(const RopeOverrides& o, ModelConfig& m) {
  const LayerTypeRope& lt = select_layer_type(m, o.layer_type);
  if (!lt.rope) {
    if (m.nope_temperature) {  // Llama 4: its NoPE layers scale the query instead (S20)
      throw InvalidArgument(
          error_msg("{0} {1}: layers {2} of {3} are NoPE layers, they rotate nothing (rope inspect "
                    "shows their query temperature)",
                    option_name("layer_type"), o.layer_type, describe_layers(lt.layers), m.name));
    }
    throw InvalidArgument(error_msg("{0} {1}: layers {2} of {3} have no RoPE, they rotate nothing",
                                    option_name("layer_type"), o.layer_type, describe_layers(lt.layers), m.name));
  }
  const Layout layout = lt.layout.value_or(m.rope.layout);
  const Message from = lt.from;
  const std::string name = lt.name;
  const std::string layers = describe_layers(lt.layers);
  m.rope = lt.config;
  m.rope.layout = layout;
  if (lt.layout) {  // a rope type of its own (llama.cpp's indexers), known as the model's is
    m.layout_basis = LayoutBasis::ConfigKey;
    m.layout_reason = lt.layout_reason;
  }
  if (lt.first_channels) {
    m.qk_nope_head_dim.reset();     // [rope | nope]: the rotary channels come first
  } else if (m.qk_nope_head_dim) {  // the channels before the rotary ones, of this layer's own head (dots3note's
                                    // sliding MLA heads)
    m.qk_nope_head_dim = m.rope.head_dim - static_cast<int>(m.rope.head_dim * m.rope.partial_rotary_factor);
  }
  m.layer_type = name;
  m.origin.push_back(msg("layer type: {0} (layers {1}; {2} {3} on the command line): {4}", name, layers,
                         option_name("layer_type"), o.layer_type, from));
}

/// Every override on top of the file; `origin` says so, key by key, in the file's vocabulary.
void apply_overrides(const RopeOverrides& o, ModelConfig& m) {
  RopeConfig& r = m.rope;
  const auto set = [&m](auto& field, const auto& value, const char* key) {
    if (!value) return;
    field = *value;
    m.origin.push_back(msg("{0}: {1} ({2} on the command line)", key, *value, option_name(key)));
  };
  if (!o.scaling.empty()) {
    // The names of rope_type in a config file (scaling_table.hpp), with the same notes.
    const ScalingName scaling = parse_scaling_name(o.scaling);
    r.type = scaling.type;
    m.origin.push_back(msg("rope_type: {0} ({1} on the command line)", to_string(r.type), option_name("scaling")));
    if (scaling.note) m.notes.push_back(*scaling.note);
  }
  set(r.partial_rotary_factor, o.partial_rotary_factor, "partial_rotary_factor");
  set(r.factor, o.factor, "factor");
  set(r.original_max_position_embeddings, o.original_max_position_embeddings, "original_max_position_embeddings");
  set(r.max_position_embeddings, o.max_position_embeddings, "max_position_embeddings");
  set(r.beta_fast, o.beta_fast, "beta_fast");
  set(r.beta_slow, o.beta_slow, "beta_slow");
  set(r.truncate, o.truncate, "truncate");
  if (!o.yarn_variant.empty()) {
    r.yarn_variant = parse_yarn_variant(o.yarn_variant);
    m.origin.push_back(
        msg("yarn variant: {0} ({1} on the command line)", to_string(r.yarn_variant), option_name("yarn_variant")));
  }
  if (!o.xdrope_map.empty()) {
    if (o.xdrope_map != "hf" && o.xdrope_map != "tencent") {
      throw InvalidArgument(
          error_msg("{0} must be hf or tencent (got '{1}')", option_name("xdrope_map"), escape_controls(o.xdrope_map)));
    }
    const bool xd =
        m.mrope && (m.mrope->order == SectionOrder::XdropeHf || m.mrope->order == SectionOrder::XdropeTencent);
    if (!xd) {
      throw InvalidArgument(error_msg("{0}: this model has no XD-RoPE (HunyuanVL's rope_scaling.xdrope_section)",
                                      option_name("xdrope_map")));
    }
    m.mrope->order = o.xdrope_map == "hf" ? SectionOrder::XdropeHf : SectionOrder::XdropeTencent;
    m.origin.push_back(msg("XD-RoPE map: {0} ({1} on the command line)", o.xdrope_map, option_name("xdrope_map")));
  }
  set(r.mscale, o.mscale, "mscale");
  set(r.mscale_all_dim, o.mscale_all_dim, "mscale_all_dim");
  set(r.attention_factor, o.attention_factor, "attention_factor");
  set(r.low_freq_factor, o.low_freq_factor, "low_freq_factor");
  set(r.high_freq_factor, o.high_freq_factor, "high_freq_factor");
  set(r.seq_len, o.seq_len, "seq_len");
  for (auto [list, field, key] : {std::tuple{&o.short_factor, &r.short_factor, "short_factor"},
                                  std::tuple{&o.long_factor, &r.long_factor, "long_factor"}}) {
    if (!*list) continue;
    *field = **list;
    m.origin.push_back(msg("{0}: {1} numbers ({2} on the command line)", key, field->size(), option_name(key)));
  }
  // The family's softmax scale follows the factor and mscale_all_dim the command line gave: its note with it.
  const std::optional<SoftmaxScale> now = family_softmax_scale(m.model_type, r);
  const auto key = [](const std::optional<SoftmaxScale>& s) {
    return s ? std::pair{s->factor, s->mscale_all_dim} : std::pair{0.0, 0.0};
  };
  if (key(now) != key(m.softmax_scale)) {
    if (m.softmax_scale) {
      const std::string old = softmax_scale_note(*m.softmax_scale).en;
      m.notes.erase(std::remove_if(m.notes.begin(), m.notes.end(), [&old](const Message& n) { return n.en == old; }),
                    m.notes.end());
    }
    if (now) m.notes.push_back(softmax_scale_note(*now));
    m.softmax_scale = now;
  }
  // The attention's softmax scale follows: head_dim^−0.5 of the head the layer type or --dim gave, × get_mscale².
  if (m.attention_scale) {
    if (m.attention_scale->head_dim_rule) {
      const AttentionScale head = head_dim_attention_scale(r.head_dim, m.attention_scale->from);
      m.attention_scale->rule_value = head.rule_value;
      m.attention_scale->rule = head.rule;
    }
    m.attention_scale = with_softmax_multiplier(*m.attention_scale, m.softmax_scale);
  }
}

/// The model of the source alone: a preset, a file, or plain RoPE of the overrides' head dimension and base.
ModelConfig load_model(const ModelSource& source, const RopeOverrides& o) {
  ModelConfig m;
  if (std::optional<ModelConfig> loaded = load_source(source)) {
    m = std::move(*loaded);
  } else {
    m.name = kNoModelName;
    m.rope.head_dim = o.head_dim.value_or(o.default_head_dim);
    m.rope.base = o.base.value_or(o.default_base);
    m.rope.layout = o.default_layout;
    m.layout_basis = LayoutBasis::Assumed;
    m.layout_reason = msg("assumed: {0} default", option_name("layout"));
  }
  return m;
}

/// The overrides on top of a loaded model: its tower, its layer type, then every value.
ModelConfig apply_to(ModelConfig m, bool from_file, const RopeOverrides& o) {
  const int dim = o.head_dim.value_or(o.default_head_dim);
  const double base = o.base.value_or(o.default_base);
  select_tower(o, from_file, m, dim, base);
  if (!o.layer_type.empty()) {
    if (!from_file) {
      throw InvalidArgument(
          error_msg("{0} needs {1} or {2}", option_name("layer_type"), option_name("model"), option_name("config")));
    }
    select_layer(o, m);
  }
  if (from_file && o.head_dim) {
    m.rope.head_dim = dim;
    m.origin.push_back(msg("{0}: {1} {2} (command line)", "dim", option_name("dim"), std::to_string(dim)));
  }
  if (from_file && o.base) {
    m.rope.base = base;
    m.origin.push_back(msg("{0}: {1} {2} (command line)", "base", option_name("base"), fmt::format("{}", base)));
  }
  apply_overrides(o, m);
  return m;
}

/// The spec of a resolved model, its frequencies computed once by make_spec (a vision tower's own
/// ladders, (V2)-(V5), included), with the overrides' layout imposed.
RopeSpec spec_of(const ModelConfig& m, bool from_file, const RopeOverrides& o) {
  RopeSpec spec = make_spec(m);
  spec.from_model = from_file;
  if (o.layout) override_layout(spec, *o.layout);
  return spec;
}

}  // namespace

const LayerRope* ModelRope::layer(int index) const {
  for (const LayerRope& l : layers) {
    for (int i : l.layers) {
      if (i == index) return &l;
    }
  }
  return nullptr;
}

ModelConfig resolve_model(const ModelSource& source, const RopeOverrides& o) {
  return apply_to(load_model(source, o), source.any(), o);
}

std::optional<LayersWithoutRope> layers_without_rope(const ModelSource& source, const RopeOverrides& o) {
  if (o.layer_type.empty() || !source.any() || o.tower == Tower::Vision || !o.vision.empty()) return std::nullopt;
  const ModelConfig m = load_model(source, o);
  if (m.vision_only) return std::nullopt;
  const LayerTypeRope& lt = select_layer_type(m, o.layer_type);
  if (lt.rope) return std::nullopt;
  return LayersWithoutRope{m.name, lt.name, lt.layers, m.nope_temperature};  // Llama 4: the query's temperature (S20)
}

ModelRope resolve_model_rope(const ModelSource& source, const RopeOverrides& o) {
  ++g_resolutions;
  const bool from_file = source.any();
  ModelRope r;
  r.plain = !from_file && o.vision.empty() && o.tower == Tower::Default && o.first_scaling_setting().empty();
  if (r.plain) {
    // Plain RoPE: d and base are checked as (M1) states them (frequencies() checks the same), before anything else.
    check_dimension(o.head_dim.value_or(o.default_head_dim));
    check_base(o.base.value_or(o.default_base));
  }
  const ModelConfig loaded = load_model(source, o);
  const ModelConfig m = apply_to(loaded, from_file, o);
  r.spec = spec_of(m, from_file, o);
  // FoPE (fope.hpp): decided here for every command, by what the command says it computes.
  if (r.spec.fope && o.fope == FopeUse::Refused) throw InvalidArgument(fope_refusal(r.spec.name));
  r.model = m;  // what the model has beyond its RoPE: the spec holds the rest
  // One spec per layer type, each as if its layer type had been selected, with the same overrides: from a copy of
  // the model holding that one layer type (a copy of every type per type was quadratic in the types).
  std::optional<ModelConfig> bare;
  for (const LayerTypeRope& lt : m.layer_types) {
    LayerRope l{lt.name, lt.layers, std::nullopt, lt.from};
    if (lt.rope && lt.name == m.layer_type) {
      l.spec = r.spec;
    } else if (lt.rope) {
      if (!bare) {
        bare = loaded;
        bare->layer_types.clear();
      }
      ModelConfig one = *bare;
      one.layer_types = {lt};
      RopeOverrides layer_overrides = o;
      layer_overrides.layer_type = lt.name;
      l.spec = spec_of(apply_to(std::move(one), from_file, layer_overrides), from_file, layer_overrides);
    }
    r.layers.push_back(std::move(l));
  }
  // A layer index that HF's reading and the official inference's give different layer types (DeepSeek-V4): the
  // spec is HF's; the official type is kept for the engines that read it (longrope_rule.hpp, with_layer_reading).
  if (is_layer_index(o.layer_type) && from_file) {
    const LayerTypeRope& official = select_layer_type(m, o.layer_type, true);
    if (official.name != m.layer_type && official.rope) {
      r.other_layer_reading = ModelRope::OtherLayerReading{official.name, std::stoi(o.layer_type), true};
    }
  }
  return r;
}

long model_resolutions() { return g_resolutions.load(); }

SequencePositions sequence_positions_of(const ModelRope& r) {
  return sequence_positions_of(r.model, r.spec.name, r.spec.model_type);
}

std::optional<Message> patch_outside_grid(const ModelRope& r, const AxisPosition& p) {
  return patch_outside_grid(r.model, r.spec.name, p);
}

SequencePositions sequence_positions_for(const ModelRope& model, bool has_video, bool tokens_per_second_given,
                                         bool frame_text_given) {
  SequencePositions s = sequence_positions_of(model);
  // HunyuanVL (X1): images alone; its video is refused by xdrope_index. openPangu-VL (P1): its frames are fixed.
  if (s.rules.xdrope && (tokens_per_second_given || frame_text_given)) {
    throw InvalidArgument(error_msg(
        "{0}: {1} ({2}) has images alone, with no time scaling and no frames (vLLM's "
        "get_xdrope_input_positions in hunyuan_vision.py)",
        option_name(tokens_per_second_given ? "tokens_per_second" : "frame_text"), model.spec.name, s.family));
  }
  if (s.rules.pangu && frame_text_given) {
    throw InvalidArgument(
        error_msg("{0}: {1} ({2}) splits a video into its frames with two tokens between two frames "
                  "(a frame's end, the next one's start) and none before the first: nothing to give",
                  option_name("frame_text"), model.spec.name, s.family));
  }
  if (tokens_per_second_given && !s.rules.tokens_per_second) {
    throw InvalidArgument(
        s.frames_with_timestamps
            ? error_msg(
                  "{0}: {1} ({2}) has no time scaling: its video time index is a timestamp text before each frame",
                  option_name("tokens_per_second"), model.spec.name, s.family)
            : error_msg("{0}: {1} ({2}) has no time scaling: its video time index is the frame index",
                        option_name("tokens_per_second"), model.spec.name, s.family));
  }
  if (frame_text_given && !s.frames_with_timestamps) {
    throw InvalidArgument(error_msg("{0}: {1} ({2}) keeps a video one block: it has no timestamp text between frames",
                                    option_name("frame_text"), model.spec.name, s.family));
  }
  if (has_video && s.frames_with_timestamps && !frame_text_given) {
    throw InvalidArgument(
        error_msg("{0}: {1} ({2}) splits a video into its frames, each its own 1xHxW block after a timestamp "
                  "text: give {3} N, the timestamp's tokens before each frame, or each frame as {4} 1xHxW after "
                  "{5} N",
                  option_name("video"), model.spec.name, s.family, option_name("frame_text"), option_name("image"),
                  option_name("text")));
  }
  return s;
}

}  // namespace rope
