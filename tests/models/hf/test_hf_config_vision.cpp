// rope/models/hf/hf_config_vision.cpp: the vision tower of a config (vision_config, or a vision tower's own
// config): head_dim, base, patches per side, where each came from; select_vision_tower and patch_outside_grid.
#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "models/config_test_util.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace config_test;

// meta-llama/Llama-4-Scout-17B-16E config.json, trimmed to the keys rope reads (hidden_size 1408, 16 heads,
// image_size 336, patch_size 14, rope_theta 10000 in vision_config; Llama4VisionConfig).
constexpr const char* kLlama4 = R"({"model_type": "llama4",
  "text_config": {"model_type": "llama4_text", "head_dim": 128, "hidden_size": 5120, "num_attention_heads": 40,
                  "rope_theta": 500000.0},
  "vision_config": {"model_type": "llama4_vision_model", "hidden_size": 1408, "num_attention_heads": 16,
                    "image_size": 336, "patch_size": 14, "rope_theta": 10000}})";

TEST(HfConfigVision, Llama4VisionConfigIsItsTowerWithItsGrid) {
  const ModelConfig m = parse(kLlama4);
  EXPECT_EQ(m.rope.head_dim, 128);  // the language model is still what the file describes
  EXPECT_EQ(m.rope.base, 500000.0);
  EXPECT_FALSE(m.vision);
  EXPECT_FALSE(m.vision_only);
  ASSERT_TRUE(m.vision_tower) << m.vision_error;
  const VisionTowerConfig& t = *m.vision_tower;
  EXPECT_EQ(t.kind, VisionRope::Llama4);
  EXPECT_EQ(t.model_type, "llama4_vision_model");
  EXPECT_EQ(t.head_dim, 88);  // 1408 / 16
  EXPECT_EQ(t.base, 10000.0);
  EXPECT_EQ(t.grid, 24);  // 336 / 14
  EXPECT_THAT(english(t.origin),
              ElementsAre("head_dim: 88 (vision_config.hidden_size / vision_config.num_attention_heads)",
                          "rope_theta: 10000 (vision_config.rope_theta)",
                          "patches per side: 24 (vision_config.image_size / vision_config.patch_size)"));
  EXPECT_THAT(
      english(t.notes),
      Contains(HasSubstr("patches are counted from 1 (x + 1, y + 1): a patch's row and column 0 … 23 turn as 1 … 24")));
  const ModelConfig v = select_vision_tower(m);
  EXPECT_EQ(v.vision, VisionRope::Llama4);
  EXPECT_EQ(v.rope.head_dim, 88);
  EXPECT_EQ(v.rope.layout, Layout::Interleaved);  // vision_apply_rotary_emb: complex pairs (2i, 2i + 1)
  EXPECT_EQ(v.name, "config.json vision_config");
  const RopeSpec spec = make_spec(v);
  ASSERT_TRUE(spec.axes && spec.axes->vision());
  EXPECT_EQ(spec.axes->position_offset, 1.0);
  EXPECT_EQ(spec.axes->first_axis, 1);
  EXPECT_EQ(spec.axes->pair_axis.front(), 2);  // the column w first
  EXPECT_EQ(spec.axes->pair_axis.back(), 1);
  // Without its model_type, a llama4 config's vision_config is still Llama 4's.
  const ModelConfig bare = parse(R"({"model_type": "llama4", "text_config": {"head_dim": 128},
      "vision_config": {"hidden_size": 1408, "num_attention_heads": 16}})");
  ASSERT_TRUE(bare.vision_tower) << bare.vision_error;
  EXPECT_EQ(bare.vision_tower->kind, VisionRope::Llama4);
  EXPECT_FALSE(bare.vision_tower->grid);
  EXPECT_THAT(english(bare.vision_tower->notes),
              Contains("patches are counted from 1 (x + 1, y + 1); the class token's angles are 0 (HF masks them)"));
}

TEST(HfConfigVision, PixtralInsideALlavaConfig) {
  // mistral-community/pixtral-12b: a llava config whose vision_config is PixtralVisionConfig.
  const ModelConfig m = parse(R"({"model_type": "llava",
      "text_config": {"model_type": "mistral", "head_dim": 128, "hidden_size": 5120, "num_attention_heads": 32,
                      "rope_theta": 1000000000.0},
      "vision_config": {"model_type": "pixtral", "head_dim": 64, "hidden_size": 1024, "num_attention_heads": 16,
                        "image_size": 1024, "patch_size": 16, "rope_theta": 10000.0}})");
  EXPECT_EQ(m.rope.head_dim, 128);
  EXPECT_EQ(m.rope.base, 1e9);
  ASSERT_TRUE(m.vision_tower) << m.vision_error;
  EXPECT_EQ(m.vision_tower->kind, VisionRope::Pixtral);
  EXPECT_EQ(m.vision_tower->head_dim, 64);  // head_dim itself, not hidden_size / heads
  EXPECT_EQ(m.vision_tower->base, 10000.0);
  EXPECT_EQ(m.vision_tower->grid, 64);
  EXPECT_THAT(english(m.vision_tower->origin),
              ElementsAre("head_dim: 64 (vision_config.head_dim)", "rope_theta: 10000 (vision_config.rope_theta)",
                          "patches per side: 64 (vision_config.image_size / vision_config.patch_size)"));
  EXPECT_THAT(english(m.vision_tower->notes),
              ElementsAre("rows and columns 0 … 63 (image_size / patch_size patches per side)"));
  const ModelConfig v = select_vision_tower(m);
  EXPECT_EQ(v.rope.layout, Layout::Half);  // PixtralRotaryEmbedding + rotate_half
  EXPECT_EQ(make_spec(v).axes->position_offset, 0.0);
  // Without rope_theta, the class's default 10000, and it says so.
  const ModelConfig d = parse(R"({"model_type": "llava", "text_config": {"head_dim": 128},
      "vision_config": {"model_type": "pixtral", "hidden_size": 1024, "num_attention_heads": 16}})");
  ASSERT_TRUE(d.vision_tower) << d.vision_error;
  EXPECT_EQ(d.vision_tower->head_dim, 64);  // 1024 / 16
  EXPECT_EQ(d.vision_tower->base, 10000.0);
  EXPECT_THAT(english(d.vision_tower->origin),
              Contains("rope_theta: 10000 (not in the file: the vision config class's default)"));
}

TEST(HfConfigVision, AStandalonePixtralConfigIsTheTower) {
  const ModelConfig m =
      parse(R"({"model_type": "pixtral", "head_dim": 64, "hidden_size": 1024, "num_attention_heads": 16,
      "image_size": 512, "patch_size": 16, "rope_theta": 20000.0})");
  EXPECT_TRUE(m.vision_only);
  ASSERT_TRUE(m.vision_tower) << m.vision_error;
  EXPECT_EQ(m.vision_tower->kind, VisionRope::Pixtral);
  EXPECT_EQ(m.vision_tower->head_dim, 64);
  EXPECT_EQ(m.vision_tower->base, 20000.0);
  EXPECT_EQ(m.vision_tower->grid, 32);
  EXPECT_THAT(english(m.vision_tower->origin), Contains("head_dim: 64 (head_dim)"));
  const ModelConfig v = select_vision_tower(m);
  EXPECT_EQ(v.name, "config.json");
  EXPECT_EQ(v.rope.base, 20000.0);
  // A pixtral model_type WITH a text_config is not a tower's own config.
  const ModelConfig both = parse(R"({"model_type": "pixtral", "text_config": {"head_dim": 128}, "head_dim": 64})");
  EXPECT_FALSE(both.vision_only);
}

TEST(HfConfigVision, QwenVisionConfigsDivideTheWidthAndHardWireTheta) {
  // Qwen2-VL: Qwen2VLVisionConfig embed_dim 1280, num_heads 16 → 80; VisionRotaryEmbedding(head_dim // 2)
  // is built without theta, so 10000 whatever the file says.
  const ModelConfig m = parse(R"({"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
      "rope_theta": 1000000.0, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
      "vision_config": {"embed_dim": 1280, "num_heads": 16, "patch_size": 14, "image_size": 448, "rope_theta": 123.0}})");
  ASSERT_TRUE(m.mrope);  // the language model still reads its sections
  ASSERT_TRUE(m.vision_tower) << m.vision_error;
  EXPECT_EQ(m.vision_tower->kind, VisionRope::Qwen2VL);
  EXPECT_EQ(m.vision_tower->head_dim, 80);
  EXPECT_EQ(m.vision_tower->base, 10000.0);
  EXPECT_FALSE(m.vision_tower->grid);  // dynamic resolution: no fixed grid
  EXPECT_THAT(
      english(m.vision_tower->origin),
      ElementsAre("head_dim: 80 (vision_config.embed_dim / vision_config.num_heads)",
                  "rope_theta: 10000 (hard-wired: VisionRotaryEmbedding's theta, which the model does not pass)"));
  EXPECT_THAT(english(m.vision_tower->notes), Contains(HasSubstr("dynamic resolution")));
  // The preset qwen2.5-vl-7b: vision_config hidden_size 1280, num_heads 16.
  const ModelConfig p = load_preset("qwen2.5-vl-7b");
  ASSERT_TRUE(p.vision_tower) << p.vision_error;
  EXPECT_EQ(p.vision_tower->head_dim, 80);
  EXPECT_EQ(p.vision_tower->model_type, "qwen2_5_vl");
  EXPECT_THAT(english(p.vision_tower->origin),
              Contains("head_dim: 80 (vision_config.hidden_size / vision_config.num_heads)"));
}

// transformers ≥ 5.17 writes the tower's θ into its vision config, rope_parameters {"rope_type": "axial",
// "rope_theta": …}, and Qwen3VLVisionRotaryEmbedding.compute_axial_rope_parameters reads rope_theta there
// (modeling_qwen3_vl.py, transformers v5.17.0); its __init__ refuses another rope_type.
TEST(HfConfigVision, QwenVisionConfigsReadTheAxialRopeParametersOfTransformers517) {
  const ModelConfig m = parse(R"({"model_type": "qwen3_vl", "text_config": {"head_dim": 128},
      "vision_config": {"hidden_size": 1152, "num_heads": 16, "patch_size": 16,
                        "rope_parameters": {"rope_type": "axial", "rope_theta": 20000.0}}})");
  ASSERT_TRUE(m.vision_tower) << m.vision_error;
  EXPECT_EQ(m.vision_tower->kind, VisionRope::Qwen2VL);
  EXPECT_EQ(m.vision_tower->head_dim, 72);
  EXPECT_EQ(m.vision_tower->base, 20000.0);
  EXPECT_THAT(english(m.vision_tower->origin),
              Contains("rope_theta: 20000 (vision_config.rope_parameters.rope_theta)"));
  // (V2) over 72 channels at θ 20000: pair 1 of the row axis turns at 20000^(−2/36)
  const RopeSpec spec = make_spec(select_vision_tower(m));
  EXPECT_NEAR(spec.params.inv_freq[1], std::pow(20000.0, -2.0 / 36.0), 1e-15);
  const ModelConfig bad = parse(R"({"model_type": "qwen3_vl", "text_config": {"head_dim": 128},
      "vision_config": {"hidden_size": 1152, "num_heads": 16, "rope_parameters": {"rope_type": "yarn", "rope_theta": 1.0e4}}})");
  EXPECT_FALSE(bad.vision_tower);
  EXPECT_THAT(bad.vision_error, HasSubstr("vision_config.rope_parameters.rope_type"));
}

// WRONG BEHAVIOUR, left for the lead (src/rope/models/hf/hf_config_vision.cpp): Qwen2VLVisionConfig has BOTH
// embed_dim (the attention width, 1280) and hidden_size (the merger's output, the language model's width:
// 3584 for the 7B), and Qwen/Qwen2-VL-7B-Instruct's config.json writes both into vision_config. HF's
// Qwen2VisionTransformerPretrainedModel takes head_dim = config.embed_dim // config.num_heads = 80 for
// VisionRotaryEmbedding(head_dim // 2) (transformers models/qwen2_vl/configuration_qwen2_vl.py and
// modeling_qwen2_vl.py). rope prefers hidden_size and prints head_dim 224 (3584 / 16):
//   rope inspect --config <that config> --tower vision  →  "head_dim: 224 (vision_config.hidden_size /
//   vision_config.num_heads)"
// It should read embed_dim first when it is there (Qwen2.5-VL and Qwen3-VL have no embed_dim: their
// hidden_size is the attention width, out_hidden_size the merger's). Enable when fixed.
TEST(HfConfigVision, QwenTwoVlEmbedDimIsTheAttentionWidthNotHiddenSize) {
  const ModelConfig m = parse(R"({"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
      "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
      "vision_config": {"depth": 32, "embed_dim": 1280, "mlp_ratio": 4, "num_heads": 16, "in_chans": 3, "hidden_size": 3584,
                        "patch_size": 14, "spatial_merge_size": 2, "spatial_patch_size": 14, "temporal_patch_size": 2}})");
  ASSERT_TRUE(m.vision_tower) << m.vision_error;
  EXPECT_EQ(m.vision_tower->head_dim, 80);
  EXPECT_THAT(english(m.vision_tower->origin),
              Contains("head_dim: 80 (vision_config.embed_dim / vision_config.num_heads)"));
}

// Gemma 4 (configuration_gemma4.py @ 351f643ab9f5 Gemma4VisionConfig: head_dim 64 and default_theta 100 as class
// attributes, __post_init__ rope_parameters {default, 100} when absent; modeling_gemma4.py @ c308a309e651
// Gemma4VisionRotaryEmbedding.compute_default_rope_parameters reads rope_parameters["rope_theta"] and head_dim).
// The NumPy port of the same precedence is tests/reference/gemma4_vision.py vision_config_rope, run by
// reference.gemma4_vision against rope inspect and rope check.
TEST(HfConfigVision, Gemma4VisionTowerTakesItsConfigClassRules) {
  const auto tower = [](const std::string& vision) {
    const ModelConfig m = parse(R"({"model_type": "gemma4", "text_config": {"model_type": "gemma4_text",
        "hidden_size": 2816, "num_attention_heads": 16}, "vision_config": )" +
                                vision + "}");
    EXPECT_TRUE(m.vision_tower) << m.vision_error;
    return m.vision_tower.value_or(VisionTowerConfig{});
  };
  // google/gemma-4-26B-A4B-it's vision_config (data/models/gemma-4-26b-a4b.json).
  const VisionTowerConfig real = tower(R"({"model_type": "gemma4_vision", "head_dim": 72, "hidden_size": 1152,
      "num_attention_heads": 16, "rope_parameters": {"rope_type": "default", "rope_theta": 100.0}})");
  EXPECT_EQ(real.kind, VisionRope::Gemma4);
  EXPECT_EQ(real.head_dim, 72);
  EXPECT_EQ(real.base, 100.0);
  EXPECT_FALSE(real.grid);  // no image_size: each image keeps its aspect ratio
  EXPECT_THAT(english(real.origin), ElementsAre("head_dim: 72 (vision_config.head_dim)",
                                                "rope_theta: 100 (vision_config.rope_parameters.rope_theta)"));
  EXPECT_THAT(english(real.notes), Contains(HasSubstr("Gemma4VisionAttention's scaling is 1.0")));
  // Without rope_parameters the class's own dict wins over a top-level rope_theta, which is ignored and said so.
  const VisionTowerConfig none = tower(R"({"model_type": "gemma4_vision", "head_dim": 72, "rope_theta": 50})");
  EXPECT_EQ(none.base, 100.0);
  EXPECT_THAT(english(none.origin), Contains("rope_theta: 100 (not in the file: Gemma4VisionConfig.__post_init__ sets "
                                             "rope_parameters to {rope_type: default, rope_theta: 100})"));
  EXPECT_THAT(english(none.notes), Contains("vision_config.rope_theta 50 is ignored: without rope_parameters "
                                            "Gemma4VisionConfig uses its own {rope_type: default, rope_theta: 100}"));
  // A dict without rope_theta: the top-level key, else default_theta.
  EXPECT_EQ(tower(R"({"head_dim": 72, "rope_theta": 50, "rope_parameters": {"rope_type": "default"}})").base, 50.0);
  const VisionTowerConfig dflt = tower(R"({"head_dim": 72, "rope_parameters": {"rope_type": "default"}})");
  EXPECT_EQ(dflt.base, 100.0);
  EXPECT_THAT(english(dflt.origin), Contains("rope_theta: 100 (not in the file: Gemma4VisionConfig's default_theta)"));
  // head_dim absent: the class's 64, not hidden_size / num_attention_heads = 72.
  const VisionTowerConfig head =
      tower(R"({"model_type": "gemma4_vision", "hidden_size": 1152, "num_attention_heads": 16})");
  EXPECT_EQ(head.head_dim, 64);
  EXPECT_THAT(english(head.origin), Contains("head_dim: 64 (not in the file: Gemma4VisionConfig's default)"));
  // Another rope_type: HF would run another init function on the tower; rope refuses, and the text is still read.
  const ModelConfig linear =
      parse(R"({"model_type": "gemma4", "text_config": {"hidden_size": 2816, "num_attention_heads": 16},
      "vision_config": {"head_dim": 72, "rope_parameters": {"rope_type": "linear", "factor": 2.0}}})");
  EXPECT_FALSE(linear.vision_tower);
  EXPECT_THAT(linear.vision_error, HasSubstr("vision_config.rope_parameters.rope_type: 'linear' is not default"));
  // The tower as a model: (V6)'s spec, column block first, 18 pairs per axis.
  const ModelConfig v = select_vision_tower(parse(R"({"model_type": "gemma4_vision", "head_dim": 72})"));
  EXPECT_EQ(v.vision, VisionRope::Gemma4);
  const RopeSpec spec = make_spec(v);
  EXPECT_TRUE(spec.axis_blocks);
  ASSERT_TRUE(spec.axes && spec.axes->vision());
  EXPECT_EQ(spec.axes->pair_axis.front(), 2);  // w
  EXPECT_EQ(spec.axes->pair_axis.back(), 1);   // h
  EXPECT_EQ(spec.axes->pairs_of(1), 18);
}

TEST(HfConfigVision, UnknownOrBadVisionConfigsLeaveTheTextReadable) {
  const ModelConfig u = parse(R"({"model_type": "llava", "text_config": {"head_dim": 128, "rope_theta": 1000000.0},
      "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "num_attention_heads": 16}})");
  EXPECT_EQ(u.rope.head_dim, 128);
  EXPECT_EQ(u.rope.base, 1e6);
  EXPECT_FALSE(u.vision_tower);
  EXPECT_THAT(u.vision_error, HasSubstr("vision_config has model_type 'siglip_vision_model' (in a 'llava' config)"));
  EXPECT_THAT([&] { select_vision_tower(u); },
              ::testing::ThrowsMessage<InvalidArgument>(
                  HasSubstr("--tower vision: config.json: vision_config has model_type 'siglip_vision_model'")));
  // hidden_size 1000 does not split into 16 heads: named with both keys; the text is still read.
  const ModelConfig b = parse(R"({"model_type": "qwen2_5_vl", "hidden_size": 3584, "num_attention_heads": 28,
      "vision_config": {"model_type": "qwen2_5_vl", "hidden_size": 1000, "num_heads": 16}})");
  EXPECT_EQ(b.rope.head_dim, 128);
  EXPECT_FALSE(b.vision_tower);
  EXPECT_THAT(b.vision_error, HasSubstr("vision_config.hidden_size"));
  EXPECT_THAT(b.vision_error, HasSubstr("1000 is not divisible by vision_config.num_heads = 16"));
  const ModelConfig n = parse(R"({"model_type": "llava", "text_config": {"head_dim": 128},
      "vision_config": {"model_type": "pixtral", "hidden_size": 1024}})");
  EXPECT_FALSE(n.vision_tower);
  EXPECT_THAT(
      n.vision_error,
      HasSubstr("a vision tower needs head_dim, or hidden_size (embed_dim) and num_attention_heads (num_heads)"));
  // A config without vision_config has no tower.
  const ModelConfig t = parse(R"({"head_dim": 128})");
  EXPECT_FALSE(t.vision_tower);
  EXPECT_THAT([&] { select_vision_tower(t); },
              ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("--tower vision: config.json has no vision_config")));
}

TEST(HfConfigVision, APositionOffTheGridIsSaidAsSuch) {
  // Llama 4: 336 / 14 = 24 patches per side, rows and columns 0 … 23. By hand: (23, 23) is the last patch;
  // 24, −1 and 2.5 are none; one number m is the patch (m, m).
  const ModelConfig v = select_vision_tower(parse(kLlama4));
  const auto at = [&](const char* text) { return patch_outside_grid(v, parse_axis_position(text, "--position")); };
  EXPECT_FALSE(at("0,0"));
  EXPECT_FALSE(at("23,23"));
  EXPECT_FALSE(at("23"));
  for (const char* off : {"24,0", "0,24", "-1,3", "2.5,1", "24"}) EXPECT_TRUE(at(off)) << off;
  const auto note = at("24");
  ASSERT_TRUE(note);
  EXPECT_EQ(note->en,
            "note: (24, 24) is not a patch of the model's 24×24 grid (rows and columns 0 … 23):\n"
            "  config.json vision_config never rotates it; rope rotates it by the formula all the same");
  EXPECT_EQ(note->in(Lang::Zh),
            "注：(24, 24) 不是该模型 24×24 网格中的块（行与列为 0 … 23）：\n"
            "  config.json vision_config 从不旋转这个位置；rope 仍按公式旋转它");
  EXPECT_THAT(at("3,24")->en, HasSubstr("note: (3, 24) is not a patch"));
  // No grid, no note: Qwen2-VL's dynamic resolution, a Llama 4 config without image_size, the text model.
  const ModelConfig qwen = select_vision_tower(parse(R"({"model_type": "qwen2_vl", "hidden_size": 3584,
      "num_attention_heads": 28, "vision_config": {"embed_dim": 1280, "num_heads": 16}})"));
  EXPECT_FALSE(patch_outside_grid(qwen, parse_axis_position("500,500", "--position")));
  const ModelConfig bare = select_vision_tower(parse(R"({"model_type": "llama4", "text_config": {"head_dim": 128},
      "vision_config": {"hidden_size": 1408, "num_attention_heads": 16}})"));
  EXPECT_FALSE(patch_outside_grid(bare, parse_axis_position("500,500", "--position")));
  EXPECT_FALSE(patch_outside_grid(parse(kLlama4), parse_axis_position("500", "--position")));
}

}  // namespace
}  // namespace rope
