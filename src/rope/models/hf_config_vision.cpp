#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/models/hf_config.hpp"
#include "rope/models/vision_rope.hpp"

// The vision tower of a vision-language model's config (docs/multi-axis.md §6). The keys are those of
// HF's vision configuration classes and the RoPE is that of their modeling code:
//   Pixtral (configuration_pixtral.py PixtralVisionConfig: head_dim, rope_theta default 10000, image_size,
//     patch_size; modeling_pixtral.py PixtralRotaryEmbedding): (V3);
//   Llama 4 (configuration_llama4.py Llama4VisionConfig: hidden_size, num_attention_heads, rope_theta default
//     10000, image_size, patch_size; modeling_llama4.py Llama4VisionRotaryEmbedding): (V4);
//   Qwen2-VL, Qwen2.5-VL, Qwen3-VL (vision_config embed_dim or hidden_size, num_heads;
//     VisionRotaryEmbedding(head_dim // 2) with its theta default 10000, which the models do not pass): (V2).
// A file whose own model_type is a vision tower's (pixtral without text_config, llama4_vision_model) is
// read as that tower.

namespace rope::detail {

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
                                       "half of the head's pairs)", head_dim, kMaxDim));
  }
  t.head_dim = static_cast<int>(head_dim);
  add(same("head_dim"), std::to_string(head_dim), same(head_dim_from));
  if (kind == VisionRope::Qwen2VL) {
    t.base = 10000;
    add(same("rope_theta"), "10000", msg("hard-wired: VisionRotaryEmbedding's theta, which the model does not pass"));
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
  if (kind == VisionRope::Qwen2VL) {
    t.notes.push_back(msg("the image's patches keep their own (row, column) however many there are (dynamic resolution); "
                          "the 2x2 merge and the window order reorder patches, not their positions"));
  } else if (kind == VisionRope::Llama4) {
    t.notes.push_back(msg("patches are counted from 1 (x + 1, y + 1){0}; the class token's angles are 0 (HF masks them)",
                          t.grid ? msg(": a patch's row and column 0 … {0} turn as 1 … {1}", *t.grid - 1, *t.grid)
                                 : Message::same("")));
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
    if (!kind && vtype.empty()) kind = vision_rope_of(top_type);
    if (!kind) {
      m_.vision_error = fmt::format(
          "{}: vision_config has model_type '{}' (in a '{}' config), whose RoPE rope does not know (known: pixtral, "
          "llama4_vision_model, qwen2_vl, qwen2_5_vl, qwen3_vl)",
          name_, vtype, top_type);
      return;
    }
    m_.vision_tower = vision_tower(*v, "vision_config", *kind, vtype.empty() ? top_type : vtype);
  } catch (const InvalidArgument& e) {
    m_.vision_error = e.what();  // the language model is still read; --tower vision reports this
  }
}

}  // namespace rope::detail
