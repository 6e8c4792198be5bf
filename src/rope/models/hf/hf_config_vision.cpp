#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/models/hf/hf_config.hpp"
#include "rope/models/vision_rope.hpp"

// The vision tower of a vision-language model's config (docs/multi-axis.md §6). The keys are those of
// HF's vision configuration classes and the RoPE is that of their modeling code:
//   Pixtral (configuration_pixtral.py PixtralVisionConfig: head_dim, rope_theta default 10000, image_size,
//     patch_size; modeling_pixtral.py PixtralRotaryEmbedding): (V3);
//   Llama 4 (configuration_llama4.py Llama4VisionConfig: hidden_size, num_attention_heads, rope_theta default
//     10000, image_size, patch_size; modeling_llama4.py Llama4VisionRotaryEmbedding): (V4);
//   Qwen2-VL, Qwen2.5-VL, Qwen3-VL (vision_config embed_dim or hidden_size, num_heads;
//     VisionRotaryEmbedding(head_dim // 2) with its theta default 10000, which the models do not pass): (V2);
//   Gemma 4 (configuration_gemma4.py @ 008e57439125 Gemma4VisionConfig: head_dim default 64, default_theta 100,
//     __post_init__ rope_parameters {default, 100} when absent; modeling_gemma4.py @ c308a309e651
//     Gemma4VisionRotaryEmbedding.compute_default_rope_parameters: rope_parameters["rope_theta"], head_dim): (V6).
// A file whose own model_type is a vision tower's (pixtral without text_config, llama4_vision_model) is
// read as that tower.

namespace rope::detail {

/// Gemma 4's θ as HF v5 settles it: Gemma4VisionConfig.__post_init__ fills an absent rope_parameters with
/// {default, 100} before convert_rope_params_to_dict, whose setdefault("rope_theta", top-level rope_theta or
/// default_theta 100) then fills only a dict without it; a legacy rope_scaling replaces the dict.
void ConfigParser::gemma4_vision_theta(const json& v, const std::string& path, VisionTowerConfig& t) const {
  const auto add = [&t](const std::string& value, const Message& from) {
    t.origin.push_back(origin_line(Message::same("rope_theta"), value, from));
  };
  const char* dict_key = r_.object(v, path, "rope_scaling") && !r_.object(v, path, "rope_scaling")->empty()
                             ? "rope_scaling"
                             : "rope_parameters";
  const json* dict = r_.object(v, path, dict_key);
  const auto top = r_.positive(v, path, "rope_theta");
  if (!dict) {
    t.base = 100;
    add("100", msg("not in the file: {0}.__post_init__ sets rope_parameters to {1}", "Gemma4VisionConfig",
                   "{rope_type: default, rope_theta: 100}"));
    if (top) {
      t.notes.push_back(msg("{0} {1} is ignored: without rope_parameters {2} uses its own {3}",
                            child(path, "rope_theta"), num(*top), "Gemma4VisionConfig",
                            "{rope_type: default, rope_theta: 100}"));
    }
    return;
  }
  const std::string dict_path = child(path, dict_key);
  const auto type = r_.string(*dict, dict_path, "rope_type");
  const auto legacy = r_.string(*dict, dict_path, "type");
  const std::string rope_type = type ? *type : legacy.value_or("default");
  // transformers 5.17 names the same ladder "axial" (compute_axial_rope_parameters).
  if (rope_type != "default" && rope_type != "axial") {
    r_.fail(child(dict_path, type ? "rope_type" : "type"),
            fmt::format("'{}' is not default: rope knows only the default ladder of Gemma4VisionRotaryEmbedding "
                        "(compute_default_rope_parameters)",
                        rope_type));
  }
  if (const auto theta = r_.positive(*dict, dict_path, "rope_theta")) {
    t.base = *theta;
    add(num(*theta), Message::same(child(dict_path, "rope_theta")));
  } else if (top) {
    t.base = *top;
    add(num(*top), Message::same(child(path, "rope_theta")));
  } else {
    t.base = 100;
    add("100", msg("not in the file: {0}'s default_theta", "Gemma4VisionConfig"));
  }
}

/// The θ of Qwen2-VL's, Qwen2.5-VL's and Qwen3-VL's vision towers. Up to transformers 5.16 VisionRotaryEmbedding(
/// head_dim // 2) keeps its own theta 10000, which the models do not pass; from 5.17 the vision config carries
/// rope_parameters {"rope_type": "axial", "rope_theta": …} and the tower's rotary embedding reads
/// rope_parameters["rope_theta"] (modeling_qwen3_vl.py Qwen3VLVisionRotaryEmbedding.compute_axial_rope_parameters,
/// transformers v5.17.0: base ** (arange(0, dim // 2, 2) / (dim // 2)), the same ladder (V2); its __init__ refuses
/// a rope_type other than "axial").
void ConfigParser::qwen_vision_theta(const json& v, const std::string& path, VisionTowerConfig& t) const {
  const auto add = [&t](const std::string& value, const Message& from) {
    t.origin.push_back(origin_line(Message::same("rope_theta"), value, from));
  };
  const json* dict = r_.object(v, path, "rope_parameters");
  if (!dict) {
    t.base = 10000;
    add("10000", msg("hard-wired: VisionRotaryEmbedding's theta, which the model does not pass"));
    return;
  }
  const std::string dict_path = child(path, "rope_parameters");
  const std::string rope_type = r_.string(*dict, dict_path, "rope_type").value_or("axial");
  if (rope_type != "axial") {
    r_.fail(child(dict_path, "rope_type"),
            fmt::format("'{}' is not axial: the vision rotary embedding of transformers 5.17 takes only axial "
                        "(compute_axial_rope_parameters)",
                        rope_type));
  }
  if (const auto theta = r_.positive(*dict, dict_path, "rope_theta")) {
    t.base = *theta;
    add(num(*theta), Message::same(child(dict_path, "rope_theta")));
  } else {
    r_.fail(child(dict_path, "rope_theta"),
            "missing: compute_axial_rope_parameters reads rope_parameters[\"rope_theta\"]");
  }
}

VisionTowerConfig ConfigParser::vision_tower(const json& v, const std::string& path, VisionRope kind,
                                             const std::string& type) const {
  VisionTowerConfig t;
  t.kind = kind;
  t.model_type = type;
  const auto add = [&t](const Message& what, const std::string& value, const Message& from) {
    t.origin.push_back(origin_line(what, value, from));
  };
  const auto same = [](std::string text) { return Message::same(std::move(text)); };
  const auto key = [&](const char* a, const char* b) -> std::pair<std::optional<long>, std::string> {
    if (const auto x = r_.count(v, path, a)) return {x, child(path, a)};
    if (const auto x = r_.count(v, path, b)) return {x, child(path, b)};
    return {std::nullopt, ""};
  };
  long head_dim = 0;
  std::string head_dim_from;
  if (const auto hd = r_.count(v, path, "head_dim")) {
    head_dim = *hd;
    head_dim_from = child(path, "head_dim");
  } else if (kind == VisionRope::Gemma4) {
    // Gemma4VisionConfig's head_dim is an attribute with a default, so HF's getattr(config, "head_dim", None) never
    // falls back to hidden_size // num_attention_heads.
    head_dim = 64;
  } else {
    // embed_dim first: Qwen2-VL writes both, embed_dim the attention width (1280) and hidden_size the
    // merger's output (3584 for the 7B); HF takes head_dim = embed_dim // num_heads.
    const auto [width, width_from] = key("embed_dim", "hidden_size");
    const auto [heads, heads_from] = key("num_attention_heads", "num_heads");
    if (!width || !heads) {
      r_.fail(path.empty() ? "(top level)" : path,
              "a vision tower needs head_dim, or hidden_size (embed_dim) and num_attention_heads (num_heads)");
    }
    if (*width % *heads != 0) {
      r_.fail(width_from, fmt::format("{} is not divisible by {} = {}", *width, heads_from, *heads));
    }
    head_dim = *width / *heads;
    head_dim_from = fmt::format("{} / {}", width_from, heads_from);
  }
  if (head_dim < 4 || head_dim % 4 != 0 || head_dim > kMaxDim) {
    r_.fail(head_dim_from, fmt::format("{} is not a multiple of 4 between 4 and {} (a 2-D vision RoPE gives each axis "
                                       "half of the head's pairs)",
                                       head_dim, kMaxDim));
  }
  t.head_dim = static_cast<int>(head_dim);
  add(same("head_dim"), std::to_string(head_dim),
      head_dim_from.empty() ? msg("not in the file: {0}'s default", "Gemma4VisionConfig") : same(head_dim_from));
  if (kind == VisionRope::Gemma4) {
    gemma4_vision_theta(v, path, t);
  } else if (kind == VisionRope::Qwen2VL) {
    qwen_vision_theta(v, path, t);
  } else if (const auto theta = r_.positive(v, path, "rope_theta")) {
    t.base = *theta;
    add(same("rope_theta"), num(*theta), same(child(path, "rope_theta")));
  } else {
    t.base = 10000;
    add(same("rope_theta"), "10000", msg("not in the file: the vision config class's default"));
  }
  const auto image = r_.count(v, path, "image_size");
  const auto patch = r_.count(v, path, "patch_size");
  if (image && patch && kind != VisionRope::Qwen2VL) {
    t.grid = *image / *patch;
    add(msg("patches per side"), std::to_string(*t.grid),
        same(fmt::format("{} / {}", child(path, "image_size"), child(path, "patch_size"))));
  }
  if (kind == VisionRope::Gemma4) {
    t.notes.push_back(
        msg("HF's pixel_position_ids are (x, y) = (column, row) of each patch, the column first; an image "
            "keeps its own aspect ratio, so the config fixes no grid"));
    t.notes.push_back(
        msg("the scores are not divided by √head_dim: Gemma4VisionAttention's scaling is 1.0, q and k "
            "are RMS-normed before the rotation"));
  } else if (kind == VisionRope::Qwen2VL) {
    t.notes.push_back(
        msg("the image's patches keep their own (row, column) however many there are (dynamic resolution); "
            "the 2x2 merge and the window order reorder patches, not their positions"));
  } else if (kind == VisionRope::Llama4) {
    t.notes.push_back(msg(
        "patches are counted from 1 (x + 1, y + 1){0}; the class token's angles are 0 (HF masks them)",
        t.grid ? msg(": a patch's row and column 0 … {0} turn as 1 … {1}", *t.grid - 1, *t.grid) : Message::same("")));
  } else if (t.grid) {
    t.notes.push_back(msg("rows and columns 0 … {0} (image_size / patch_size patches per side)", *t.grid - 1));
  }
  return t;
}

void ConfigParser::read_vision() {
  const auto top_type = r_.string(doc_, "", "model_type").value_or("");
  const json* v = r_.object(doc_, "", "vision_config");
  const bool has_text = r_.object(doc_, "", "text_config") != nullptr;
  const auto own = vision_rope_of(top_type);
  try {
    if (!v && own && !has_text && top_type != "qwen2_vl" && top_type != "qwen2_5_vl" && top_type != "qwen3_vl") {
      m_.vision_tower = vision_tower(doc_, "", *own, top_type);
      m_.vision_only = true;
      return;
    }
    if (!v) return;
    const std::string vtype = r_.string(*v, "vision_config", "model_type").value_or("");
    std::optional<VisionRope> kind = vision_rope_of(vtype);
    if (!kind && top_type == "llama4") kind = VisionRope::Llama4;
    if (!kind && top_type == "gemma4") kind = VisionRope::Gemma4;  // Gemma4Config's sub_configs: Gemma4VisionConfig
    if (!kind && vtype.empty()) kind = vision_rope_of(top_type);
    if (!kind) {
      m_.vision_error = fmt::format(
          "{}: vision_config has model_type '{}' (in a '{}' config), whose RoPE rope does not know (known: pixtral, "
          "llama4_vision_model, qwen2_vl, qwen2_5_vl, qwen3_vl, gemma4_vision)",
          name_, vtype, top_type);
      return;
    }
    m_.vision_tower = vision_tower(*v, "vision_config", *kind, vtype.empty() ? top_type : vtype);
  } catch (const InvalidArgument& e) {
    m_.vision_error = e.what();  // the language model is still read; --tower vision reports this
  }
}

}  // namespace rope::detail
