#include <array>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <optional>
#include <unistd.h>

#include "models/config_test_util.hpp"
#include "rope/core/error.hpp"
#include "rope/models/families/family_table.hpp"
#include "rope/models/model_config.hpp"
#include "rope/models/scaling/scaling.hpp"

// The scaling block of a config.json (rope_scaling, rope_parameters): rope/models/hf/hf_config_scaling.cpp.

namespace rope {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::ThrowsMessage;
using namespace config_test;

TEST(ModelConfig, V4AndV5SpellingsGiveTheSameRopeConfig) {
  // Llama 3.1 8B as transformers v4 writes it (rope_theta at the top, rope_scaling) and as v5 does
  // (everything in rope_parameters); docs/scaling.md.
  const ModelConfig v4 = parse(R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
      "max_position_embeddings": 131072, "rope_theta": 500000.0,
      "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                       "original_max_position_embeddings": 8192, "rope_type": "llama3"}})");
  const ModelConfig v5 = parse(R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
      "max_position_embeddings": 131072,
      "rope_parameters": {"rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 8192, "rope_type": "llama3"}})");
  expect_same_rope(v4.rope, v5.rope);
  expect_same_rope(v4.rope, load_preset("llama-3.1-8b").rope);
  EXPECT_THAT(english(v4.origin), Contains("rope_theta: 500000 (rope_theta)"));
  EXPECT_THAT(english(v5.origin), Contains("rope_theta: 500000 (rope_parameters.rope_theta)"));
  EXPECT_THAT(english(v5.origin), Contains("factor: 8 (rope_parameters.factor)"));

  // v5 may also carry partial_rotary_factor inside rope_parameters (docs/scaling.md).
  const ModelConfig neox_v5 = parse(R"({"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64,
      "max_position_embeddings": 2048,
      "rope_parameters": {"rope_type": "default", "rope_theta": 10000, "partial_rotary_factor": 0.25}})");
  expect_same_rope(neox_v5.rope, load_preset("gpt-neox-20b").rope);
}

TEST(ModelConfig, V5RopeThetaWinsOverATopLevelOneAndSaysSo) {
  // C2 (vllm-project/vllm#42624): v5 rope_parameters vs a stale v4 rope_theta.
  const ModelConfig m = parse(R"({"hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000,
      "rope_parameters": {"rope_type": "default", "rope_theta": 1000000}})");
  EXPECT_EQ(m.rope.base, 1e6);
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("rope_theta 10000 at the top level is ignored")));
}

TEST(ModelConfig, PerLayerTypeParametersTakeFullAttention) {
  // Gemma 3 4B in v5 form (HF convert_gemma3_weights.py): full_attention linear f=8 at 1e6,
  // sliding_attention default at 1e4.
  const ModelConfig m = parse(R"({"model_type": "gemma3_text", "head_dim": 256, "num_attention_heads": 8,
      "hidden_size": 2560, "max_position_embeddings": 131072,
      "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
                          "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}})");
  EXPECT_EQ(m.rope.type, ScalingType::Linear);
  EXPECT_EQ(m.rope.factor, 8.0);
  EXPECT_EQ(m.rope.base, 1e6);
  EXPECT_THAT(english(m.notes), Contains(AllOf(HasSubstr("the full_attention entry is used"),
                                               HasSubstr("sliding_attention: rope_type default, rope_theta 10000"))));
  EXPECT_THAT(english(m.origin), Contains("factor: 8 (rope_parameters.full_attention.factor)"));
  expect_same_rope(m.rope, load_preset("gemma-3-4b").rope);
}

TEST(ModelConfig, LegacyTypeKeyIsReadAsRopeType) {
  // DeepSeek-V3's config.json spells it "type": "yarn" (data/models/README.md).
  const ModelConfig ds = load_preset("deepseek-v3");
  EXPECT_EQ(ds.rope.type, ScalingType::Yarn);
  EXPECT_THAT(english(ds.origin), Contains("rope_type: yarn (rope_scaling.type)"));
  EXPECT_THAT(english(ds.notes), Contains(HasSubstr("legacy key 'type'")));
  // Phi-3's first release said "su" for longrope (torchtune phi3_mini_128k: rope_scaling_type="su").
  std::string su = longrope_config(48, 48);
  su.replace(su.find("\"longrope\""), 10, "\"su\"");
  EXPECT_EQ(parse(su).rope.type, ScalingType::LongRope);
  // rope_type wins over type when both are given (HF reads rope_type first).
  const ModelConfig both = parse(R"({"head_dim": 64, "rope_scaling": {"rope_type": "linear", "type": "dynamic",
      "factor": 2}})");
  EXPECT_EQ(both.rope.type, ScalingType::Linear);
}

TEST(ModelConfig, DefaultNoneAndNullScalingAllMeanNoScaling) {
  for (const char* scaling : {R"(null)", R"({})", R"({"rope_type": "default"})", R"({"type": "none"})",
                              R"({"rope_type": "default", "rope_theta": 10000})"}) {
    const ModelConfig m = parse(std::string(R"({"head_dim": 128, "rope_scaling": )") + scaling + "}");
    EXPECT_EQ(m.rope.type, ScalingType::Default) << scaling;
    EXPECT_EQ(m.rope.factor, std::nullopt) << scaling;
  }
}

TEST(ModelConfig, DefaultsAndConventionsAreNoted) {
  // A missing rope_theta is HF's default 10000, and the reader is told.
  const ModelConfig m = parse(R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32})");
  EXPECT_EQ(m.rope.base, 10000.0);
  EXPECT_THAT(english(m.notes), Contains("rope_theta not given: HF default 10000 assumed"));
  EXPECT_EQ(m.rope.layout, Layout::Half);
  EXPECT_EQ(m.layout_reason.en, "model family llama");
  EXPECT_THAT(english(m.origin), Contains("rope_theta: 10000 (HF default)"));
  EXPECT_THAT(english(m.origin), Contains("head_dim: 128 (hidden_size 4096 / num_attention_heads 32)"));
  EXPECT_EQ(m.rope.max_position_embeddings, std::nullopt);
  // gpt-oss's own default is 150000 (docs/scaling.md).
  EXPECT_EQ(parse(R"({"model_type": "gpt_oss", "head_dim": 64})").rope.base, 150000.0);
  // Yarn without original_max_position_embeddings uses M, and the HF defaults are spelled out.
  const ModelConfig yarn = parse(R"({"head_dim": 128, "max_position_embeddings": 32768,
      "rope_scaling": {"rope_type": "yarn", "factor": 4}})");
  EXPECT_THAT(english(yarn.notes),
              Contains("original_max_position_embeddings not given: L0 = max_position_embeddings 32768 (HF)"));
  EXPECT_THAT(english(yarn.notes), Contains("beta_fast not given: HF default 32"));
  EXPECT_EQ(yarn.rope.original_max_position_embeddings, std::nullopt);
}

TEST(ModelConfig, NonPositiveFactorsAreRefused) {
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"rope_type": "linear", "factor": -2}})",
                 "config.json: rope_scaling.factor: must be positive, got -2");
  expect_invalid(R"({"head_dim": 128, "rope_parameters": {"rope_type": "yarn", "factor": 0}})",
                 "config.json: rope_parameters.factor: must be positive, got 0");
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"rope_type": "linear"}})",
                 "config.json: rope_scaling.factor: missing (required for rope_type linear)");
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"rope_type": "llama3", "factor": 8, "high_freq_factor": 4,
                     "original_max_position_embeddings": 8192}})",
                 "config.json: rope_scaling.low_freq_factor: missing (required for rope_type llama3)");
}

TEST(ModelConfig, NegativeAttentionFactorIsReadAndOnlyWarnedAbout) {
  // HF only logs a warning for attention_factor < 0 (its yarn and longrope validation), and the
  // --attention-factor flag did the same: a config's value is read, used, and warned about.
  const ModelConfig yarn = parse(R"({"head_dim": 8, "max_position_embeddings": 16384,
      "rope_scaling": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 4096, "attention_factor": -1}})");
  ASSERT_TRUE(yarn.rope.attention_factor.has_value());
  EXPECT_EQ(*yarn.rope.attention_factor, -1.0);
  const RopeParameters p = rope_parameters(yarn.rope);
  EXPECT_EQ(p.attention_factor, -1.0);
  EXPECT_THAT(english(p.warnings), Contains(HasSubstr("attention_factor -1 < 0")));
}

TEST(ModelConfig, FactorListsMustHaveHalfTheRotaryDim) {
  // Phi-3: d = 96, so each list has d/2 = 48 numbers (docs/scaling.md).
  EXPECT_NO_THROW(parse(longrope_config(48, 48)));
  expect_invalid(longrope_config(48, 47), "config.json: rope_scaling.long_factor: expected 48 numbers, got 47");
  expect_invalid(longrope_config(49, 48), "config.json: rope_scaling.short_factor: expected 48 numbers, got 49");
  // A partial rotary factor shortens them: head_dim 96 × 0.5 = 48 → 24 numbers.
  std::string partial = longrope_config(48, 48);
  partial.insert(1, R"("partial_rotary_factor": 0.5, )");
  expect_invalid(partial, "config.json: rope_scaling.short_factor: expected 24 numbers, got 48");
}

TEST(HfConfigScaling, ErnieFourFiveVlRefusesEveryRopeTypeButDefault) {
  // Ernie4_5_VL_MoeTextRotaryEmbedding.__init__ (modeling_ernie4_5_vl_moe.py:66-69 at 4f2fa85af5eb) raises a ValueError
  // unless rope_parameters' rope_type is default: HF computes no scaling for such a config, so rope refuses it too,
  // whichever spelling carries the type (rope_parameters, rope_scaling, the legacy type, mrope that Qwen2-VL's class
  // renames and ERNIE's does not).
  const ModelFamily* ernie = find_model_family("ernie4_5_vl_moe_text");
  ASSERT_NE(ernie, nullptr);
  EXPECT_EQ(ernie->accepted_rope_types, std::vector<std::string>{"default"});
  EXPECT_EQ(find_model_family("ernie4_5_vl_moe")->accepted_rope_types, std::vector<std::string>{"default"});
  EXPECT_THAT(ernie->accepted_rope_types_source, HasSubstr("modeling_ernie4_5_vl_moe.py:66-69"));
  for (const auto& [block, path, type] : std::vector<std::array<std::string, 3>>{
           {R"("rope_parameters": {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 32768})",
            "rope_parameters.rope_type", "yarn"},
           {R"("rope_scaling": {"type": "mrope", "mrope_section": [22, 22, 20]})", "rope_scaling.type", "mrope"},
           {R"("rope_scaling": {"rope_type": "linear", "factor": 2})", "rope_scaling.rope_type", "linear"},
           {R"("rope_parameters": {"rope_type": "llama3x"})", "rope_parameters.rope_type", "llama3x"}}) {
    expect_invalid(
        R"({"model_type": "ernie4_5_vl_moe_text", "hidden_size": 2560, "num_attention_heads": 20, )" + block + "}",
        "config.json: " + path + ": rope_type '" + type +
            "' is refused by HF's code for model_type "
            "ernie4_5_vl_moe_text: its rotary class accepts only default and raises a ValueError for any other (" +
            ernie->accepted_rope_types_source + ")");
  }
  // In text_config, under the wrapper's model_type.
  expect_invalid(
      R"({"model_type": "ernie4_5_vl_moe", "text_config": {"model_type": "ernie4_5_vl_moe_text", "head_dim": 128,
      "rope_parameters": {"rope_type": "dynamic", "factor": 2}}})",
      "config.json: text_config.rope_parameters.rope_type: rope_type 'dynamic' is refused");
  // default, said or not, and no block at all: accepted.
  for (const char* block :
       {R"(, "rope_parameters": {"rope_type": "default"})", R"(, "rope_scaling": {"type": "default"})",
        R"(, "rope_parameters": {"rope_theta": 500000})", ""}) {
    const ModelConfig m = parse(std::string(R"({"model_type": "ernie4_5_vl_moe_text", "head_dim": 128)") + block + "}");
    EXPECT_EQ(m.rope.type, ScalingType::Default) << block;
  }
  // Another family keeps every type (LlamaRotaryEmbedding's template: ROPE_INIT_FUNCTIONS[rope_type]).
  EXPECT_EQ(parse(R"({"model_type": "ernie4_5_moe", "head_dim": 128, "rope_parameters": {"rope_type": "linear",
      "factor": 2}})")
                .rope.type,
            ScalingType::Linear);
}

}  // namespace
}  // namespace rope
