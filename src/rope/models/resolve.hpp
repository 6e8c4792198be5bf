/// @file
/// One resolution of a model's RoPE: a model source (a preset, a config.json or GGUF file, or none) plus
/// typed overrides give the model (ModelConfig, with where every value came from) and its RoPE (ModelRope:
/// the spec with its layout, the frequencies before and after scaling), computing the parameters once.
/// This is what every command of the command line resolves (apps/rope/cli/scaling_options.hpp maps its
/// options to RopeOverrides), and what a user of the installed library calls:
///
///     rope::RopeOverrides o;
///     o.factor = 8.0;                                  // on top of the file's rope_scaling
///     const rope::ModelRope r = rope::resolve_model_rope({"", "config.json"}, o);
///     r.spec.params.inv_freq;                          // θ_i as the model computes them
///
/// Rules (docs/scaling.md): every override wins over the file or preset and `origin` says so, key by key, in
/// the file's vocabulary; a head dimension or base given without a model is plain RoPE of them; a layer type
/// selects that layer type's RoPE; a vision tower's 2-D RoPE takes no scaling override. Messages name the
/// front end's settings through option_name (core/message.hpp), never a flag.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

#include "rope/core/constants.hpp"
#include "rope/core/types.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/rope_spec.hpp"
#include "rope/models/scaling/scaling.hpp"

namespace rope {

/// The name of a model resolved from overrides alone (no preset, no file).
inline constexpr const char* kNoModelName = "the command line";

/// Where a model's RoPE comes from: a preset of data/models/, a file (config.json or GGUF), or neither
/// (plain RoPE of the overrides' head dimension and base). Not both.
struct ModelSource {
  std::string preset;
  std::string file;
  bool any() const { return !preset.empty() || !file.empty(); }
};

/// The model of a preset or of a file (config.json, or GGUF by its magic), nullopt for neither.
/// @throws InvalidArgument for both: the rule between the two settings (option_name names them).
std::optional<ModelConfig> load_source(const ModelSource& source);

/// Which RoPE of a vision-language model: the default (the language model's; a vision tower's own
/// config is its tower), the language model's, or the vision tower's; of LTX-2, its audio stream's
/// (grid_rope.hpp (G7)).
enum class Tower { Default, Text, Vision, Audio };

/// Values given on top of the model; nullopt (or empty) is "not given".
struct RopeOverrides {
  std::optional<int> head_dim;  ///< a model's head_dim, or plain RoPE's d
  int default_head_dim = 128;   ///< plain RoPE's d when head_dim is not given
  std::optional<double> base;
  double default_base = kDefaultBase;
  std::optional<Layout> layout;                 ///< imposed on the model (override_layout: origin and note)
  Layout default_layout = Layout::Interleaved;  ///< plain RoPE's layout (said as assumed)
  std::string scaling;                          ///< rope_type by any of its names (scaling_table.hpp); "" not given
  std::optional<double> factor, beta_fast, beta_slow, mscale, mscale_all_dim, attention_factor;
  std::optional<double> low_freq_factor, high_freq_factor, partial_rotary_factor;
  std::optional<long> original_max_position_embeddings, max_position_embeddings, seq_len;
  std::optional<bool> truncate;
  std::string yarn_variant;  ///< YarnVariant by name (scaling.hpp); "" not given
  /// HunyuanVL's XD-RoPE map (axes.hpp (A11)): "hf" (the doubled sections, HF's code) or "tencent" (the list
  /// repeated, Tencent's and mlx-vlm's code); "" the config's (HF's).
  std::string xdrope_map;
  std::optional<std::vector<double>> short_factor, long_factor;
  std::string layer_type;  ///< a layer type's name or a layer index; "" not given
  std::string vision;      ///< a 2-D vision RoPE of head_dim and base (vision_rope.hpp), no model
  Tower tower = Tower::Default;
  bool float32 = false;  ///< HF's float32 path (rope_float32.hpp): refused for a vision tower
  /// What the command computes of a model with FoPE (fope.hpp): by default rotations by m·θ_i, so that a FoPE model is
  /// refused (fope_refusal) unless the command states that it lists θ or computes FoPE.
  FopeUse fope = FopeUse::Refused;

  /// The first override a vision tower's 2-D RoPE cannot take, as its setting's name ("" for none).
  std::string first_scaling_setting() const;
};

/// The RoPE of one layer type of a model (Gemma 3's sliding and full layers, Llama 4's RoPE and NoPE
/// layers): its layers, and its spec, resolved with the same overrides as if that layer type had been
/// selected; nullopt for layers that rotate nothing (NoPE).
struct LayerRope {
  std::string type;              ///< the layer type's name ("sliding_attention", "nope", …)
  std::vector<int> layers;       ///< its layer indices
  std::optional<RopeSpec> spec;  ///< nullopt: NoPE layers
  Message from;                  ///< how its base and scaling were found (LayerTypeRope::from)
};

/// A model's RoPE, resolved once: the spec is the truth of everything RoPE (the model's name and model_type,
/// base, scaling, layout, rotary dimension, where each value came from and the notes), the overrides
/// applied; `model` holds only what the model has beyond it (its attention's scales, its vision tower and
/// position rules, the file's warnings), so that no value is kept twice.
struct ModelRope {
  ModelExtras model;
  /// The model's RoPE (from_model, name and notes set): the default layer type's, or the one selected by
  /// the overrides' layer_type. spec.params holds the scaled θ_i and attention factor, spec.original the
  /// default θ_i of the same pairs, spec.rotary_dim the rotary dimension, spec.config the scaling inputs.
  RopeSpec spec;
  /// Every layer type of the model in its order (ModelConfig::layer_types), each with its spec computed
  /// once; empty when every layer uses `spec`.
  std::vector<LayerRope> layers;
  /// Nothing beyond plain RoPE of a head dimension and base was asked for: no model, no scaling, no vision.
  bool plain = false;
  /// Where engines give the selected layer index another layer type (DeepSeek-V4: HF's port turns every layer's
  /// queries with main, the official inference a compressed layer's with its own type): that other type, the layer,
  /// and whether the other reading is the official inference's (else HF's port's). nullopt: no such difference.
  struct OtherLayerReading {
    std::string layer_type;
    int layer = 0;
    bool official = false;
  };
  std::optional<OtherLayerReading> other_layer_reading;

  /// The layer type of layer `index`, or nullptr when the model has no layer types or no such layer.
  const LayerRope* layer(int index) const;
};

/// The rules of the resolved model's position ids, for `rope positions` (model_config.hpp).
/// @throws InvalidArgument when it has none (naming why).
SequencePositions sequence_positions_of(const ModelRope& r);

/// The note for a position that is not a patch of the resolved vision tower's grid (model_config.hpp), or nothing.
std::optional<Message> patch_outside_grid(const ModelRope& r, const AxisPosition& p);

/// The model of `source` with `overrides` on top (or plain RoPE of them without a source).
/// @throws InvalidArgument for contradictory or bad values (naming the settings), IoError for a file that
///         cannot be read.
ModelConfig resolve_model(const ModelSource& source, const RopeOverrides& overrides);

/// resolve_model, then the spec (make_spec, with the overrides' layout imposed by override_layout) and the
/// frequencies, computed once.
ModelRope resolve_model_rope(const ModelSource& source, const RopeOverrides& overrides);

/// The model's rules for a sequence with or without a video, the rules between the request and the model
/// checked here for every front end (settings named by option_name): a tokens_per_second given for a model
/// without time scaling, a video for a model that splits it into frames after timestamps (Qwen3-VL) without the
/// frames' text (`frame_text_given`), and the frames' text for a model that does not split a video.
/// @throws InvalidArgument naming the setting and the model.
SequencePositions sequence_positions_for(const ModelRope& model, bool has_video, bool tokens_per_second_given,
                                         bool frame_text_given = false);

}  // namespace rope
