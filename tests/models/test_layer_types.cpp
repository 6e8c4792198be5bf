// rope/models/layer_types.hpp: Gemma 3's two RoPEs, Llama 4's NoPE layers and query temperature, v5
// rope_parameters keyed by layer type; and the other model keys of issue 13 (Llama-4-Scout's llama3
// block, ChatGLM's rope_ratio, kv_channels and seq_length).
#include <cmath>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "models/config_test_util.hpp"
#include "rope/core/error.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/rope_spec.hpp"
#include "support/reference_data.hpp"

namespace rope {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using namespace config_test;

// Llama-4-Scout-17B-16E's text_config RoPE keys (HF hub meta-llama/Llama-4-Scout-17B-16E config.json, as
// quoted in issue 13: llama3, factor 16, low_freq_factor = high_freq_factor = 1, L0 8192, base 500000).
constexpr const char* kScout = R"({"model_type": "llama4", "text_config": {"model_type": "llama4_text",
  "head_dim": 128, "num_hidden_layers": 48, "max_position_embeddings": 10485760, "rope_theta": 500000.0,
  "attn_temperature_tuning": true, "floor_scale": 8192, "attn_scale": 0.1, "no_rope_layers": [],
  "rope_scaling": {"rope_type": "llama3", "factor": 16.0, "high_freq_factor": 1.0, "low_freq_factor": 1.0,
                   "original_max_position_embeddings": 8192}}})";

TEST(LayerTypes, Llama4ScoutWarnsAndHasNopeLayersWithATemperature) {
  const ModelConfig m = parse(kScout);  // HF only warns about high_freq_factor = low_freq_factor
  const RopeParameters p = rope_parameters(m.rope);
  EXPECT_THAT(english(p.warnings), Contains(HasSubstr("high_freq_factor = low_freq_factor = 1 (HF warns")));
  EXPECT_EQ(make_spec(m).layout, Layout::Interleaved);  // modeling_llama4.py: view_as_complex pairs
  // no_rope_layers empty: HF's default [int((i + 1) % 4 != 0)] → every 4th layer is NoPE.
  ASSERT_EQ(m.layer_types.size(), 2u);
  EXPECT_EQ(m.layer_types[0].layers.size(), 36u);
  EXPECT_FALSE(m.layer_types[1].rope);
  EXPECT_EQ(m.layer_types[1].layers, (std::vector<int>{3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47}));
  EXPECT_EQ(describe_layers(m.layer_types[1].layers), "3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47");
  EXPECT_THAT(describe_layers(m.layer_types[0].layers), ::testing::StartsWith("0–2, 4–6, 8–10, "));
  // (S20): t(p) = log1p(floor((p + 1)/8192))·0.1 + 1: 1 below p = 8191, 1 + 0.1·ln 2 = 1.0693147… at 8191.
  ASSERT_TRUE(m.nope_temperature);
  EXPECT_EQ(m.nope_temperature->at(8190), 1.0);
  EXPECT_DOUBLE_EQ(m.nope_temperature->at(8191), 1.0 + 0.1 * std::log(2.0));
  EXPECT_DOUBLE_EQ(m.nope_temperature->at(3 * 8192 - 1), 1.0 + 0.1 * std::log(4.0));
  EXPECT_THROW(select_layer_type(m, "nonsense"), InvalidArgument);
  EXPECT_EQ(select_layer_type(m, "7").name, "nope");
  EXPECT_EQ(select_layer_type(m, "8").name, "rope");
}

TEST(LayerTypes, Llama4PresetTemperatureEqualsTheNumpyReference) {
  // tests/reference/nope_temperature.csv (model_apply.py, Python's math.log1p): (S20) at positions around
  // each multiple of floor_scale 8192. Same formula, same libm log1p: 1 ULP at most (4e-16 relative).
  const ModelConfig m = load_preset("llama-4-scout-17b-16e");
  ASSERT_TRUE(m.nope_temperature);
  const auto rows = test::read_reference("nope_temperature.csv").rows;
  ASSERT_EQ(rows.size(), 9u);
  for (const auto& row : rows) {
    const double p = std::stod(row.at(0));
    EXPECT_NEAR(m.nope_temperature->at(p), std::stod(row.at(1)), 4e-16 * std::stod(row.at(1))) << "p = " << p;
  }
}

TEST(LayerTypes, Llama4ExplicitNoRopeLayers) {
  // 1 means the layer uses RoPE (HF Llama4TextAttention: use_rope = no_rope_layers[layer_idx]).
  const ModelConfig m = parse(R"({"model_type": "llama4_text", "head_dim": 8, "num_hidden_layers": 3,
                                  "no_rope_layers": [1, 0, 1]})");
  EXPECT_EQ(m.layer_types[0].layers, (std::vector<int>{0, 2}));
  EXPECT_EQ(m.layer_types[1].layers, (std::vector<int>{1}));
  expect_invalid(R"({"model_type": "llama4_text", "head_dim": 8, "no_rope_layers": [1, 2]})",
                 "expected a list of 0 and 1");
}

TEST(LayerTypes, Gemma3SlidingLayersUseTheLocalBaseUnscaled) {
  const ModelConfig m = load_preset("gemma-3-4b");
  ASSERT_EQ(m.layer_types.size(), 2u);
  const LayerTypeRope& sliding = select_layer_type(m, "sliding_attention");
  EXPECT_EQ(sliding.config.base, 10000.0);
  EXPECT_EQ(sliding.config.type, ScalingType::Default);
  EXPECT_EQ(select_layer_type(m, "full_attention").config.type, ScalingType::Linear);
  EXPECT_EQ(m.layer_type, "full_attention");
  // sliding_window_pattern 6 (HF default): layers 5, 11, … are full.
  EXPECT_EQ(select_layer_type(m, "5").name, "full_attention");
  EXPECT_EQ(select_layer_type(m, "4").name, "sliding_attention");
  const ModelConfig listed = parse(R"({"model_type": "gemma3_text", "head_dim": 8, "rope_local_base_freq": 100,
      "rope_theta": 1000, "layer_types": ["full_attention", "sliding_attention"]})");
  EXPECT_EQ(select_layer_type(listed, "1").config.base, 100.0);
  EXPECT_EQ(select_layer_type(listed, "0").config.base, 1000.0);
}

TEST(LayerTypes, V5RopeParametersKeyedByLayerType) {
  const ModelConfig m = parse(R"({"model_type": "llama", "head_dim": 8,
      "layer_types": ["sliding_attention", "full_attention"],
      "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 2, "rope_theta": 1000000},
                          "sliding_attention": {"rope_type": "default", "rope_theta": 10000}}})");
  ASSERT_EQ(m.layer_types.size(), 2u);
  EXPECT_EQ(m.layer_type, "full_attention");
  EXPECT_EQ(select_layer_type(m, "0").config.base, 10000.0);
  EXPECT_EQ(select_layer_type(m, "full_attention").config.factor, 2.0);
  EXPECT_THROW(select_layer_type(parse(R"({"head_dim": 8})"), "0"), InvalidArgument);
}

TEST(LayerTypes, ChatGlmRopeRatioKvChannelsSeqLength) {
  // THUDM's modeling_chatglm.py: rotary_dim = kv_channels, RotaryEmbedding(rotary_dim // 2),
  // base = 10000 · rope_ratio, interleaved pairs; seq_length is the context.
  const ModelConfig m = parse(R"({"model_type": "chatglm", "hidden_size": 4096, "num_attention_heads": 32,
                                  "kv_channels": 128, "rope_ratio": 500, "seq_length": 131072})");
  EXPECT_EQ(m.rope.head_dim, 128);
  EXPECT_EQ(m.rope.rotary_dim(), 64);
  EXPECT_EQ(m.rope.base, 5000000.0);
  EXPECT_EQ(m.rope.max_position_embeddings, 131072);
  EXPECT_EQ(m.rope.layout, Layout::Interleaved);
  EXPECT_THAT(english(m.origin), Contains("rope_theta: 5000000 (10000 × rope_ratio 500)"));
}

TEST(LayerTypes, MistralNemoExplicitHeadDim) {
  // Mistral-Nemo: head_dim 128 although hidden_size / heads = 5120 / 32 = 160.
  const ModelConfig m =
      parse(R"({"model_type": "mistral", "hidden_size": 5120, "num_attention_heads": 32, "head_dim": 128})");
  EXPECT_EQ(m.rope.head_dim, 128);
}

TEST(LayerTypes, UnknownScalingKeysWarnWithASuggestion) {
  const ModelConfig m = parse(R"({"head_dim": 8, "rope_scaling": {"rope_type": "yarn", "factor": 4,
      "original_max_position_embeddings": 64, "betafast": 16, "attn_factor": 2, "wibble": 1, "k\u0001": 0}})");
  const auto w = english(m.warnings);
  EXPECT_THAT(w, Contains("rope_scaling.betafast: not understood; did you mean beta_fast? rope ignores its value"));
  EXPECT_THAT(
      w, Contains("rope_scaling.attn_factor: not understood; did you mean attention_factor? rope ignores its value"));
  // Never "harmless" by guess: a family's own code may read a key HF's common validation does not know
  // (HunYuan's rope_scaling.alpha is NTK-α, issue 32).
  EXPECT_THAT(
      w,
      Contains(
          "rope_scaling.wibble: not understood: rope ignores it, and the numbers may differ if this model's code reads it"));
  EXPECT_THAT(
      w,
      Contains(
          "rope_scaling.k\\x01: not understood: rope ignores it, and the numbers may differ if this model's code reads it"));
  EXPECT_EQ(m.rope.beta_fast, std::nullopt);  // not read under a wrong name
  EXPECT_TRUE(parse(R"({"head_dim": 8, "rope_scaling": {"rope_type": "linear", "factor": 2}})").warnings.empty());
}

// Issue 50 item 7: rope_parameters keyed by layer type are read from the one parsed document, entry by entry (a
// copy of the whole document per entry made 4 000 entries take 79 s and 0.93 GB), and a RoPE block has at most
// kMaxRopeBlockKeys (64) keys, refused before any loop with the count and the limit, never the keys themselves.
struct BlockSizeCase {
  const char* name;
  const char* wrapper;  // "top", "text_config" or "rope_scaling" (a flat block of unknown keys)
  int keys;
  const char* refused;  // "" when accepted
};

std::string block_config(const BlockSizeCase& c) {
  std::string block = "{";
  for (int i = 0; i < c.keys; ++i) {
    if (i) block += ", ";
    if (std::string(c.wrapper) == "rope_scaling") {
      block += i == 0 ? R"("rope_type": "linear")" : i == 1 ? R"("factor": 2)" : fmt::format(R"("x{}": 1)", i);
    } else {
      block += i == 0 ? R"("full_attention": {"rope_type": "default", "rope_theta": 1000000})"
                      : fmt::format(R"("t{}": {{"rope_type": "default", "rope_theta": {}}})", i, 10000 + i);
    }
  }
  block += "}";
  const std::string w = c.wrapper;
  if (w == "rope_scaling") return R"({"head_dim": 8, "rope_scaling": )" + block + "}";
  if (w == "text_config") return R"({"text_config": {"head_dim": 8, "rope_parameters": )" + block + "}}";
  return R"({"model_type": "llama", "head_dim": 8, "rope_parameters": )" + block + "}";
}

class RopeBlockSize : public ::testing::TestWithParam<BlockSizeCase> {};

TEST_P(RopeBlockSize, AtMost64KeysEachEntryReadFromTheOneDocument) {
  const BlockSizeCase& c = GetParam();
  const std::string text = block_config(c);
  if (*c.refused) {
    try {
      parse(text);
      ADD_FAILURE() << "accepted " << c.keys << " keys";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()), c.refused);
    }
    return;
  }
  const ModelConfig m = parse(text);
  if (std::string(c.wrapper) == "rope_scaling") return;
  ASSERT_EQ(m.layer_types.size(), static_cast<std::size_t>(c.keys));
  EXPECT_EQ(m.layer_type, "full_attention");
  EXPECT_EQ(m.rope.base, 1000000.0);
  for (int i = 1; i < c.keys; ++i) {  // each entry's own θ, not the full_attention one's
    EXPECT_EQ(select_layer_type(m, fmt::format("t{}", i)).config.base, 10000.0 + i) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    LayerTypes, RopeBlockSize,
    ::testing::Values(
        BlockSizeCase{"keyed_64", "top", 64, ""}, BlockSizeCase{"text_config_64", "text_config", 64, ""},
        BlockSizeCase{"keyed_65", "top", 65,
                      "config.json: rope_parameters: has 65 keys, more than the limit of 64 (one entry per layer "
                      "type, or the method's parameters)"},
        BlockSizeCase{"keyed_4000", "top", 4000,
                      "config.json: rope_parameters: has 4000 keys, more than the limit of 64 (one entry per layer "
                      "type, or the method's parameters)"},
        BlockSizeCase{"text_config_65", "text_config", 65,
                      "config.json: text_config.rope_parameters: has 65 keys, more than the limit of 64 (one entry "
                      "per layer type, or the method's parameters)"},
        BlockSizeCase{"flat_64", "rope_scaling", 64, ""},
        BlockSizeCase{"flat_65", "rope_scaling", 65,
                      "config.json: rope_scaling: has 65 keys, more than the limit of 64 (one entry per layer type, "
                      "or the method's parameters)"}),
    [](const ::testing::TestParamInfo<BlockSizeCase>& i) { return std::string(i.param.name); });

TEST(LayerTypes, ListOfAnotherLengthThanTheLayersIsRefusedAsHfRefusesIt) {
  // Issue 62: layer_types of 3 names with num_hidden_layers 4 was read with 3 layers; HF's
  // PreTrainedConfig.validate_layer_type (configuration_utils.py @ 008e574391) raises.
  expect_invalid(R"({"model_type": "gemma3_text", "num_hidden_layers": 4,
                     "layer_types": ["sliding_attention", "sliding_attention", "full_attention"]})",
                 "config.json: layer_types: has 3 entries, num_hidden_layers is 4: HF refuses a config whose "
                 "num_hidden_layers is not the number of layer_types (PreTrainedConfig.validate_layer_type)");
  const ModelConfig m = parse(R"({"model_type": "gemma3_text", "num_hidden_layers": 3,
                                 "layer_types": ["sliding_attention", "sliding_attention", "full_attention"]})");
  EXPECT_EQ(m.layer_types.size(), 2u);
}

}  // namespace
}  // namespace rope
