#include "rope/models/model_config.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/message.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/utf8.hpp"
#include "rope/models/families/family_table.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/model_folder.hpp"

namespace rope {

std::optional<SoftmaxScale> family_softmax_scale(std::string_view model_type, const RopeConfig& rope) {
  const ModelFamily* family = find_model_family(model_type);
  if (!family || family->softmax_scale.empty() || rope.type == ScalingType::Default) return std::nullopt;
  // HF: `if mscale_all_dim:` with rope_parameters["factor"] (a yarn block without factor fails before this).
  const double m = rope.mscale_all_dim.value_or(0.0);
  if (m == 0.0 || !rope.factor) return std::nullopt;
  const double s = yarn_get_mscale(*rope.factor, m);  // (S9): 1 when f <= 1
  return SoftmaxScale{*rope.factor, m, s, s * s, Message::same(family->softmax_scale_source)};
}

Message softmax_scale_note(const SoftmaxScale& s) {
  return msg(
      "softmax scale: this model's attention multiplies qk_head_dim^−0.5 by get_mscale({0}, {1})² = {2:.6g}, "
      "with get_mscale(f, m) = 0.1·m·ln f + 1 = {3:.6g}; outside RoPE, every layer ({4})",
      format_number(s.factor), format_number(s.mscale_all_dim), s.multiplier, s.mscale, s.from.en);
}

std::string model_config_file(const std::string& path) {
  std::error_code error;
  if (path.empty() || !std::filesystem::is_directory(path, error)) return path;
  const std::string folder = path.back() == '/' ? path : path + "/";
  for (const char* name : {"config.json", "transformer/config.json"}) {
    if (std::filesystem::is_regular_file(folder + name, error)) return folder + name;
  }
  throw InvalidArgument(
      error_msg("{0} is a folder with neither config.json nor transformer/config.json: give the "
                "model's config file",
                escape_controls(path, kQuotedBytes)));
}

namespace {

/// "pixtral", "llama4", …: the HF modeling code whose vision rotary a VisionRope is, and its layout.
Message vision_family(VisionRope kind) {
  switch (kind) {
    case VisionRope::Pixtral:
      return {msg("model family pixtral: PixtralRotaryEmbedding")};
    case VisionRope::Llama4:
      return {msg("model family llama4 vision: Llama4VisionRotaryEmbedding")};
    case VisionRope::Qwen2VL:
      return {msg("model family qwen2_vl vision: VisionRotaryEmbedding")};
    case VisionRope::LlamaCpp:
      return Message::same("llama.cpp GGML_ROPE_TYPE_VISION");
    case VisionRope::Axial:
      return {msg("axial: rotary-embedding-torch get_axial_freqs")};
    case VisionRope::Gemma4:
      return {msg("model family gemma4 vision: Gemma4VisionRotaryEmbedding, apply_multidimensional_rope")};
  }
  return {};
}

}  // namespace

ModelConfig vision_model(VisionRope kind, int head_dim, double base) {
  ModelConfig m;
  m.vision = kind;
  m.rope.head_dim = head_dim;
  m.rope.base = base;
  // Gemma 4 (V6): half inside each axis's block (make_spec sets the spec's axis_blocks).
  m.rope.layout = kind == VisionRope::Llama4 || kind == VisionRope::Axial ? Layout::Interleaved : Layout::Half;
  m.layout_basis = LayoutBasis::Family;
  m.layout_reason = vision_family(kind);
  return m;
}

SequencePositions sequence_positions_of(const ModelExtras& model, const std::string& name,
                                        const std::string& model_type) {
  if (model.sequence_positions) return *model.sequence_positions;
  if (!model.sequence_positions_error.empty()) throw InvalidArgument(model.sequence_positions_error);
  throw InvalidArgument(error_msg(
      "{0} (model_type '{1}') has no M-RoPE position ids rope knows: rope positions follows get_rope_index of Qwen2-VL, "
      "Qwen2.5-VL and Qwen3-VL, sglang's Bailing rule and vLLM's openPangu-VL and HunyuanVL code (model_type "
      "qwen2_vl, qwen2_5_vl, qwen3_vl, bailing_moe_v3_vl, hunyuan_vl, or rope_type openpangu; {2} without a model)",
      name, model_type, option_name("bailing")));
}

SequencePositions sequence_positions_of(const ModelConfig& model) {
  return sequence_positions_of(model, model.name, model.model_type);
}

ModelConfig select_vision_tower(const ModelConfig& model) {
  if (!model.vision_tower) {
    throw InvalidArgument(
        model.vision_error.empty()
            ? error_msg("{0} vision: {1} has no vision_config (a vision-language model's config has one)",
                        option_name("tower"), model.name)
            : error_msg("{0} vision: {1}", option_name("tower"), model.vision_error));
  }
  const VisionTowerConfig& t = *model.vision_tower;
  ModelConfig m = vision_model(t.kind, t.head_dim, t.base);
  m.name = model.vision_only ? model.name : model.name + " vision_config";
  m.model_type = t.model_type;
  m.vision_tower = t;
  m.vision_only = model.vision_only;
  m.origin = t.origin;
  m.notes = t.notes;
  return m;
}

std::optional<Message> patch_outside_grid(const ModelExtras& model, const std::string& name, const AxisPosition& p) {
  if (!model.vision || !model.vision_tower || !model.vision_tower->grid) return std::nullopt;
  const long grid = *model.vision_tower->grid;
  bool outside = false;
  for (int k = 0; k < p.count; ++k) {
    const double v = p.value[static_cast<std::size_t>(k)];
    outside = outside || v < 0 || v > static_cast<double>(grid - 1) || v != std::floor(v);
  }
  if (!outside) return std::nullopt;
  const std::string patch = p.multi() ? p.text() : fmt::format("({0}, {0})", p.text());
  return Message{
      msg("note: {0} is not a patch of the model's {1}×{2} grid (rows and columns 0 … {3}):\n"
          "  {4} never rotates it; rope rotates it by the formula all the same",
          patch, grid, grid, grid - 1, name)};
}

std::optional<Message> patch_outside_grid(const ModelConfig& model, const AxisPosition& p) {
  return patch_outside_grid(model, model.name, p);
}

}  // namespace rope
