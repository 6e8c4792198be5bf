// The families whose RoPE differs by layer type or whose attention scales the query (data/families.json):
// OLMo 3 (YaRN on the full layers only), Gemma 4 (per-layer-type head dims and rope_parameters), Ministral 3 and
// Mistral 4 (llama_4_scaling_beta, (S21)), DeepSeek-V3, Kimi K2 and Mistral 4 (the softmax scale × mscale²). The
// expected values are transcribed from Hugging Face transformers' own files, named at each test, not read from the
// table.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "models/config_test_util.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/scaling/scaling.hpp"

namespace rope {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace config_test;

// OLMo-3-32B-Think's rope_scaling (allenai), with a short layer list.
constexpr const char* kOlmo3 = R"({"model_type": "olmo3", "hidden_size": 5120, "num_attention_heads": 40,
    "max_position_embeddings": 65536, "rope_theta": 500000,
    "rope_scaling": {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 8192,
                     "beta_fast": 32, "beta_slow": 1, "attention_factor": 1.2079441541679836},
    "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention",
                    "sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]})";

TEST(FamilyLayers, Olmo3ScalesOnlyItsFullLayers) {
  // modular_olmo3.py Olmo3Model: rotary_embs {"sliding_attention": rope_type "default", "full_attention": the
  // config's}; transformers PR #45945 (May 2026) restored it after main of April 2026 gave both YaRN.
  const ModelConfig m = parse(kOlmo3);
  EXPECT_EQ(m.layer_type, "full_attention");
  EXPECT_EQ(m.rope.type, ScalingType::Yarn);
  const LayerTypeRope& sliding = select_layer_type(m, "0");
  EXPECT_EQ(sliding.name, "sliding_attention");
  EXPECT_TRUE(sliding.rope);
  EXPECT_EQ(sliding.config.type, ScalingType::Default);
  EXPECT_EQ(sliding.config.base, 500000.0);
  EXPECT_EQ(sliding.config.head_dim, 128);
  EXPECT_EQ(select_layer_type(m, "7").config.type, ScalingType::Yarn);
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("the scaling only in its full_attention layers")));
  // The sliding layers' attention factor is 1, the full layers' the config's.
  EXPECT_NEAR(rope_parameters(m.rope).attention_factor, 1.2079441541679836, 1e-15);
  const RopeParameters slide = rope_parameters(sliding.config);
  EXPECT_EQ(slide.attention_factor, 1.0);
  EXPECT_EQ(slide.inv_freq[1], std::pow(500000.0, -2.0 / 128));
  // Without layer_types: Olmo3Config's every 4th layer is full, 32 layers.
  const ModelConfig d = parse(R"({"model_type": "olmo3", "head_dim": 128, "rope_theta": 500000,
      "rope_scaling": {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 8192}})");
  EXPECT_EQ(select_layer_type(d, "full_attention").layers.size(), 8u);
  EXPECT_EQ(select_layer_type(d, "sliding_attention").config.type, ScalingType::Default);
}

TEST(FamilyLayers, Gemma4FullLayersHaveTheirOwnHeadsAndRope) {
  // configuration_gemma4.py Gemma4TextConfig: head_dim 256, global_head_dim 512, rope_parameters
  // {sliding: default 1e4, full: proportional, partial_rotary_factor 0.25, 1e6}, every 6th layer full.
  const ModelConfig m = parse(R"({"model_type": "gemma4", "text_config": {"model_type": "gemma4_text",
      "num_hidden_layers": 12}})");
  EXPECT_EQ(m.layer_type, "full_attention");
  EXPECT_EQ(m.rope.head_dim, 512);
  EXPECT_EQ(m.rope.type, ScalingType::Proportional);
  EXPECT_EQ(m.rope.base, 1000000.0);
  const LayerTypeRope& sliding = select_layer_type(m, "sliding_attention");
  EXPECT_EQ(sliding.config.head_dim, 256);
  EXPECT_EQ(sliding.config.base, 10000.0);
  EXPECT_EQ(sliding.config.type, ScalingType::Default);
  EXPECT_EQ(select_layer_type(m, "full_attention").layers, (std::vector<int>{5, 11}));
  // Proportional over 512: 64 rotated pairs with θ_j = 1e6^(−2j/512), the other 192 pairs unrotated.
  const RopeParameters full = rope_parameters(m.rope);
  ASSERT_EQ(full.inv_freq.size(), 256);
  EXPECT_EQ(full.inv_freq[63], std::pow(1e6, -126.0 / 512));
  EXPECT_EQ(full.inv_freq[64], 0.0);
  // A config's own global_head_dim and layer_types win; the last layer is forced full (Gemma4TextConfig).
  const ModelConfig own = parse(R"({"model_type": "gemma4_text", "head_dim": 128, "global_head_dim": 256,
      "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention"],
      "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                          "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25,
                                             "rope_theta": 1000000.0}}})");
  EXPECT_EQ(own.rope.head_dim, 256);
  EXPECT_EQ(select_layer_type(own, "sliding_attention").config.head_dim, 128);
  EXPECT_EQ(select_layer_type(own, "2").name, "full_attention");
}

TEST(FamilyLayers, Ministral3ScalesTheQueryOnEveryLayer) {
  // modeling_ministral3.py get_llama_4_attn_scale: 1 + β·log(1 + floor(p / original_max_position_embeddings)).
  const ModelConfig m = parse(R"({"model_type": "mistral3", "text_config": {"model_type": "ministral3",
      "head_dim": 128, "max_position_embeddings": 262144,
      "rope_parameters": {"rope_type": "yarn", "rope_theta": 1000000.0, "factor": 16.0,
          "original_max_position_embeddings": 16384, "llama_4_scaling_beta": 0.1,
          "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 1.0, "mscale_all_dim": 1.0}}})");
  ASSERT_TRUE(m.query_scaling.has_value());
  EXPECT_EQ(m.query_scaling->beta, 0.1);
  EXPECT_EQ(m.query_scaling->original, 16384.0);
  EXPECT_EQ(m.query_scaling->at(16383), 1.0);
  EXPECT_NEAR(m.query_scaling->at(16384), 1 + 0.1 * std::log(2.0), 1e-15);
  EXPECT_NEAR(m.query_scaling->at(262143), 1.2772588722239782, 1e-15);  // the issue's 1.277
  EXPECT_TRUE(english(m.warnings).empty()) << english(m.warnings).front();
  // Another family's llama_4_scaling_beta is not understood, and said so.
  const ModelConfig other = parse(R"({"model_type": "llama", "head_dim": 128,
      "rope_scaling": {"rope_type": "default", "llama_4_scaling_beta": 0.1}})");
  EXPECT_FALSE(other.query_scaling.has_value());
  EXPECT_THAT(english(other.warnings), Contains(HasSubstr("llama_4_scaling_beta: not understood")));
  // Without β HF fails (1 + None·…): rope warns and scales nothing.
  const ModelConfig none = parse(R"({"model_type": "ministral3", "head_dim": 128,
      "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0}})");
  EXPECT_FALSE(none.query_scaling.has_value());
  EXPECT_THAT(english(none.warnings), Contains(HasSubstr("llama_4_scaling_beta not given")));
}

TEST(FamilyLayers, SoftmaxScaleOnlyWhereTheFamilysAttentionHasIt) {
  // HF transformers 0205eec1d869 yarn_apply_mscale (models/deepseek_v3/modeling_deepseek_v3.py, DeepseekV3Attention,
  // also Kimi K2's code; models/mistral4/modeling_mistral4.py): scaling = qk_head_dim**-0.5 × mscale², mscale =
  // 0.1·mscale_all_dim·ln(factor) + 1, when rope_type is not default and mscale_all_dim is not 0. The expected values:
  // NumPy, 0.1 * 1.0 * np.log(f) + 1.0 and its square.
  const ModelConfig dsv3 = load_preset("deepseek-v3");  // f 40
  ASSERT_TRUE(dsv3.softmax_scale.has_value());
  EXPECT_NEAR(dsv3.softmax_scale->mscale, 1.3688879454113936, 1e-15);
  EXPECT_NEAR(dsv3.softmax_scale->multiplier, 1.8738542070926265, 1e-15);
  EXPECT_THAT(english(dsv3.notes), Contains(HasSubstr("get_mscale(40, 1)² = 1.87385")));
  const ModelConfig kimi = load_preset("kimi-k2-instruct");  // f 32
  ASSERT_TRUE(kimi.softmax_scale.has_value());
  EXPECT_NEAR(kimi.softmax_scale->multiplier, 1.8132604340394958, 1e-15);
  EXPECT_THAT(english(kimi.notes), Contains(HasSubstr("get_mscale(32, 1)² = 1.81326")));
  // Ministral 3 (Devstral Small 2): Ministral3Attention keeps head_dim**-0.5 although its block has mscale_all_dim 1.
  const ModelConfig dev = load_preset("devstral-small-2-24b");
  EXPECT_EQ(dev.rope.mscale_all_dim, 1.0);
  EXPECT_FALSE(dev.softmax_scale.has_value());
  EXPECT_THAT(english(dev.notes), Not(Contains(HasSubstr("softmax"))));
  // HF's DeepseekV2Attention keeps qk_head_dim**-0.5 (models/deepseek_v2/modeling_deepseek_v2.py at 0233e509531a).
  const char* v2 =
      R"({"model_type": "deepseek_v2", "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "rope_theta": 10000,
      "rope_scaling": {"type": "yarn", "factor": 40, "mscale": 0.707, "mscale_all_dim": 0.707,
                       "original_max_position_embeddings": 4096}})";
  EXPECT_FALSE(parse(v2).softmax_scale.has_value());
  // Mistral 4, and the rule's conditions: mscale_all_dim 0 or rope_type default multiply nothing.
  const ModelConfig m4 = parse(R"({"model_type": "mistral4", "qk_rope_head_dim": 64, "qk_nope_head_dim": 64,
      "rope_parameters": {"rope_type": "yarn", "rope_theta": 10000, "factor": 128.0, "mscale_all_dim": 1.0,
          "mscale": 1.0, "original_max_position_embeddings": 8192, "llama_4_scaling_beta": 0.1}})");
  ASSERT_TRUE(m4.softmax_scale.has_value());
  EXPECT_NEAR(m4.softmax_scale->multiplier, (0.1 * std::log(128.0) + 1) * (0.1 * std::log(128.0) + 1), 1e-15);
  EXPECT_FALSE(parse(R"({"model_type": "deepseek_v3", "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
      "rope_scaling": {"type": "yarn", "factor": 40, "mscale_all_dim": 0}})")
                   .softmax_scale.has_value());
  EXPECT_FALSE(parse(R"({"model_type": "deepseek_v3", "qk_rope_head_dim": 64, "qk_nope_head_dim": 128})")
                   .softmax_scale.has_value());
  // A factor from the command line changes it, and its note with it: get_mscale(10, 1)² = 1.51354.
  RopeOverrides o;
  o.factor = 10.0;
  const ModelConfig ten = resolve_model({"deepseek-v3", ""}, o);
  ASSERT_TRUE(ten.softmax_scale.has_value());
  EXPECT_NEAR(ten.softmax_scale->multiplier, 1.5135359997035929, 1e-15);
  EXPECT_THAT(english(ten.notes), Contains(HasSubstr("get_mscale(10, 1)² = 1.51354")));
  EXPECT_THAT(english(ten.notes), Not(Contains(HasSubstr("get_mscale(40, 1)"))));
}

}  // namespace
}  // namespace rope
