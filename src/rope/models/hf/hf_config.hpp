/// @file
/// Internal to src/rope/models, not part of the library's interface: the meaning of a Hugging Face
/// config.json's keys (docs/scaling.md, "Reading a model's config"). ConfigParser reads a parsed config
/// into a ModelConfig and records where every value came from:
///   hf_config.cpp          the model's keys: text_config, head_dim, the rotary part, rope_theta, layout, contexts
///   hf_config_mrope.cpp    the multimodal sections: mrope_section, mrope_interleaved (axes.hpp)
///   hf_config_vision.cpp   the vision tower: vision_config (or a vision tower's own config), vision_rope.hpp
///   hf_config_scaling.cpp  the scaling block: rope_scaling (v4) or rope_parameters (v5), rope_type or the
///                          legacy type, the method's parameters, the keys it requires, HF's defaults
/// "v5" throughout: transformers src/transformers/modeling_rope_utils.py @ 347328108a (5.0-dev: rope_parameters
/// standardised, the factor given wins; docs/scaling.md's table of HF revisions; 5.6-dev 19a7c10014 adds only
/// proportional).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "rope/io/json_reader.hpp"
#include "rope/models/model_config.hpp"

namespace rope {
struct ModelFamily;
}  // namespace rope

namespace rope::detail {

/// The scaling dict after resolving v4/v5 spelling and per-layer-type entries.
struct ScalingDict {
  const json* dict = nullptr;  // null: no scaling dict
  std::string path;            // e.g. "rope_scaling", "rope_parameters.full_attention"
};

/// One entry of rope_parameters keyed by layer type (or by label), read as if it were the model's only RoPE block.
struct LayerEntry {
  std::string name;            // the key ("sliding_attention")
  const json* dict = nullptr;  // its value, an object
  std::string path;            // its JSON path in messages ("" : rope_parameters.<name>)
  std::string theta_from;      // where its rope_theta came from ("" : <path>.rope_theta)
};

/// DeepSeek-V4's head (hf_config_deepseek_v4.cpp): heads of head_dim channels whose last rope_dim turn.
struct DeepseekV4Head {
  long head_dim = 0;
  long rope_dim = 0;
  Message head_from, rope_from;
};

/// DeepSeek-V4's two RoPE blocks as DeepseekV4Config.__post_init__ builds them ({"main", "compress"}).
struct DeepseekV4Blocks {
  json main, compress;
  std::string main_path, compress_path;              // for messages
  std::string main_theta_from, compress_theta_from;  // where each rope_theta came from
  bool nested = false;                               // the config's rope_parameters held both already
  bool attention_factor_set = false;                 // compress: yarn's attention_factor set to 1.0 by the class
};

bool is_deepseek_v4(const std::string& model_type);
DeepseekV4Head deepseek_v4_head(const Reader& r, const json& c, const std::string& prefix);
DeepseekV4Blocks deepseek_v4_blocks(const Reader& r, const json& c, const std::string& prefix);
/// DeepSeek-V4's layer types (sliding_attention, compressed_sparse_attention, heavily_compressed_attention) and the
/// rotary's labels main and compress, into m.layer_types.
void deepseek_v4_layers(const json& doc, const std::string& name, ModelConfig& m);

/// At most kMaxRopeBlockKeys keys in a RoPE block (rope_scaling, rope_parameters): one entry per layer type, or the
/// method's parameters; real configs have at most a dozen. Checked before any loop over the block's entries.
constexpr std::size_t kMaxRopeBlockKeys = 64;

/// @throws InvalidArgument "<name>: <path>: has N keys, more than the limit of 64 ..." (the keys are not listed).
void check_rope_block_size(const Reader& r, const json& block, const std::string& path);

class ConfigParser {
 public:
  ConfigParser(const json& doc, const std::string& name) : doc_(doc), r_(name), name_(name) { m_.name = name; }
  /// Reads `doc` with `entry` as its RoPE block (read_layer_types: one parse of the same document per layer type,
  /// nothing copied).
  ConfigParser(const json& doc, const std::string& name, LayerEntry entry)
      : doc_(doc), r_(name), name_(name), entry_(std::move(entry)) {
    m_.name = name;
  }

  ModelConfig parse();

 private:
  /// "what: value (from)"; `from` is a JSON path (the same in every language), or words of their own.
  void origin(std::string_view what, const std::string& value, const Message& from);
  void origin(std::string_view what, const std::string& value, const std::string& from) {
    origin(what, value, Message::same(from));
  }
  void note(Message message) { m_.notes.push_back(std::move(message)); }

  // hf_config.cpp
  void select_text_config();
  void read_head_dim();
  void read_partial_rotary();
  int rotary_dim(double factor) const { return static_cast<int>(static_cast<double>(head_dim_) * factor); }
  double exact_factor(long rd) const;
  void read_base();
  void read_layout();
  void read_positions();

  // hf_config_scaling.cpp
  void select_scaling_dict();
  void read_scaling();
  bool is_hunyuan() const;
  void read_ntk_alpha(double alpha);
  void read_query_scaling();
  void warn_missing_query_scaling(const std::string& path, const std::string& source);
  void read_softmax_scale();

  // hf_config_attention.cpp
  void read_attention_scale();
  void require_parameters();
  void lint_scaling_keys();
  void explain_defaults();

  // hf_config_mrope.cpp
  void read_mrope();
  void read_xdrope(const ModelFamily& family);

  // hf_config_fope.cpp
  void read_fope();

  // hf_config_sequence.cpp
  void read_sequence_positions();

  // hf_config_vision.cpp
  void read_vision();
  VisionTowerConfig vision_tower(const json& v, const std::string& path, VisionRope kind,
                                 const std::string& type) const;
  void gemma4_vision_theta(const json& v, const std::string& path, VisionTowerConfig& t) const;
  void qwen_vision_theta(const json& v, const std::string& path, VisionTowerConfig& t) const;

  const json& doc_;
  Reader r_;
  const std::string& name_;
  ModelConfig m_;
  const json* cfg_ = nullptr;  // the object holding the model keys (the top level, or text_config)
  std::string prefix_;         // its JSON path ("" or "text_config")
  ScalingDict scaling_;
  long head_dim_ = 0;
  int d_ = 0;
  std::string layer_type_;  // the per-layer-type entry of rope_parameters read ("" when not keyed)
  json class_parameters_;   // the class's default rope_parameters (family table), when the config has none
  std::optional<long> top_l0_;
  std::optional<LayerEntry> entry_;  // the per-layer-type entry to read, set by read_layer_types
  DeepseekV4Blocks deepseek_v4_;     // DeepSeek-V4's main and compress blocks (the model's values: main)
  std::string theta_from_;           // where the block's rope_theta came from, when not the block itself
};

/// The origin line "what: value (from)" (also gguf_config*.cpp's): one text when `what` and `from` read the
/// same in every language (a key, a JSON path), else a line whose fields are `what`, `value` and `from`,
/// translated as they are (the line itself has no words of its own, so no catalog entry).
Message origin_line(const Message& what, const std::string& value, const Message& from);

/// A diffusers transformer's config (its `_class_name` one of grid_rope.hpp's classes; diffusers_config.cpp), or
/// nullopt for any other file. @throws InvalidArgument for a key of the wrong type or value.
std::optional<ModelConfig> parse_diffusers_config(const json& doc, const std::string& name);

/// hf_config_layers.cpp: fills m.layer_types (and m.nope_temperature) from the parsed config `doc`.
void read_layer_types(const json& doc, const std::string& name, ModelConfig& m);

}  // namespace rope::detail
