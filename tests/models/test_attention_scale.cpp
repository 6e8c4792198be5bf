// The softmax scale of a model's attention (model_config.hpp AttentionScale; data/families.json attention_scale).
// The expected values are computed by hand from Hugging Face's own formulas, not read from the table:
//   Gemma 2, Gemma 3: self.scaling = config.query_pre_attn_scalar**-0.5 (models/gemma2/modeling_gemma2.py
//     Gemma2Attention.__init__, at 006e86931247; Gemma3Attention inherits it), class default 256 (Gemma2Config,
//     Gemma3TextConfig); Gemma 3 27B's 168 = 42 * 128 // 32 (convert_gemma3_weights.py at 0d7e95d96b4e);
//   Gemma 4: self.scaling = 1.0 (models/gemma4/modeling_gemma4.py Gemma4TextAttention.__init__ at 0246b4f33354);
//   Granite: self.scaling = config.attention_multiplier, default 1.0 (GraniteConfig);
//   DeepSeek-V2/V3, Kimi K2, Mistral 4: qk_head_dim**-0.5, qk_head_dim = qk_nope_head_dim + qk_rope_head_dim (defaults
//     128 + 64; Mistral4Config 64 + 64, configuration_mistral4.py at 008e57439125), × get_mscale² where the table's
//     softmax_scale applies it (test_family_layers.cpp);
//   every other family: head_dim**-0.5 (LlamaAttention).
// NumPy: 168**-0.5 = 0.07715167498104596, 192**-0.5 * (0.1*log(40) + 1)**2 = 0.1352337788608801,
// 128**-0.5 * (0.1*log(128) + 1)**2 = 0.19496949473302969, 192**-0.5 * (0.1*log(32) + 1)**2 = 0.13086079996295005.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "models/config_test_util.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/resolve.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using namespace config_test;

double scale_of(const ModelConfig& m) {
  EXPECT_TRUE(m.attention_scale.has_value()) << m.name;
  return m.attention_scale ? m.attention_scale->value : 0.0;
}

TEST(AttentionScale, GemmaQueryPreAttnScalarFromTheConfigElseTheClassDefault) {
  const ModelConfig g27 = load_preset("gemma-3-27b");  // head_dim 128, query_pre_attn_scalar 168
  EXPECT_DOUBLE_EQ(scale_of(g27), 0.07715167498104596);
  EXPECT_THAT(g27.attention_scale->from.en, HasSubstr("query_pre_attn_scalar: text_config.query_pre_attn_scalar"));
  EXPECT_THAT(attention_scale_text(*g27.attention_scale).en, HasSubstr("168^−0.5 (query_pre_attn_scalar 168)"));
  // Gemma 2 9B (query_pre_attn_scalar 256, head_dim 256) and Gemma 2 27B (144, head_dim 128).
  EXPECT_DOUBLE_EQ(scale_of(parse(R"({"model_type": "gemma2", "head_dim": 256, "query_pre_attn_scalar": 256})")),
                   0.0625);
  EXPECT_DOUBLE_EQ(scale_of(parse(R"({"model_type": "gemma2", "head_dim": 128, "query_pre_attn_scalar": 144})")),
                   0.08333333333333333);
  // Without the key: the class default 256, said so, whatever head_dim is.
  const ModelConfig bare = parse(R"({"model_type": "gemma2", "head_dim": 128})");
  EXPECT_DOUBLE_EQ(scale_of(bare), 0.0625);
  EXPECT_THAT(bare.attention_scale->from.en, HasSubstr("query_pre_attn_scalar: HF Gemma2Config default"));
  const ModelConfig g3 = load_preset("gemma-3-4b");  // no query_pre_attn_scalar: Gemma3TextConfig's 256
  EXPECT_DOUBLE_EQ(scale_of(g3), 0.0625);
  EXPECT_THAT(g3.attention_scale->from.en, HasSubstr("HF Gemma3TextConfig default"));
  // Gemma 2 caps its scores, cap·tanh(s / cap): attn_logit_softcapping, Gemma2Config's 50.0 when absent, none when null
  // (softcap=None); Gemma3TextConfig's default is None, and Gemma 3 has no cap.
  EXPECT_EQ(bare.attention_scale->softcap, 50.0);
  EXPECT_THAT(bare.attention_scale->softcap_from.en, HasSubstr("HF Gemma2Config default"));
  EXPECT_EQ(
      parse(R"({"model_type": "gemma2", "head_dim": 128, "attn_logit_softcapping": 30})").attention_scale->softcap,
      30.0);
  EXPECT_FALSE(
      parse(R"({"model_type": "gemma2", "head_dim": 128, "attn_logit_softcapping": null})").attention_scale->softcap);
  EXPECT_FALSE(g3.attention_scale->softcap.has_value());
}

TEST(AttentionScale, GemmaFourAndGraniteAreNotTheHeadDimension) {
  const ModelConfig g4 = load_preset("gemma-4-26b-a4b");
  EXPECT_EQ(scale_of(g4), 1.0);
  EXPECT_THAT(g4.attention_scale->from.en, HasSubstr("Gemma4TextAttention"));
  RopeOverrides full;
  full.layer_type = "full_attention";  // head 512: still 1
  EXPECT_EQ(scale_of(resolve_model({"gemma-4-26b-a4b", ""}, full)), 1.0);
  EXPECT_EQ(scale_of(parse(R"({"model_type": "granite", "head_dim": 128, "attention_multiplier": 0.0078125})")),
            0.0078125);
  const ModelConfig g = parse(R"({"model_type": "granite", "head_dim": 128})");
  EXPECT_EQ(scale_of(g), 1.0);
  EXPECT_THAT(g.attention_scale->from.en, HasSubstr("attention_multiplier: HF GraniteConfig default"));
}

TEST(AttentionScale, MlaUsesTheWholeQueryKeyHeadTimesMscaleSquared) {
  EXPECT_NEAR(scale_of(load_preset("deepseek-v3")), 0.1352337788608801, 1e-16);
  EXPECT_NEAR(scale_of(load_preset("kimi-k2-instruct")), 0.13086079996295005, 1e-16);
  // Keys absent: the class defaults 128 + 64 (DeepSeek-V2, no multiplier) and 64 + 64 (Mistral 4, × get_mscale(128,
  // 1)²).
  const ModelConfig v2 = parse(R"({"model_type": "deepseek_v2", "head_dim": 64})");
  EXPECT_DOUBLE_EQ(scale_of(v2), 0.07216878364870322);
  EXPECT_THAT(v2.attention_scale->from.en, HasSubstr("qk_nope_head_dim: HF DeepseekV2Config default"));
  const ModelConfig m4 = parse(R"({"model_type": "mistral4", "qk_rope_head_dim": 64,
      "rope_parameters": {"rope_type": "yarn", "rope_theta": 10000, "factor": 128.0, "mscale_all_dim": 1.0,
          "mscale": 1.0, "original_max_position_embeddings": 8192, "llama_4_scaling_beta": 0.1}})");
  EXPECT_NEAR(scale_of(m4), 0.19496949473302969, 1e-16);
  EXPECT_EQ(m4.attention_scale->multiplier, m4.softmax_scale->multiplier);
  // A factor from the command line moves the multiplier, and the scale with it: (0.1·ln 10 + 1)² / √192.
  RopeOverrides o;
  o.factor = 10.0;
  const double ten = std::pow(0.1 * std::log(10.0) + 1.0, 2) / std::sqrt(192.0);
  EXPECT_NEAR(scale_of(resolve_model({"deepseek-v3", ""}, o)), ten, 1e-16);
}

TEST(AttentionScale, EveryOtherFamilyIsTheHeadDimensionAndSaysWhere) {
  const ModelConfig llama = load_preset("llama-3.1-8b");
  EXPECT_DOUBLE_EQ(scale_of(llama), 0.08838834764831845);
  EXPECT_TRUE(llama.attention_scale->head_dim_rule);
  EXPECT_THAT(llama.attention_scale->from.en,
              HasSubstr("HF models/llama/modeling_llama.py: self.scaling = head_dim**-0.5"));
  // A partial rotary head keeps the whole head: GLM-4.5 rotates 64 of 128 channels, scale 128^−0.5.
  EXPECT_DOUBLE_EQ(scale_of(load_preset("glm-4.5")), 0.08838834764831845);
  // Not in the table: HF's common rule, said to be assumed.
  const ModelConfig unknown = parse(R"({"model_type": "brand_new", "head_dim": 64})");
  EXPECT_DOUBLE_EQ(scale_of(unknown), 0.125);
  EXPECT_THAT(unknown.attention_scale->from.en, HasSubstr("assumed"));
  // --dim changes the head, and head_dim^−0.5 with it.
  RopeOverrides o;
  o.head_dim = 64;
  EXPECT_DOUBLE_EQ(scale_of(resolve_model({"llama-3.1-8b", ""}, o)), 0.125);
}

}  // namespace
}  // namespace rope
