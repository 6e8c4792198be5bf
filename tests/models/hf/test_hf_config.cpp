#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <optional>
#include <unistd.h>

#include "models/config_test_util.hpp"
#include "rope/core/error.hpp"
#include "rope/models/model_config.hpp"

// The model keys of a config.json (head_dim, partial rotary, rope_theta, layout): rope/models/hf/hf_config.cpp.

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

TEST(ModelConfig, GemmaPresetReadsTextConfigAndNotesTheLocalLayers) {
  const ModelConfig m = load_preset("gemma-3-4b");
  EXPECT_EQ(m.model_type, "gemma3_text");
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("local (sliding-window) layers use base 10000 without scaling")));
  EXPECT_THAT(english(m.origin), Contains("rope_theta: 1000000 (text_config.rope_theta)"));
  // A sparse text_config, as google/gemma-3-4b-it's config.json is, gets Gemma3TextConfig's defaults
  // (head_dim 256, rope_theta 1e6, max_position_embeddings 131072; HF configuration_gemma3.py).
  const ModelConfig sparse = parse(R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
      "hidden_size": 2560, "rope_scaling": {"factor": 8.0, "rope_type": "linear"}}})");
  expect_same_rope(sparse.rope, m.rope);
  EXPECT_THAT(english(sparse.notes), Contains(HasSubstr("Gemma3TextConfig default 256")));
}

TEST(ModelConfig, GptJRotaryDimBecomesAPartialFactor) {
  // GPT-J 6B: rotary_dim 64 of head_dim 256 (n_embd 4096 / n_head 16), factor 64/256 = 0.25
  // (HF configuration_gptj.py defaults; docs/scaling.md).
  const ModelConfig m = load_preset("gpt-j-6b");
  EXPECT_EQ(m.rope.partial_rotary_factor, 0.25);
  EXPECT_EQ(m.rope.rotary_dim(), 64);
  EXPECT_THAT(english(m.origin), Contains("partial_rotary_factor: 0.25 = 64 / 256 (rotary_dim)"));
  EXPECT_THAT(english(m.origin), Contains("head_dim: 256 (n_embd 4096 / n_head 16)"));
  EXPECT_EQ(m.rope.layout, Layout::Interleaved);  // HF modeling_gptj.py rotate_every_two
  EXPECT_EQ(m.layout_basis, LayoutBasis::Family);
  EXPECT_EQ(m.layout_reason.en, "model family gptj");
  EXPECT_THAT(english(m.notes), Contains("rope_theta not given: HF default 10000 assumed"));
  // A ratio with no exact binary value still gives back rotary_dim: 24 of 80 (0.3 · 80 may round low).
  const ModelConfig odd = parse(R"({"head_dim": 80, "rotary_dim": 24})");
  EXPECT_EQ(odd.rope.rotary_dim(), 24);
  expect_invalid(R"({"head_dim": 64, "rotary_dim": 128})",
                 "config.json: rotary_dim: must not exceed head_dim 64, got 128");
}

TEST(ModelConfig, GptNeoXRotaryPctIsThePartialFactor) {
  // GPT-NeoX-20B: rotary_pct 0.25 of head_dim 6144/64 = 96 → d = 24, pairs (j, j+12), half layout
  // (docs/scaling.md).
  const ModelConfig m = load_preset("gpt-neox-20b");
  EXPECT_EQ(m.rope.partial_rotary_factor, 0.25);
  EXPECT_EQ(m.rope.rotary_dim(), 24);
  EXPECT_EQ(m.rope.layout, Layout::Half);
  EXPECT_THAT(english(m.origin), Contains("partial_rotary_factor: 0.25 (rotary_pct)"));
  EXPECT_THAT(english(m.origin), Contains("rope_theta: 10000 (rotary_emb_base)"));
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("d = 24 of head_dim 96 channels rotate")));
  // Without rotary_pct, HF's GPTNeoXConfig default 0.25 applies (configuration_gpt_neox.py).
  const ModelConfig bare = parse(R"({"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64})");
  EXPECT_EQ(bare.rope.partial_rotary_factor, 0.25);
  EXPECT_THAT(english(bare.notes), Contains(HasSubstr("rotary_pct not given")));
}

TEST(ModelConfig, DeepSeekRotatesOnlyQkRopeHeadDim) {
  // DeepSeek-V3: qk_rope_head_dim 64 (not 7168/128 = 56, not 128 + 64); docs/scaling.md.
  const ModelConfig m = load_preset("deepseek-v3");
  EXPECT_EQ(m.rope.head_dim, 64);
  EXPECT_EQ(m.rope.rotary_dim(), 64);
  EXPECT_THAT(english(m.origin), Contains("head_dim: 64 (qk_rope_head_dim)"));
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("qk_nope_head_dim 128 carry no position")));
  // rope_interleave (HF DeepseekV3Config) overrides the model_type's layout.
  const ModelConfig half = parse(R"({"model_type": "deepseek_v3", "qk_rope_head_dim": 64, "rope_interleave": false})");
  EXPECT_EQ(half.rope.layout, Layout::Half);
}

TEST(ModelConfig, WrongTypesNameTheirPath) {
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"rope_type": "linear", "factor": "8"}})",
                 "config.json: rope_scaling.factor: expected a number, got string");
  expect_invalid(R"({"head_dim": 128, "rope_theta": "10000"})",
                 "config.json: rope_theta: expected a number, got string");
  expect_invalid(R"({"head_dim": 128.5})", "config.json: head_dim: expected an integer, got 128.5");
  expect_invalid(R"({"head_dim": 128, "rope_scaling": [1, 2]})",
                 "config.json: rope_scaling: expected an object, got array");
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"rope_type": 3}})",
                 "config.json: rope_scaling.rope_type: expected a string, got number");
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"rope_type": "yarn", "factor": 4, "truncate": "no"}})",
                 "config.json: rope_scaling.truncate: expected true or false, got string");
  expect_invalid(R"({"head_dim": 128, "max_position_embeddings": -4096})",
                 "config.json: max_position_embeddings: must be positive, got -4096");
  expect_invalid(R"({"text_config": {"head_dim": 128, "rope_theta": true}})",
                 "config.json: text_config.rope_theta: expected a number, got boolean");
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"rope_type": "warp", "factor": 2}})",
                 "config.json: rope_scaling.rope_type: unknown type 'warp'");
  expect_invalid(R"({"head_dim": 128, "rope_theta": 0.5})", "config.json: rope_theta: must be greater than 1, got 0.5");
  expect_invalid(R"({"head_dim": 128, "partial_rotary_factor": 1.5})",
                 "config.json: partial_rotary_factor: must be at most 1, got 1.5");
  std::string bad_item = longrope_config(48, 48);
  bad_item.replace(bad_item.rfind("1.5"), 3, "\"x\"");
  expect_invalid(bad_item, "config.json: rope_scaling.long_factor[47]: expected a number, got string");
}

TEST(ModelConfig, MissingHeadDimsAreRefused) {
  expect_invalid(R"({"model_type": "llama", "rope_theta": 10000})",
                 "config.json: head_dim: missing (give head_dim, or hidden_size and num_attention_heads)");
  expect_invalid(R"({"hidden_size": 4096})", "num_attention_heads is missing");
  expect_invalid(R"({"hidden_size": 4096, "num_attention_heads": 0})",
                 "config.json: num_attention_heads: must be positive, got 0");
}

TEST(ModelConfig, OddRotaryDimIsRefused) {
  // head_dim 96 × 0.3 = 28.8 → d = 28 is fine; head_dim 6 × 0.5 = 3 is odd.
  EXPECT_EQ(parse(R"({"head_dim": 96, "partial_rotary_factor": 0.3})").rope.rotary_dim(), 28);
  expect_invalid(R"({"head_dim": 6, "partial_rotary_factor": 0.5})",
                 "config.json: partial_rotary_factor: rotary dim d = int(head_dim 6 × partial_rotary_factor 0.5) = 3");
}

}  // namespace
}  // namespace rope
