// rope/models/hf/hf_config_mrope.cpp: mrope_section and mrope_interleaved of a config.json.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "models/config_test_util.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace config_test;

TEST(HfConfigMrope, QwenTwoVlLegacyTypeWithSectionsIsChunkedMrope) {
  const ModelConfig m = parse(R"({"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
      "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}})");
  ASSERT_TRUE(m.mrope);
  EXPECT_EQ(m.mrope->sections, (std::vector<int>{16, 24, 24}));
  EXPECT_EQ(m.mrope->order, SectionOrder::Chunked);
  EXPECT_EQ(m.rope.type, ScalingType::Default);
  EXPECT_THAT(english(m.origin), Contains("mrope_section: [16, 24, 24] (rope_scaling.mrope_section)"));
  EXPECT_THAT(english(m.notes),
              Contains(HasSubstr("M-RoPE: every pair turns with the time, height or width position")));
  EXPECT_THAT(english(m.notes), Not(Contains(HasSubstr("without mrope_section"))));
  const RopeSpec spec = make_spec(m);
  ASSERT_TRUE(spec.axes);
  EXPECT_EQ(spec.layout, Layout::Half);  // model family qwen2_vl: rotate_half
  EXPECT_EQ(spec.axes->pair_axis.size(), 64u);
}

TEST(HfConfigMrope, QwenThreeVlInterleavedInTextConfig) {
  const ModelConfig m = load_preset("qwen3-vl-8b");
  ASSERT_TRUE(m.mrope);
  EXPECT_EQ(m.mrope->order, SectionOrder::Interleaved);
  EXPECT_THAT(english(m.origin), Contains("mrope_interleaved: true (text_config.rope_scaling.mrope_interleaved)"));
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("interleaved (docs/multi-axis.md (A1), (A3))")));
}

TEST(HfConfigMrope, TheNoteOfTheTypeStaysWithoutSections) {
  const ModelConfig m = parse(R"({"head_dim": 64, "rope_scaling": {"type": "mrope"}})");
  EXPECT_FALSE(m.mrope);
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("rope_type mrope without mrope_section: no axis sections")));
  const ModelConfig lone =
      parse(R"({"head_dim": 64, "rope_scaling": {"rope_type": "default", "mrope_interleaved": true}})");
  EXPECT_FALSE(lone.mrope);
  EXPECT_THAT(english(lone.notes), Contains(HasSubstr("mrope_interleaved without mrope_section: ignored")));
}

TEST(HfConfigMrope, ErnieFourFiveVlHasItsOwnThreeDimensionalMap) {
  // HF Ernie4_5_VL_MoeTextRotaryEmbedding (modeling_ernie4_5_vl_moe.py at 4f2fa85af5eb): mrope_section (h, w, t),
  // default [22, 22, 20]; recomposition_to_3d gives pairs 0-43 alternately to h and w, 44-63 to t (A8);
  // interleaved pairs (rotate_half_text) and Ernie4_5_VL_MoeTextConfig's default θ 5e5.
  for (const char* sections : {"", R"(, "mrope_section": [22, 22, 20])"}) {
    const ModelConfig m = parse(std::string(R"({"model_type": "ernie4_5_vl_moe", "text_config": {"model_type":
        "ernie4_5_vl_moe_text", "hidden_size": 2560, "num_attention_heads": 20, "rope_parameters": {"rope_type": "default")") +
                                sections + "}}}");
    ASSERT_TRUE(m.mrope) << sections;
    EXPECT_EQ(m.mrope->order, SectionOrder::Ernie3d);
    EXPECT_EQ(m.mrope->sections, (std::vector<int>{22, 22, 20}));
    EXPECT_EQ(m.rope.base, 5e5);
    EXPECT_THAT(english(m.notes),
                Contains(HasSubstr("ernie4_5_vl_moe_text: 3-D RoPE, mrope_section [22, 22, 20] read as "
                                   "(h, w, t): the fastest 44 pairs alternate height and width, the "
                                   "slowest 20 turn with the time")));
    const RopeSpec spec = make_spec(m);
    EXPECT_EQ(spec.layout, Layout::Interleaved);
    ASSERT_TRUE(spec.axes.has_value());
    EXPECT_EQ(axis_pattern(*spec.axes).rfind("HW·HW·HW", 0), 0u);  // it starts so
    EXPECT_EQ(spec.axes->pair_axis[42], 1);
    EXPECT_EQ(spec.axes->pair_axis[43], 2);
    EXPECT_EQ(spec.axes->pair_axis[44], 0);
    EXPECT_EQ(spec.axes->pairs_of(0), 20);
  }
  // torch.stack of the h and w halves needs as many pairs of each.
  expect_invalid(R"({"model_type": "ernie4_5_vl_moe_text", "head_dim": 128,
      "rope_parameters": {"rope_type": "default", "mrope_section": [20, 24, 20]}})",
                 "ERNIE-4.5-VL's 3-D RoPE reads 3 sections (h, w, t) with as many pairs of height as of width");
}

// Bailing (Ling/Ming) M-RoPE (A9), vLLM bailing_mrope.py at 9c5b716395: sections (t, h, w) with h = w over the 64
// rotary channels of the MLA head, GPT-J pairs. The VL wrapper's top-level mrope_section, the language model's
// rope_parameters (as BailingMoeV3VLConfig copies it there), and the wrapper's default [12, 10, 10] all read alike.
struct BailingConfigCase {
  std::string name;
  std::string json;
  std::vector<int> sections;
  std::string origin;
};

class HfConfigBailing : public ::testing::TestWithParam<BailingConfigCase> {};

TEST_P(HfConfigBailing, ReadsItsSectionsAsTimeHeightWidth) {
  const auto& [name, json, sections, origin] = GetParam();
  const ModelConfig m = parse(json);
  ASSERT_TRUE(m.mrope) << name;
  EXPECT_EQ(m.mrope->order, SectionOrder::Bailing) << name;
  EXPECT_EQ(m.mrope->sections, sections) << name;
  EXPECT_EQ(m.rope.base, 6e5) << name;
  EXPECT_THAT(english(m.origin), Contains(HasSubstr(origin))) << name;
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("bailing_hybrid: Bailing M-RoPE, mrope_section")));
  const RopeSpec spec = make_spec(m);
  EXPECT_EQ(spec.layout, Layout::Interleaved);
  EXPECT_EQ(spec.rotary_dim, 64);
  ASSERT_TRUE(spec.axes.has_value());
  EXPECT_EQ(spec.axes->pair_axis.front(), 1) << name;  // h
  EXPECT_EQ(spec.axes->pair_axis[1], 2) << name;       // w
  EXPECT_EQ(spec.axes->pair_axis.back(), 0) << name;   // t
  EXPECT_EQ(spec.axes->pairs_of(0), sections[0]) << name;
}

INSTANTIATE_TEST_SUITE_P(
    Configs, HfConfigBailing,
    ::testing::Values(
        BailingConfigCase{"top_level",
                          R"({"model_type": "bailing_moe_v3_vl", "mrope_section": [8, 12, 12], "text_config":
            {"model_type": "bailing_hybrid", "hidden_size": 2048, "num_attention_heads": 16}})",
                          {8, 12, 12},
                          "mrope_section: [8, 12, 12] (mrope_section)"},
        BailingConfigCase{"rope_parameters",
                          R"({"model_type": "bailing_hybrid", "hidden_size": 2048, "num_attention_heads": 16,
            "rope_parameters": {"rope_type": "default", "mrope_section": [12, 10, 10]}})",
                          {12, 10, 10},
                          "mrope_section: [12, 10, 10] (rope_parameters.mrope_section)"},
        BailingConfigCase{"wrapper_default",
                          R"({"model_type": "bailing_moe_v3_vl", "text_config":
            {"model_type": "bailing_hybrid", "hidden_size": 2048, "num_attention_heads": 16}})",
                          {12, 10, 10},
                          "the default of BailingMoeV3VLConfig (inclusionAI remote code)"}),
    [](const auto& info) { return info.param.name; });

// openPangu-VL (A10): vLLM's get_rope builds MRotaryEmbeddingInterleaved for rope_type openpangu with mrope_section and
// mrope_interleaved (rotary_embedding/__init__.py read at 07b12f1b16); data/configs/openpangu-vl.json's keys.
TEST(HfConfigMrope, OpenPanguReadsItsGreedyOrderAndSaysWhereItPartsFromQwenThreeVl) {
  const ModelConfig m = parse(R"({"model_type": "openpangu_vl_text", "hidden_size": 4096, "num_attention_heads": 32,
      "head_dim": 128, "rope_parameters": {"rope_type": "openpangu", "rope_theta": 5000000.0,
      "mrope_section": [24, 20, 20], "mrope_interleaved": true}})");
  ASSERT_TRUE(m.mrope);
  EXPECT_EQ(m.mrope->order, SectionOrder::PanguGreedy);
  EXPECT_EQ(m.rope.type, ScalingType::Default);
  EXPECT_EQ(m.rope.base, 5e6);
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("Qwen3-VL's interleaved order (A3) on pairs 0 … 22 and parts from "
                                                   "it at pair 23 (t here, w in Qwen3-VL's)")));
  const RopeSpec spec = make_spec(m);
  ASSERT_TRUE(spec.axes);
  EXPECT_EQ(spec.axes->pair_axis[23], 0);
  EXPECT_EQ(spec.axes->pair_axis.back(), 0);
  // vLLM: "Pangu mrope interleaved lacks necessary parameters mrope_section or mrope_interleaved."
  expect_invalid(R"({"model_type": "openpangu_vl_text", "hidden_size": 4096, "num_attention_heads": 32,
      "rope_parameters": {"rope_type": "openpangu", "mrope_section": [24, 20, 20]}})",
                 "rope_type openpangu needs mrope_section and mrope_interleaved true");
  expect_invalid(R"({"model_type": "openpangu_vl_text", "hidden_size": 4096, "num_attention_heads": 32,
      "rope_parameters": {"rope_type": "openpangu", "mrope_interleaved": true}})",
                 "rope_type openpangu needs mrope_section and mrope_interleaved true");
}

TEST(HfConfigMrope, BailingTextAloneAndBadSections) {
  // The language model alone without sections: plain RoPE (text tokens only), no map.
  const ModelConfig text = parse(R"({"model_type": "bailing_hybrid", "hidden_size": 2048, "num_attention_heads": 16})");
  EXPECT_FALSE(text.mrope);
  expect_invalid(R"({"model_type": "bailing_hybrid", "hidden_size": 2048, "num_attention_heads": 16,
      "rope_parameters": {"rope_type": "default", "mrope_section": [8, 14, 10]}})",
                 "Bailing M-RoPE reads 3 sections (t, h, w) with as many pairs of height as of width");
}

TEST(HfConfigMrope, QwenThreeFiveInterleavesWhateverTheKeySays) {
  // Qwen3_5TextRotaryEmbedding (modeling_qwen3_5.py at d8c1e2844cbf): apply_interleaved_mrope always,
  // mrope_section default [11, 11, 10]; Qwen3_5TextConfig (configuration_qwen3_5.py at 8116e632367): head_dim 256,
  // partial_rotary_factor 0.25.
  for (const char* keys :
       {"", R"(, "mrope_section": [11, 11, 10])", R"(, "mrope_section": [11, 11, 10], "mrope_interleaved": false)"}) {
    const ModelConfig m =
        parse(std::string(R"({"model_type": "qwen3_5_text", "hidden_size": 2048, "num_attention_heads": 16,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000000)") +
              keys + "}}");
    ASSERT_TRUE(m.mrope) << keys;
    EXPECT_EQ(m.mrope->order, SectionOrder::Interleaved) << keys;
    EXPECT_EQ(m.mrope->sections, (std::vector<int>{11, 11, 10}));
    const RopeSpec spec = make_spec(m);
    EXPECT_EQ(spec.head_dim, 256);
    EXPECT_EQ(spec.rotary_dim, 64);
  }
  const ModelConfig off = parse(R"({"model_type": "qwen3_5_text", "head_dim": 256, "rope_parameters": {"rope_type":
      "default", "mrope_section": [11, 11, 10], "mrope_interleaved": false}})");
  EXPECT_THAT(english(off.notes),
              Contains(HasSubstr("mrope_interleaved false: ignored, qwen3_5_text's code interleaves")));
  // Qwen3-VL: the class Qwen3.5 subclasses (modular_qwen3_5.py at 8940358af742), its own default [24, 20, 20].
  const ModelConfig vl =
      parse(R"({"model_type": "qwen3_vl_text", "head_dim": 128, "rope_scaling": {"rope_type": "default"}})");
  ASSERT_TRUE(vl.mrope);
  EXPECT_EQ(vl.mrope->order, SectionOrder::Interleaved);
  EXPECT_EQ(vl.mrope->sections, (std::vector<int>{24, 20, 20}));
  // Qwen2-VL's family leaves it to the keys.
  const ModelConfig qwen2 = parse(R"({"model_type": "qwen2_vl", "head_dim": 128,
      "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}})");
  EXPECT_EQ(qwen2.mrope->order, SectionOrder::Chunked);
}

TEST(HfConfigMrope, BadSectionsNameThePathAndTheRule) {
  expect_invalid(
      R"({"head_dim": 128, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 16]}})",
      "config.json: rope_scaling.mrope_section: mrope_section [16, 24, 16] adds up to 56, not rotary_dim / 2 = 64");
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"type": "mrope", "mrope_section": "16,24,24"}})",
                 "rope_scaling.mrope_section: expected a list of whole numbers, got string");
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24.5, 23.5]}})",
                 "rope_scaling.mrope_section[1]: expected a whole number in 0 … 65536, got 24.5");
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"type": "mrope", "mrope_section": [16, 1e300, 24]}})",
                 "rope_scaling.mrope_section[1]: expected a whole number in 0 … 65536");
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"mrope_section": [24, 20, 20], "mrope_interleaved": 1}})",
                 "rope_scaling.mrope_interleaved: expected true or false, got number");
}

}  // namespace
}  // namespace rope
