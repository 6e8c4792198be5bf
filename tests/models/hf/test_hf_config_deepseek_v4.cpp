// DeepSeek-V4 as Hugging Face reads its config.json (rope/models/hf/hf_config_deepseek_v4.cpp): the head's last
// qk_rope_head_dim channels, the labels main and compress, the layer types from layer_types, the legacy compress_ratios
// or the class's pattern (configuration_deepseek_v4.py @ 015c078164, modular_deepseek_v4.py @ 02356fecf2).
// tests/cli/check_deepseek_v4.py checks the same configs against a NumPy port of HF's rotary.
#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "models/config_test_util.hpp"
#include "rope/core/error.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using namespace config_test;

// DeepSeek-V4-Flash's RoPE keys in the legacy form (compress_ratios, rope_scaling and compress_rope_theta at the top
// level), cut to 7 layers.
constexpr const char* kLegacy = R"({"model_type": "deepseek_v4", "head_dim": 512, "qk_rope_head_dim": 64,
  "num_hidden_layers": 7, "max_position_embeddings": 1048576, "rope_theta": 10000.0, "compress_rope_theta": 160000.0,
  "compress_ratios": [0, 0, 4, 128, 4, 128, 0],
  "rope_scaling": {"type": "yarn", "factor": 16, "original_max_position_embeddings": 65536, "beta_fast": 32,
                   "beta_slow": 1}})";

TEST(DeepseekV4, TheLastSixtyFourChannelsOfA512HeadInterleaved) {
  const ModelConfig m = parse(kLegacy);
  EXPECT_EQ(m.rope.head_dim, 512);
  EXPECT_EQ(m.qk_nope_head_dim, 448);
  const RopeSpec s = make_spec(m);
  EXPECT_EQ(s.head_dim, 512);
  EXPECT_EQ(s.rotary_dim, 64);
  EXPECT_EQ(s.rotary_offset, 448);  // x[..., -rope_dim:]
  EXPECT_EQ(s.layout, Layout::Interleaved);
  EXPECT_FALSE(s.deinterleaved_output);
  // The model's values are main's: default RoPE at rope_theta, every layer's queries and keys.
  EXPECT_EQ(m.layer_type, "main");
  EXPECT_EQ(m.rope.base, 10000.0);
  EXPECT_EQ(m.rope.type, ScalingType::Default);
  ASSERT_TRUE(m.attention_scale.has_value());
  EXPECT_DOUBLE_EQ(m.attention_scale->rule_value, 1.0 / std::sqrt(512.0));  // self.scaling = head_dim**-0.5
}

TEST(DeepseekV4, CompressIsTheFlatBlockAtCompressRopeThetaWithAttentionFactorOne) {
  const ModelConfig m = parse(kLegacy);
  const RopeConfig& c = select_layer_type(m, "compress").config;
  EXPECT_EQ(c.base, 160000.0);
  EXPECT_EQ(c.type, ScalingType::Yarn);
  EXPECT_EQ(c.factor, 16.0);
  EXPECT_EQ(c.original_max_position_embeddings, 65536);
  EXPECT_EQ(c.attention_factor, 1.0);  // DeepseekV4Config: setdefault("attention_factor", 1.0)
  EXPECT_EQ(rope_parameters(c).attention_factor, 1.0);
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("attention_factor 1.0 set by HF's DeepseekV4Config")));
  // setdefault: an attention_factor the config gives is kept.
  std::string given = kLegacy;
  given.replace(given.find(R"("beta_slow": 1)"), 14, R"("beta_slow": 1, "attention_factor": 0.75)");
  EXPECT_EQ(select_layer_type(parse(given), "compress").config.attention_factor, 0.75);
  // A layer index names main: HF turns every layer's queries and window keys with it.
  EXPECT_EQ(select_layer_type(m, "3").name, "main");
  EXPECT_EQ(select_layer_type(m, "heavily_compressed_attention").config.base, 160000.0);
  EXPECT_EQ(select_layer_type(m, "sliding_attention").config.base, 10000.0);
}

struct LayerCase {
  const char* name;
  const char* config;
  std::vector<int> sliding, csa, hca;
  double compress_base;
  ScalingType compress_type;
};

class DeepseekV4Layers : public ::testing::TestWithParam<LayerCase> {};

std::vector<int> layers_of(const ModelConfig& m, const std::string& type) {
  for (const LayerTypeRope& lt : m.layer_types) {
    if (lt.name == type) return lt.layers;
  }
  return {};
}

TEST_P(DeepseekV4Layers, LayerTypesAndTheCompressBlock) {
  const LayerCase& c = GetParam();
  const ModelConfig m = parse(c.config);
  EXPECT_EQ(layers_of(m, "sliding_attention"), c.sliding);
  EXPECT_EQ(layers_of(m, "compressed_sparse_attention"), c.csa);
  EXPECT_EQ(layers_of(m, "heavily_compressed_attention"), c.hca);
  const std::size_t n = c.sliding.size() + c.csa.size() + c.hca.size();
  EXPECT_EQ(layers_of(m, "main").size(), n);
  EXPECT_EQ(layers_of(m, "compress").size(), c.csa.size() + c.hca.size());
  const RopeConfig& compress = select_layer_type(m, "compress").config;
  EXPECT_EQ(compress.base, c.compress_base);
  EXPECT_EQ(compress.type, c.compress_type);
  EXPECT_EQ(select_layer_type(m, "main").config.type, ScalingType::Default);
}

INSTANTIATE_TEST_SUITE_P(
    DeepseekV4, DeepseekV4Layers,
    ::testing::Values(
        LayerCase{"legacy_compress_ratios", kLegacy, {0, 1, 6}, {2, 4}, {3, 5}, 160000.0, ScalingType::Yarn},
        // What HF v5 writes back: layer_types and rope_parameters keyed by the labels.
        LayerCase{"nested_labels",
                  R"({"model_type": "deepseek_v4", "partial_rotary_factor": 0.125, "num_hidden_layers": 4,
                      "layer_types": ["sliding_attention", "compressed_sparse_attention",
                                      "heavily_compressed_attention", "sliding_attention"],
                      "rope_parameters": {"main": {"rope_type": "default", "rope_theta": 10000.0},
                                          "compress": {"rope_type": "yarn", "rope_theta": 160000.0, "factor": 16.0,
                                                       "original_max_position_embeddings": 65536,
                                                       "attention_factor": 1.0}}})",
                  {0, 3},
                  {1},
                  {2},
                  160000.0,
                  ScalingType::Yarn},
        // The class's pattern: 2 × heavily compressed, then compressed sparse (odd) and heavily compressed (even);
        // no scaling block: compress is default RoPE at compress_rope_theta.
        LayerCase{"class_pattern",
                  R"({"model_type": "deepseek_v4", "num_hidden_layers": 6, "compress_rope_theta": 40000})",
                  {},
                  {3, 5},
                  {0, 1, 2, 4},
                  40000.0,
                  ScalingType::Default},
        // layer_types wins over compress_ratios, and both are cut to num_hidden_layers.
        LayerCase{"layer_types_over_ratios",
                  R"({"model_type": "deepseek_v4", "num_hidden_layers": 2, "compress_ratios": [128, 128, 128],
                      "layer_types": ["sliding_attention", "compressed_sparse_attention", "sliding_attention"]})",
                  {0},
                  {1},
                  {},
                  160000.0,
                  ScalingType::Default}),
    [](const ::testing::TestParamInfo<LayerCase>& i) { return std::string(i.param.name); });

TEST(DeepseekV4, RefusesWhatHfRefuses) {
  expect_invalid(R"({"model_type": "deepseek_v4", "compress_ratios": [0, 8]})",
                 "config.json: compress_ratios[1]: expected 0, 4 or 128 (HF's _COMPRESS_RATIO_TO_LAYER_TYPE), got 8");
  expect_invalid(R"({"model_type": "deepseek_v4", "layer_types": ["full_attention"]})",
                 "config.json: layer_types: expected sliding_attention, compressed_sparse_attention or "
                 "heavily_compressed_attention (DeepseekV4Config.validate_layer_type), got \"full_attention\"");
  expect_invalid(R"({"model_type": "deepseek_v4", "head_dim": 512, "qk_rope_head_dim": 1024})",
                 "config.json: qk_rope_head_dim: must not exceed head_dim 512, got 1024");
  // Issue 62 item 10: a rotary width that is odd or below 2 names the key that gave it, never one the file lacks.
  expect_invalid(R"({"model_type": "deepseek_v4", "head_dim": 512, "partial_rotary_factor": 0.001})",
                 "config.json: partial_rotary_factor: the rotary channels int(head_dim × partial_rotary_factor) = 0 "
                 "must be even and at least 2");
  expect_invalid(
      R"({"model_type": "deepseek_v4", "head_dim": 512, "qk_rope_head_dim": 63})",
      "config.json: qk_rope_head_dim: the rotary channels qk_rope_head_dim = 63 must be even and at least 2");
  expect_invalid(R"({"model_type": "deepseek_v4", "head_dim": 4})",
                 "config.json: head_dim: the rotary channels int(head_dim × partial_rotary_factor) = 0 must be even "
                 "and at least 2");
}

}  // namespace
}  // namespace rope
