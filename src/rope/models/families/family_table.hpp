/// @file
/// The model families rope knows, as data: data/families.json, one row per Hugging Face model_type, compiled
/// in at build time (src/CMakeLists.txt). A row holds what the family's code decides without a key in
/// config.json: its pair layout, its config class's default rope_theta and partial_rotary_factor, the
/// default of rope_interleave, whether the code returns the rotated pairs de-interleaved, and the HF file and
/// line each value comes from (docs/families.md lists them, generated from the same file). Adding a model is
/// adding a row (and a test case).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rope/core/types.hpp"

namespace rope {

/// How a config class builds layer_types when the config has none: layer i is `every` when (i + 1) is a
/// multiple of the interval (the config's `key`, else `interval_default`), else `other`.
struct LayerPattern {
  std::string key;  ///< "sliding_window_pattern"
  long interval_default = 4;
  std::string every, other;  ///< "full_attention", "sliding_attention"
  long layers_default = 0;   ///< num_hidden_layers when the config has none
};

/// A no_rope_layers list (1: the layer uses RoPE), built when absent as int((i + 1) % interval != 0).
struct NoRopeLayers {
  std::string interval_key;  ///< "no_rope_layer_interval"
  long interval_default = 4;
  long layers_default = 0;
};

/// A layer type whose heads have another size (Gemma 4's full layers: global_head_dim, default 512).
struct LayerHeadDim {
  std::string layer_type;  ///< "full_attention"
  std::string key;         ///< "global_head_dim"
  long default_value = 0;  ///< the class's default when the key is absent
};

/// The softmax scale of a family's attention, HF's self.scaling (data/families.json attention_scale): scores =
/// q·k × scale. A row without it: head_dim^−0.5.
struct AttentionScaleRule {
  /// "inverse_sqrt_key": key^−0.5 (Gemma 2, Gemma 3 query_pre_attn_scalar); "key": the key's value itself (Granite
  /// attention_multiplier); "constant": `value` (Gemma 4: 1); "qk_head_dim": (qk_nope_head_dim + qk_rope_head_dim)^−0.5
  /// (DeepSeek's MLA head).
  std::string rule;
  std::string key;           ///< the config key (inverse_sqrt_key, key)
  double default_value = 0;  ///< the class default when the key is absent; constant's value
  long nope_default = 0;     ///< qk_head_dim: the class's qk_nope_head_dim
  long rope_default = 0;     ///< qk_head_dim: the class's qk_rope_head_dim
  /// The scores capped as cap·tanh(s / cap) (Gemma 2): the config key (null there: no cap) and the class default.
  std::string softcap_key;
  double softcap_default = 0;
  std::string source;  ///< HF file and class of it
};

/// How a family's fused q/k/v tensor (`query_key_value`) orders its rows, head blocks of d rows each
/// (data/families.json fused_qkv): `Stacked` all H query heads, then the H_kv key heads, then the value heads;
/// `PerHead` [q, k, v] of head 0, then of head 1, … (H_kv = H); `KvGroups` per KV group, its H / H_kv query heads,
/// then its key head, then its value head.
enum class FusedQkvLayout { Stacked, PerHead, KvGroups };

/// One rule of a family's fused q/k/v: it applies when the config's boolean `when` is true (its class default when
/// absent), or always when `when` is empty; the KV heads are `kv_heads` when set, else the first of
/// `kv_heads_keys` the config has, else `kv_heads_default` when set, else the query head count.
struct FusedQkvRule {
  std::string when;
  FusedQkvLayout layout = FusedQkvLayout::Stacked;
  std::optional<long> kv_heads;
  std::vector<std::string> kv_heads_keys;
  std::optional<long> kv_heads_default;
};

/// A family's fused q/k/v tensor: its name's last part ("query_key_value"), the rules in order (the first that
/// applies wins, the last applies always), the class defaults of the rules' keys, and the modeling code and the
/// llama.cpp converter they were read from.
struct FusedQkv {
  std::string tensor;
  std::vector<FusedQkvRule> rules;
  std::vector<std::pair<std::string, bool>> defaults;
  std::string source, gguf_source;
};

/// The layout's name in data/families.json ("stacked", "per_head", "kv_groups").
const char* fused_qkv_layout_name(FusedQkvLayout layout);

struct ModelFamily {
  std::string model_type;
  std::optional<Layout> layout;            ///< the modeling code's pair layout
  std::optional<double> default_theta;     ///< the config class's rope_theta (HF v5)
  std::optional<double> default_theta_v4;  ///< transformers 4.x's, where it differs
  std::optional<double> default_partial_rotary_factor;
  std::optional<bool> rope_interleave_default;  ///< the class's rope_interleave without the key
  bool deinterleaved_output = false;            ///< apply_rotary_pos_emb_interleave (DeepSeek-V3)
  std::optional<LayerPattern> layer_pattern;    ///< layer types of a config without layer_types
  std::vector<std::string> nope_layer_types;    ///< layer types without RoPE ("full_attention")
  /// layer types that rotate with rope_theta and no scaling (OLMo 3's "sliding_attention")
  std::vector<std::string> unscaled_layer_types;
  std::string nope_unless_null;                ///< ...unless this key is null (EXAONE 4's sliding_window)
  std::optional<NoRopeLayers> no_rope_layers;  ///< SmolLM3's rule
  /// The query scaling of the family's attention: "llama_4_scaling_beta" ((S21), Ministral 3, Mistral 4), or empty.
  std::string query_scaling;
  std::string query_scaling_source;  ///< HF file and function of it
  /// The factor the family's attention puts on its softmax scale qk_head_dim^−0.5, outside RoPE:
  /// "yarn_mscale_all_dim" (get_mscale(factor, mscale_all_dim)², HF yarn_apply_mscale: DeepSeek-V3, Kimi K2,
  /// Mistral 4), or empty (none).
  std::string softmax_scale;
  std::string softmax_scale_source;                   ///< HF file and function of it
  std::optional<AttentionScaleRule> attention_scale;  ///< the attention's self.scaling; nullopt: head_dim^−0.5
  std::string layers_source;                          ///< HF file:line of the layer rules
  /// Layer type names the class renames before reading them (remap_legacy_layer_types: "mamba" ->
  /// "linear_attention", "attention" -> "full_attention"), as (from, to) pairs.
  std::vector<std::pair<std::string, std::string>> layer_type_aliases;
  /// The family runs modeling code of its own repository (the config's auto_map) that rope could not read: that
  /// code (`code`) and whose code rope's numbers follow instead (`follows`); empty when there is none.
  std::string unread_code, unread_code_follows;
  /// The class's rope_parameters when the config has none, as JSON text: keyed by layer type (Gemma 4), or one
  /// block (GPT-OSS, Ministral 3, Mistral 4: their __post_init__).
  std::string default_rope_parameters;
  /// "qk_head_dim": a partial_rotary_factor is of qk_nope_head_dim + qk_rope_head_dim, the class's head_dim
  /// (Mistral 4), not of the rotated qk_rope_head_dim; empty: of head_dim.
  std::string partial_rotary_of;
  std::optional<long> default_head_dim;  ///< the class's head_dim
  /// Multi-head latent attention: the class's qk_rope_head_dim and qk_nope_head_dim when the config has none
  /// (DeepseekV3Config 64 and 128, Mistral4Config 64 and 64).
  std::optional<long> default_qk_rope_head_dim;
  std::optional<long> default_qk_nope_head_dim;
  /// The class's own rope_type renames ("yarn" -> "longrope": Phi3Config.convert_rope_params_to_dict), as
  /// (from, to) pairs.
  std::vector<std::pair<std::string, std::string>> rope_type_aliases;
  /// The class reads rope_parameters only: a rope_scaling key and a top-level rope_theta are ignored
  /// (Gemma4TextConfig.convert_rope_params_to_dict returns the keys untouched).
  bool rope_parameters_only = false;
  /// The only rope_type values the family's rotary class takes: it raises a ValueError for any other
  /// (Ernie4_5_VL_MoeTextRotaryEmbedding: default only), so the config reader refuses the config; empty: every
  /// type. accepted_rope_types_source: the HF file, line and commit of that check.
  std::vector<std::string> accepted_rope_types;
  std::string accepted_rope_types_source;
  /// The class declares original_max_position_embeddings (Phi3Config: default 4096): HF v5's
  /// standardize_rope_params puts that attribute (the config's top-level key, else this default) into a llama3,
  /// yarn or longrope block, over the block's own value.
  std::optional<long> original_max_position_embeddings_attribute;
  std::optional<LayerHeadDim> layer_head_dim;
  bool last_layer_full = false;  ///< the class forces the last layer to full_attention
  /// The multi-axis map of the family's code when the config's keys do not decide it (Qwen2-VL's chunked, or
  /// interleaved with mrope_interleaved): "interleaved" (the code always interleaves, (A3): Qwen3.5),
  /// "ernie_3d" (ERNIE-4.5-VL's (A8), docs/multi-axis.md), "bailing" (Ling/Ming's (A9), sections t, h, w read from the
  /// RoPE block or the wrapper's top-level mrope_section). Empty: the keys decide.
  std::string mrope_order;
  std::vector<int> mrope_section_default;  ///< the code's mrope_section when the config has none
  std::string mrope_source;                ///< HF file and function of the map
  std::optional<FusedQkv> fused_qkv;       ///< its fused q/k/v tensor's row order, where the code fuses them
  std::string config_class;                ///< "CohereConfig"
  std::string source;                      ///< HF file:line of the values
};

/// Every row of data/families.json, in its order. @throws std::logic_error if the compiled-in table is
/// malformed (a bug: tests/models/families/test_family_table.cpp reads it).
const std::vector<ModelFamily>& model_families();

/// The row of `model_type`, or nullptr for a family rope does not know.
const ModelFamily* find_model_family(std::string_view model_type);

/// The transformers commit the table's values were read at.
const std::string& model_families_commit();

/// Refuses rope_type `type` (at JSON path `path` of config `name`) when `family`'s rotary class does not take it
/// (accepted_rope_types: HF raises a ValueError, Ernie4_5_VL_MoeTextRotaryEmbedding.__init__), so that rope computes
/// no scaling the model's code never applies. Nothing for a family without the list, or nullptr.
/// @throws InvalidArgument "<name>: <path>: rope_type 'yarn' is refused by HF's code for model_type …".
void refuse_unaccepted_rope_type(const ModelFamily* family, const std::string& name, const std::string& path,
                                 const std::string& type);

}  // namespace rope
