// rope/models/families/family_table.hpp: the model families as data (data/families.json), and what a config.json that
// omits a key gets from its family's config class. The expected values are transcribed here from Hugging Face
// transformers main 357f414cae88d5f592105bd97ec4a24ef7735f9f (5.6.0.dev0, 2026-04-13), file and line given,
// not read from the table.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "models/config_test_util.hpp"
#include "rope/models/families/family_table.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using namespace config_test;

TEST(FamilyTable, EveryRowHasAClassASourceAndOneModelType) {
  std::set<std::string> seen;
  ASSERT_GE(model_families().size(), 50u);
  for (const ModelFamily& f : model_families()) {
    EXPECT_TRUE(seen.insert(f.model_type).second) << f.model_type;
    EXPECT_FALSE(f.config_class.empty()) << f.model_type;
    EXPECT_FALSE(f.source.empty()) << f.model_type;
    EXPECT_TRUE(f.layout.has_value()) << f.model_type;
    if (f.default_partial_rotary_factor) {
      EXPECT_GT(*f.default_partial_rotary_factor, 0.0);
      EXPECT_LE(*f.default_partial_rotary_factor, 1.0);
    }
  }
  EXPECT_EQ(model_families_commit(), "357f414cae88d5f592105bd97ec4a24ef7735f9f");
  EXPECT_EQ(find_model_family("no_such_family"), nullptr);
}

/// The rope_theta a config of `model_type` without rope_theta gets.
double default_theta(const std::string& model_type) {
  return parse(R"({"model_type": ")" + model_type + R"(", "head_dim": 128})").rope.base;
}

TEST(FamilyTable, ClassDefaultThetaWhenTheConfigOmitsIt) {
  EXPECT_EQ(default_theta("cohere"), 500000.0);        // cohere/configuration_cohere.py:51
  EXPECT_EQ(default_theta("smollm3"), 2000000.0);      // smollm3/configuration_smollm3.py:55
  EXPECT_EQ(default_theta("minimax_m2"), 5000000.0);   // minimax_m2/configuration_minimax_m2.py:67
  EXPECT_EQ(default_theta("qwen3_vl"), 500000.0);      // qwen3_vl/configuration_qwen3_vl.py:78
  EXPECT_EQ(default_theta("mixtral"), 1000000.0);      // mixtral/configuration_mixtral.py:44
  EXPECT_EQ(default_theta("qwen2_vl"), 1000000.0);     // qwen2_vl/configuration_qwen2_vl.py:65
  EXPECT_EQ(default_theta("ernie4_5"), 500000.0);      // ernie4_5/configuration_ernie4_5.py:47
  EXPECT_EQ(default_theta("llama4_text"), 500000.0);   // llama4/configuration_llama4.py:111
  EXPECT_EQ(default_theta("gpt_oss"), 150000.0);       // gpt_oss/configuration_gpt_oss.py:26
  EXPECT_EQ(default_theta("gemma3_text"), 1000000.0);  // gemma3/configuration_gemma3.py:102 (global)
  EXPECT_EQ(default_theta("llama"), 10000.0);          // the mixin's default
  EXPECT_EQ(default_theta("unknown_family"), 10000.0);
  // Cohere's default changed in v5 (#39847): the note says what 4.x did.
  EXPECT_THAT(english(parse(R"({"model_type": "cohere", "head_dim": 128})").notes),
              Contains(HasSubstr("transformers 4.x's CohereConfig defaulted to rope_theta 10000")));
  // A given rope_theta wins over the class default.
  EXPECT_EQ(parse(R"({"model_type": "cohere", "head_dim": 128, "rope_theta": 8000})").rope.base, 8000.0);
}

TEST(FamilyTable, ATransformersFourConfigWithoutThetaTakesFourXsDefault) {
  // transformers_version 4.x: the config was written (and loaded) by 4.x, whose CohereConfig defaulted to 10000;
  // 5.x configs, and configs without the key, take v5's 500000. inspect's sources say which.
  const ModelConfig v4 = parse(R"({"model_type": "cohere", "head_dim": 128, "transformers_version": "4.44.0"})");
  EXPECT_EQ(v4.rope.base, 10000.0);
  EXPECT_THAT(
      english(v4.origin),
      Contains(
          "rope_theta: 10000 (transformers 4.x's CohereConfig default: the config says transformers_version 4.44.0)"));
  EXPECT_THAT(english(v4.notes), Contains(HasSubstr("transformers 5 (models/cohere/configuration_cohere.py:51")));
  EXPECT_EQ(parse(R"({"model_type": "cohere", "head_dim": 128, "transformers_version": "5.0.0"})").rope.base, 500000.0);
  // A family whose default did not change keeps it; an explicit rope_theta always wins.
  EXPECT_EQ(parse(R"({"model_type": "smollm3", "head_dim": 128, "transformers_version": "4.54.0"})").rope.base, 2e6);
  EXPECT_EQ(parse(R"({"model_type": "cohere", "head_dim": 128, "rope_theta": 8000, "transformers_version": "4.44.0"})")
                .rope.base,
            8000.0);
}

TEST(FamilyTable, ClassDefaultPartialRotaryFactor) {
  // GLM-4.5 (glm4_moe/configuration_glm4_moe.py:110, setdefault 0.5): 64 of 128 channels rotate, not 128.
  const RopeSpec glm45 = make_spec(parse(R"({"model_type": "glm4_moe", "head_dim": 128})"));
  EXPECT_EQ(glm45.rotary_dim, 64);
  EXPECT_EQ(glm45.layout, Layout::Half);
  // Qwen3-Next (qwen3_next/configuration_qwen3_next.py:120): 0.25 of head_dim 256.
  EXPECT_EQ(make_spec(parse(R"({"model_type": "qwen3_next", "head_dim": 256})")).rotary_dim, 64);
  // Phi (phi/configuration_phi.py:88) and StableLM (stablelm/configuration_stablelm.py:68).
  EXPECT_EQ(make_spec(parse(R"({"model_type": "phi", "head_dim": 80})")).rotary_dim, 40);
  EXPECT_EQ(make_spec(parse(R"({"model_type": "stablelm", "head_dim": 64})")).rotary_dim, 16);
  // A given factor wins.
  EXPECT_EQ(make_spec(parse(R"({"model_type": "glm4_moe", "head_dim": 128, "partial_rotary_factor": 1.0})")).rotary_dim,
            128);
}

TEST(FamilyTable, GlmVisionModelsSectionsFitTheirRotaryDimension) {
  // GLM-4.5V (glm4v_moe): partial 0.5 of head 128 = 64 channels, 32 pairs, mrope_section [8, 12, 12]: accepted
  // (with partial 1 it was refused: "adds up to 32, not 64").
  const RopeSpec spec = make_spec(parse(R"({"model_type": "glm4v_moe", "head_dim": 128,
      "rope_scaling": {"rope_type": "default", "mrope_section": [8, 12, 12]}})"));
  EXPECT_EQ(spec.rotary_dim, 64);
  EXPECT_EQ(spec.layout, Layout::Half);
  ASSERT_TRUE(spec.axes.has_value());
  // GLM-4.1V (glm4v/modeling_glm4v.py:463-501, rotate_half_llm): interleaved pairs, no class partial default.
  const RopeSpec v41 = make_spec(parse(R"({"model_type": "glm4v", "head_dim": 128, "partial_rotary_factor": 0.5,
      "rope_scaling": {"rope_type": "default", "mrope_section": [8, 12, 12]}})"));
  EXPECT_EQ(v41.layout, Layout::Interleaved);
}

TEST(FamilyTable, LayoutsOfTheNewFamilies) {
  const auto layout = [](const std::string& t) {
    return make_spec(parse(R"({"model_type": ")" + t + R"(", "head_dim": 64})")).layout;
  };
  EXPECT_EQ(layout("ernie4_5"), Layout::Interleaved);  // modeling_ernie4_5.py:126-130 (0::2, 1::2)
  EXPECT_EQ(layout("ernie4_5_moe"), Layout::Interleaved);
  EXPECT_EQ(layout("cohere"), Layout::Interleaved);  // modeling_cohere.py: repeat_interleave
  for (const char* t :
       {"glm4_moe", "qwen3_next", "smollm3", "minimax_m2", "olmo3", "exaone4", "afmoe", "hunyuan_v1_dense"}) {
    EXPECT_EQ(layout(t), Layout::Half) << t;
  }
}

TEST(FamilyTable, KimiK2RunsDeepSeekV3sInterleavedCode) {
  // Kimi K2's config names model_type kimi_k2 and DeepSeek-V3's modeling code: rope_interleave defaults to true
  // and apply_rotary_pos_emb_interleave returns the pairs de-interleaved (deepseek_v3/modeling_deepseek_v3.py:320-361).
  const RopeSpec kimi = make_spec(parse(R"({"model_type": "kimi_k2", "head_dim": 64})"));
  EXPECT_EQ(kimi.layout, Layout::Interleaved);
  EXPECT_TRUE(kimi.deinterleaved_output);
  EXPECT_FALSE(
      make_spec(parse(R"({"model_type": "kimi_k2", "head_dim": 64, "rope_interleave": false})")).deinterleaved_output);
  EXPECT_FALSE(make_spec(parse(R"({"model_type": "gptj", "head_dim": 64})")).deinterleaved_output);
}

TEST(FamilyTable, HunYuanDynamicWithAlphaIsNtkAlpha) {
  // modeling_hunyuan_v1_dense.py:324-331: base = rope_theta · alpha^(head_dim / (head_dim − 2)), over the whole
  // head, attention factor 1. For θ 10000, α 1000, d 128: 10000 · 1000^(128/126) = 1.1159e7 (issue 32: 1.116e7), so the
  // slowest pair turns 1/1116 as fast as with base 10000 (rope used to call alpha "harmless").
  const char* config = R"({"model_type": "hunyuan_v1_dense", "head_dim": 128, "rope_theta": 10000.0,
      "max_position_embeddings": 32768, "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0}})";
  const ModelConfig m = parse(config);
  EXPECT_EQ(m.rope.type, ScalingType::Dynamic);  // up to max_position_embeddings: the α base
  EXPECT_EQ(m.rope.ntk_alpha, 1000.0);
  EXPECT_TRUE(m.warnings.empty());  // alpha is understood for HunYuan
  const RopeSpec spec = make_spec(m);
  const double base = *spec.params.effective_base;
  EXPECT_NEAR(base, 1.116e7, 0.0005e7);
  EXPECT_DOUBLE_EQ(base, 10000.0 * std::pow(1000.0, 128.0 / 126.0));
  EXPECT_EQ(spec.rotary_dim, 128);
  EXPECT_EQ(spec.attention_factor(), 1.0);
  EXPECT_DOUBLE_EQ(spec.params.inv_freq[63], std::pow(base, -126.0 / 128.0));
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("HunYuan's NTK-α")));
  // Another family's alpha is not understood, and said so.
  const ModelConfig other = parse(R"({"model_type": "llama", "head_dim": 128, "max_position_embeddings": 4096,
      "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 2.0}})");
  EXPECT_EQ(other.rope.type, ScalingType::Dynamic);
  EXPECT_THAT(english(other.warnings), Contains(HasSubstr("rope_scaling.alpha: not understood")));
}

TEST(FamilyTable, Cohere2RotatesOnlyItsSlidingLayers) {
  // configuration_cohere2.py:96-101: layer i slides unless (i + 1) % sliding_window_pattern (4) == 0;
  // modeling_cohere2.py:243-244: RoPE only where sliding_window is set, i.e. on the sliding layers.
  const ModelConfig m = parse(R"({"model_type": "cohere2", "head_dim": 128, "num_hidden_layers": 8})");
  ASSERT_EQ(m.layer_types.size(), 2u);
  EXPECT_EQ(m.layer_type, "sliding_attention");
  const LayerTypeRope& full = select_layer_type(m, "3");
  EXPECT_EQ(full.name, "full_attention");
  EXPECT_FALSE(full.rope);
  EXPECT_EQ(full.layers, (std::vector<int>{3, 7}));
  EXPECT_TRUE(select_layer_type(m, "0").rope);
  // A listed layer_types wins over the pattern.
  const ModelConfig listed = parse(R"({"model_type": "cohere2", "head_dim": 128,
      "layer_types": ["full_attention", "sliding_attention", "sliding_attention"]})");
  EXPECT_EQ(select_layer_type(listed, "0").name, "full_attention");
  EXPECT_FALSE(select_layer_type(listed, "0").rope);
}

TEST(FamilyTable, Qwen3NextLinearAttentionLayersHaveNoRope) {
  // configuration_qwen3_next.py:122-127 (full_attention_interval 4); modeling_qwen3_next.py:811,840.
  const ModelConfig m = parse(R"({"model_type": "qwen3_next", "head_dim": 256, "num_hidden_layers": 48})");
  EXPECT_EQ(m.layer_type, "full_attention");
  EXPECT_EQ(select_layer_type(m, "3").name, "full_attention");
  EXPECT_FALSE(select_layer_type(m, "0").rope);
  EXPECT_EQ(select_layer_type(m, "full_attention").layers.size(), 12u);
}

TEST(FamilyTable, Exaone4RotatesEveryLayerWithoutASlidingWindow) {
  // modeling_exaone4.py:252-253: RoPE iff sliding_window is None or the layer slides.
  const ModelConfig swa = parse(R"({"model_type": "exaone4", "head_dim": 128, "num_hidden_layers": 4})");
  EXPECT_FALSE(select_layer_type(swa, "full_attention").rope);
  const ModelConfig none = parse(R"({"model_type": "exaone4", "head_dim": 128, "num_hidden_layers": 4,
      "sliding_window": null, "layer_types": ["full_attention", "full_attention", "full_attention", "full_attention"]})");
  EXPECT_TRUE(select_layer_type(none, "full_attention").rope);
}

TEST(FamilyTable, SmolLM3EveryFourthLayerIsNope) {
  // configuration_smollm3.py:101-104: no_rope_layers = [int((i + 1) % 4 != 0)]; no query temperature.
  const ModelConfig m = parse(R"({"model_type": "smollm3", "head_dim": 128, "num_hidden_layers": 8})");
  ASSERT_EQ(m.layer_types.size(), 2u);
  EXPECT_EQ(select_layer_type(m, "nope").layers, (std::vector<int>{3, 7}));
  EXPECT_FALSE(select_layer_type(m, "nope").rope);
  EXPECT_FALSE(m.nope_temperature.has_value());
  EXPECT_EQ(m.rope.base, 2000000.0);
}

TEST(FamilyTable, QwenThreeFiveMoeLinearAttentionLayersHaveNoRope) {
  // configuration_qwen3_5_moe.py (read at e36255cb9af6): layer_types every full_attention_interval-th (4) layer
  // full, the others linear_attention (Gated DeltaNet, no RoPE); head_dim 256, partial_rotary_factor 0.25.
  const ModelConfig m = parse(R"({"model_type": "qwen3_5_moe_text", "hidden_size": 2048, "num_attention_heads": 16})");
  EXPECT_EQ(m.layer_type, "full_attention");
  EXPECT_FALSE(select_layer_type(m, "0").rope);
  EXPECT_EQ(select_layer_type(m, "full_attention").layers.size(), 10u);  // 40 layers by default
  EXPECT_EQ(make_spec(m).rotary_dim, 64);
}

TEST(FamilyTable, ClassDefaultHeadDim) {
  // AfmoeConfig head_dim 128 (configuration_afmoe.py at 053f59efe493), not hidden_size / heads = 192;
  // Qwen3NextConfig 256 (configuration_qwen3_next.py at 249ef8164cfb); a given head_dim wins.
  EXPECT_EQ(make_spec(parse(R"({"model_type": "afmoe", "hidden_size": 3072, "num_attention_heads": 16})")).head_dim,
            128);
  EXPECT_EQ(
      make_spec(parse(R"({"model_type": "qwen3_next", "hidden_size": 2048, "num_attention_heads": 16})")).head_dim,
      256);
  EXPECT_EQ(
      make_spec(parse(R"({"model_type": "afmoe", "head_dim": 64, "hidden_size": 3072, "num_attention_heads": 16})"))
          .head_dim,
      64);
  // AFMoE: RoPE only on the sliding layers (modeling_afmoe.py at 0205eec1d869 AfmoeAttention.forward).
  const ModelConfig afmoe = parse(R"({"model_type": "afmoe", "head_dim": 128, "num_hidden_layers": 8})");
  EXPECT_TRUE(select_layer_type(afmoe, "0").rope);
  EXPECT_FALSE(select_layer_type(afmoe, "3").rope);
}

}  // namespace
}  // namespace rope
