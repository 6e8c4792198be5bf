/// @file
/// Reading a Hugging Face `config.json` into a RopeConfig (scaling.hpp); the model presets of
/// data/models/ are read the same way (presets.hpp). The JSON is read strictly (io/json_reader.hpp), the
/// keys' meaning is Hugging Face's (hf/hf_config.hpp).
/// The readers are declared here, for the top of models/ to call, and defined in the folder of each format, which
/// includes this header and never the other way: parse_model_config and read_model_config by hf/ (hf_config.cpp),
/// read_model_file, which recognizes a GGUF file by its first bytes, by gguf/ (gguf_config.cpp).
///
/// Keys read (HF conventions, docs/scaling.md "Reading a model's config"):
///   rope_theta (v4 top level, or v5 rope_parameters.rope_theta; default 10000 with a note);
///   head_dim, else hidden_size / num_attention_heads; DeepSeek's qk_rope_head_dim (the rotary part);
///   partial_rotary_factor, GPT-NeoX's rotary_pct, GPT-J's rotary_dim (→ factor rotary_dim/head_dim);
///   max_position_embeddings; original_max_position_embeddings (inside the scaling dict or top level,
///   as Phi-3 has it); `rope_scaling` (v4) or `rope_parameters` (v5) with `rope_type` or legacy `type`
///   and the parameters of scaling.hpp; model_type (→ layout: gptj, deepseek_v3 … interleaved).
/// Every value's origin is recorded ("rope_theta: rope_parameters.rope_theta"), for `rope inspect`.
#pragma once

#include "rope/core/message.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rope/models/axes.hpp"
#include "rope/models/fope.hpp"
#include "rope/models/grid_rope.hpp"
#include "rope/models/mrope_positions.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "rope/models/vision_rope.hpp"

namespace rope {

/// Bound on the size of a config file read (real ones are a few kB; Phi-3's is 4 kB).
inline constexpr std::size_t kMaxConfigBytes = 4u << 20;

/// How a model's pair layout is known (rope_spec.hpp).
enum class LayoutBasis {
  Family,     ///< the HF modeling code of its model_type (family_layout in rope_spec.hpp)
  ConfigKey,  ///< a config key: DeepSeek's rope_interleave
  Flag,       ///< --layout given explicitly
  Assumed,    ///< not known: unknown model_type (HF's common rotate_half assumed), or plain RoPE's default
};

/// The RoPE of one layer type (read by hf/hf_config_layers.cpp): Gemma 3's sliding and full layers, v5 rope_parameters
/// keyed by layer type, Llama 4's RoPE and NoPE layers.
struct LayerTypeRope {
  LayerTypeRope() = default;
  LayerTypeRope(std::string n, std::vector<int> l, bool r, RopeConfig c, Message f)
      : name(std::move(n)), layers(std::move(l)), rope(r), config(std::move(c)), from(std::move(f)) {}
  std::string name;         ///< "full_attention", "sliding_attention", "rope", "nope"
  std::vector<int> layers;  ///< the layer indices of this type
  bool rope = true;         ///< false: a NoPE layer (no rotation)
  RopeConfig config;        ///< its RoPE (rope true)
  Message from;             ///< how its base and scaling were found
  /// Its own pair layout, when it is not the model's (llama.cpp's lightning indexers with a rope type of their own:
  /// DeepSeek-3.2, dots3note NEOX; GLM-DSA NORM), and how it is known (layout_reason).
  std::optional<Layout> layout;
  Message layout_reason;
  /// Its heads rotate their first channels even where the model's heads rotate the last (MLA's [nope | rope]): the
  /// indexers' heads are [rope | nope] (src/models/deepseek32.cpp:179 at de3ff815ea7d).
  bool first_channels = false;
  /// A layer index names this type under Hugging Face's reading only: DeepSeek-V4's main, with which HF's port turns
  /// every layer's queries. The official inference (and vLLM, SGLang, llama.cpp) turn a compressed layer's queries
  /// with that layer's own type (select_layer_type with `official`).
  bool hf_index_only = false;
};

/// Llama 4's query temperature on NoPE layers (HF Llama4TextAttention, attn_temperature_tuning):
///   t(p) = log1p(floor((p + 1) / floor_scale)) · attn_scale + 1                        (S20)
struct NopeTemperature {
  double floor_scale = 8192;
  double attn_scale = 0.1;
  double at(double position) const;
};

/// Ministral 3 and Mistral 4's query scaling on every layer (HF get_llama_4_attn_scale, applied to the query
/// after RoPE by Ministral3Attention.forward and Mistral4Attention.forward):
///   s(p) = 1 + β · ln(1 + floor(p / L0))                                                  (S21)
/// β = rope_parameters.llama_4_scaling_beta, L0 = rope_parameters.original_max_position_embeddings.
struct QueryScaling {
  double beta = 0.1;
  double original = 16384;
  Message from;  ///< where β and L0 came from
  double at(double position) const;
};

/// The factor a family's attention puts on its softmax scale qk_head_dim^−0.5, outside RoPE (the family
/// table's softmax_scale): DeepSeek-V3, Kimi K2 and Mistral 4 (HF yarn_apply_mscale) multiply it by
///   get_mscale(f, m)² = (0.1 · m · ln f + 1)²   (1 when f <= 1), m = mscale_all_dim            (S9)
/// when the RoPE block's rope_type is not default and mscale_all_dim is not 0.
struct SoftmaxScale {
  double factor = 1;          ///< f, the RoPE block's factor
  double mscale_all_dim = 0;  ///< m
  double mscale = 1;          ///< get_mscale(f, m)
  double multiplier = 1;      ///< get_mscale(f, m)²
  Message from;               ///< HF's code that applies it
};

/// The softmax scale factor of `model_type`'s attention for this RoPE (the family table's softmax_scale: HF's
/// yarn_apply_mscale multiplies when rope_type is not default and mscale_all_dim is not 0, with the block's
/// factor), or nullopt: the family has no such rule, or it does not apply to this RoPE.
std::optional<SoftmaxScale> family_softmax_scale(std::string_view model_type, const RopeConfig& rope);

/// The note that says it, with the numbers a reader can check.
Message softmax_scale_note(const SoftmaxScale& s);

/// The softmax scale of the model's attention: its scores are s_ij = ⟨q_i, k_j⟩ · value before the softmax (HF's
/// self.scaling, llama.cpp's kq_scale; docs/scaling.md (S22)). The family table's attention_scale decides the rule
/// (head_dim^−0.5 without one), the softmax_scale multiplier get_mscale² (S9) included.
struct AttentionScale {
  double value = 1;            ///< the scale the attention multiplies q·k by
  double rule_value = 1;       ///< the rule's own scale, before softmax_scale's multiplier
  Message rule;                ///< "256^−0.5 (query_pre_attn_scalar 256)", the numbers a reader can check
  Message from;                ///< where the numbers came from: config keys, a class default, the code
  bool head_dim_rule = false;  ///< head_dim^−0.5 of the RoPE's head_dim (a typed --dim changes it)
  double multiplier = 1;       ///< softmax_scale's get_mscale², 1 without
  /// The scores capped before the softmax, s → cap·tanh(s / cap) (Gemma 2's attn_logit_softcapping); nullopt: none.
  std::optional<double> softcap;
  Message softcap_from;  ///< where the cap came from
};

/// head_dim^−0.5, from `from`.
AttentionScale head_dim_attention_scale(int head_dim, Message from);

/// `s` with its multiplier set to softmax_scale's get_mscale² (1 without one): value = rule_value × multiplier.
AttentionScale with_softmax_multiplier(AttentionScale s, const std::optional<SoftmaxScale>& softmax_scale);

/// "0.0625 = 256^−0.5 (query_pre_attn_scalar 256)", with the multiplier when there is one.
Message attention_scale_text(const AttentionScale& s);

/// A vision tower's RoPE as its config describes it (hf_config_vision.cpp, docs/multi-axis.md §6): the
/// `vision_config` of a vision-language model, or the whole file when it is a vision tower's own config.
struct VisionTowerConfig {
  VisionRope kind = VisionRope::Qwen2VL;
  std::string model_type;  ///< the vision model_type ("pixtral", "llama4_vision_model", …)
  int head_dim = 0;        ///< channels of one attention head of the tower (all rotate)
  double base = 10000;
  std::optional<long> grid;     ///< patches per image side, image_size / patch_size, when the config fixes it
  std::vector<Message> origin;  ///< one line per value: where it came from
  std::vector<Message> notes;
};

/// How a Qwen-VL config builds the position ids of a text + image + video sequence (hf_config_sequence.cpp,
/// docs/multi-axis.md §2): its spatial_merge_size and, for Qwen2.5-VL, tokens_per_second.
struct SequencePositions {
  PositionRules rules;
  std::string family;  ///< "Qwen2-VL", "Qwen2.5-VL" or "Qwen3-VL": whose get_rope_index
  /// Qwen3-VL: a video is its frames, each its own 1×H×W block after a timestamp text (get_rope_index).
  bool frames_with_timestamps = false;
  std::vector<Message> origin;  ///< where each rule came from: spatial_merge_size, then tokens_per_second
};

/// What a model has beyond its RoPE, read with it from its config or preset: its attention's scales, its NoPE layers'
/// query temperature, its vision tower and the rules of its position ids, the file's warnings. A resolved model
/// (resolve.hpp: ModelRope::model) keeps these alone: its RoPE (name, model_type, base, scaling, layout, origin and
/// notes) is the spec's (rope_spec.hpp), the overrides applied, in one copy.
struct ModelExtras {
  std::optional<NopeTemperature> nope_temperature;
  std::optional<QueryScaling> query_scaling;  ///< every layer's query scaled by (S21) (family table query_scaling)
  std::optional<SoftmaxScale> softmax_scale;  ///< the attention's softmax scale × mscale² (family table softmax_scale)
  /// The attention's softmax scale (family table attention_scale, llama.cpp's kq_scale); nullopt: plain RoPE, 1/√d.
  std::optional<AttentionScale> attention_scale;
  /// This is a vision tower's 2-D RoPE (vision_rope.hpp): from --vision KIND, or select_tower.
  std::optional<VisionRope> vision;
  /// The config's vision tower, when rope knows its RoPE.
  std::optional<VisionTowerConfig> vision_tower;
  /// The config's rules for the position ids of a mixed sequence (Qwen2-VL, Qwen2.5-VL, Qwen3-VL);
  /// sequence_positions_error says why not when its vision_config is broken.
  std::optional<SequencePositions> sequence_positions;
  std::string sequence_positions_error;
  /// A diffusers transformer's latent-grid RoPE and its pipeline's positions (grid_rope.hpp), by its _class_name.
  std::optional<GridRope> grid;
  std::vector<Message> warnings;  ///< likely mistakes in the file: unknown keys of the RoPE block (with a suggestion)
};

/// A model as its config or preset gives it: its RoPE's inputs (what make_spec turns into the spec), and the rest.
struct ModelConfig : ModelExtras {
  RopeConfig rope;
  std::vector<LayerTypeRope> layer_types;  ///< empty: every layer uses `rope`
  std::string layer_type;                  ///< the entry of layer_types `rope` is ("" when empty)
  LayoutBasis layout_basis = LayoutBasis::Assumed;
  Message layout_reason;                ///< "model family llama", "rope_interleave true", "assumed: …"
  std::optional<int> qk_nope_head_dim;  ///< DeepSeek MLA: channels before the rotary ones that carry no position
  std::optional<MropeSections> mrope;   ///< multimodal sections (mrope_section; GGUF rope.dimension_sections)
  std::optional<FopeConfig> fope;       ///< FoPE (fope.hpp): Intern-S1-Pro's learned per-head cos and sin
  std::string vision_error;             ///< why the config's vision tower has no RoPE rope knows, when it has one
  bool vision_only = false;     ///< the file is a vision tower's own config (model_type pixtral, llama4_vision_model)
  std::string name;             ///< file path or preset name
  std::string model_type;       ///< config's model_type, if any
  std::vector<Message> origin;  ///< one line per value: where it came from
  std::vector<Message> notes;   ///< things a reader should know (defaults applied, conventions)
};

/// Parses the JSON text of a config.json. `name` is used in messages.
/// @throws InvalidArgument with the JSON path of the problem, e.g.
///         "config.json: rope_scaling.long_factor: expected 48 numbers, got 47", for invalid JSON,
///         wrong types, missing required keys, non-positive factors, lists of the wrong length.
ModelConfig parse_model_config(std::string_view json_text, const std::string& name);

/// The RoPE of the model's vision tower (--tower vision): a ModelConfig with `vision` set, head_dim and
/// base of the tower, the layout of its HF modeling code, its origin and notes.
/// @throws InvalidArgument when the config has no vision tower rope knows (naming why).
ModelConfig select_vision_tower(const ModelConfig& model);

/// A vision tower whose config fixes its grid (image_size / patch_size = G patches per side) has patches
/// (row, column) with whole numbers 0 … G − 1 only (its modeling code builds its angle table for them): for a
/// position that is not such a patch (a component outside 0 … G − 1 or not a whole number; one number m is the
/// patch (m, m)) this says so, and that rope rotates it by the formula all the same. Nothing otherwise.
std::optional<Message> patch_outside_grid(const ModelConfig& model, const AxisPosition& p);
/// The same of a model named `name` (a resolved model's: resolve.hpp).
std::optional<Message> patch_outside_grid(const ModelExtras& model, const std::string& name, const AxisPosition& p);

/// The model's rules for `rope positions`. @throws InvalidArgument when it has none (naming why).
SequencePositions sequence_positions_of(const ModelConfig& model);
/// The same of a model named `name`, of model_type `model_type` (a resolved model's: resolve.hpp).
SequencePositions sequence_positions_of(const ModelExtras& model, const std::string& name,
                                        const std::string& model_type);

/// A 2-D vision RoPE from the command line (--vision KIND with --dim and --base).
ModelConfig vision_model(VisionRope kind, int head_dim, double base);

/// Reads and parses a file. @throws IoError if it cannot be read (or is larger than kMaxConfigBytes:
/// InvalidArgument), InvalidArgument as parse_model_config.
ModelConfig read_model_config(const std::string& path);

/// The model of a file: a GGUF file when it starts with "GGUF" (whatever its name), else a config.json
/// (read_model_config). What `--config FILE` and `rope inspect FILE` read.
ModelConfig read_model_file(const std::string& path);

}  // namespace rope
