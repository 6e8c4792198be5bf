#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <optional>
#include <unistd.h>

#include "models/config_test_util.hpp"
#include "rope/core/error.hpp"
#include "rope/models/model_config.hpp"

// The presets of data/models/: rope/models/presets.cpp.

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

// ---- Presets -----------------------------------------------------------------------------------------

struct PresetRow {
  const char* name;
  int head_dim;
  int rotary_dim;
  double base;
  ScalingType type;
  std::optional<double> factor;
  std::optional<long> original_max;
  std::optional<long> max_positions;
  Layout layout;
};

TEST(ModelConfig, EveryPresetLoadsWithTheValuesOfItsReadmeRow) {
  // data/models/README.md: one row per preset, each number with the config copy it was read from.
  const PresetRow rows[] = {
      // Llama 2 7B: 4096/32 = 128; no rope_theta in its config.json → HF default 10000; M 4096.
      {"llama-2-7b", 128, 128, 1e4, ScalingType::Default, {}, {}, 4096, Layout::Half},
      // Llama 3 8B: 4096/32, rope_theta 500000, M 8192.
      {"llama-3-8b", 128, 128, 5e5, ScalingType::Default, {}, {}, 8192, Layout::Half},
      // Llama 3.1 8B: llama3 f=8, L0 8192, M 131072.
      {"llama-3.1-8b", 128, 128, 5e5, ScalingType::Llama3, 8.0, 8192, 131072, Layout::Half},
      // Llama 3.2 1B: head_dim 64, llama3 f=32, L0 8192.
      {"llama-3.2-1b", 64, 64, 5e5, ScalingType::Llama3, 32.0, 8192, 131072, Layout::Half},
      // Mistral 7B v0.1: 4096/32, rope_theta 10000, M 32768.
      {"mistral-7b-v0.1", 128, 128, 1e4, ScalingType::Default, {}, {}, 32768, Layout::Half},
      // Qwen2.5 7B base: 3584/28 = 128, rope_theta 1e6, M 131072.
      {"qwen2.5-7b", 128, 128, 1e6, ScalingType::Default, {}, {}, 131072, Layout::Half},
      // Qwen3 8B: head_dim 128, rope_theta 1e6, M 40960.
      {"qwen3-8b", 128, 128, 1e6, ScalingType::Default, {}, {}, 40960, Layout::Half},
      // Phi-3-mini-128k: 3072/32 = 96, longrope without factor, top-level L0 4096, M 131072.
      {"phi-3-mini-128k", 96, 96, 1e4, ScalingType::LongRope, {}, 4096, 131072, Layout::Half},
      // DeepSeek-V3: qk_rope_head_dim 64, yarn f=40, L0 4096, M 163840, interleaved (§8).
      {"deepseek-v3", 64, 64, 1e4, ScalingType::Yarn, 40.0, 4096, 163840, Layout::Interleaved},
      // gpt-oss-20b: head_dim 64, rope_theta 150000, yarn f=32, L0 4096, M 131072.
      {"gpt-oss-20b", 64, 64, 1.5e5, ScalingType::Yarn, 32.0, 4096, 131072, Layout::Half},
      // GPT-NeoX-20B: 6144/64 = 96, rotary_pct 0.25 → d = 24, rotary_emb_base 10000, M 2048.
      {"gpt-neox-20b", 96, 24, 1e4, ScalingType::Default, {}, {}, 2048, Layout::Half},
      // GPT-J 6B: n_embd 4096 / n_head 16 = 256, rotary_dim 64, no rope_theta → 10000, n_positions 2048.
      {"gpt-j-6b", 256, 64, 1e4, ScalingType::Default, {}, {}, 2048, Layout::Interleaved},
      // Gemma 3 4B (global layers): head_dim 256, rope_theta 1e6, linear f=8, M 131072.
      {"gemma-3-4b", 256, 256, 1e6, ScalingType::Linear, 8.0, {}, 131072, Layout::Half},
      // Gemma 3 27B (global layers): head_dim 128; no rope_theta in its config → Gemma3TextConfig's 1e6; linear f=8.
      {"gemma-3-27b", 128, 128, 1e6, ScalingType::Linear, 8.0, {}, 131072, Layout::Half},
      // Llama 4 Scout 17B-16E (RoPE layers): llama3 f=8 (low 1, high 4), L0 8192, M 262144, interleaved pairs.
      {"llama-4-scout-17b-16e", 128, 128, 5e5, ScalingType::Llama3, 8.0, 8192, 262144, Layout::Interleaved},
      // ChatGLM3-6B: kv_channels 128, half of it rotates, no rope_ratio → base 10000, seq_length 8192, interleaved.
      {"chatglm3-6b", 128, 64, 1e4, ScalingType::Default, {}, {}, 8192, Layout::Interleaved},
      // GLM-4-9B-Chat: kv_channels 128, half of it rotates, base 10000 × rope_ratio 500, seq_length 131072,
      // interleaved.
      {"glm-4-9b-chat", 128, 64, 5e6, ScalingType::Default, {}, {}, 131072, Layout::Interleaved},
      // Mistral-Nemo-Base-2407: explicit head_dim 128 (hidden_size 5120 / 32 heads would be 160), rope_theta 1e6, M
      // 128000.
      {"mistral-nemo-base-2407", 128, 128, 1e6, ScalingType::Default, {}, {}, 128000, Layout::Half},
      // Phi-3.5-mini-instruct: 3072/32 = 96, longrope without factor, top-level L0 4096, M 131072.
      {"phi-3.5-mini-instruct", 96, 96, 1e4, ScalingType::LongRope, {}, 4096, 131072, Layout::Half},
      // Qwen2-VL 7B: 3584/28 = 128, rope_theta 1e6, legacy type mrope (= default), M 32768.
      {"qwen2-vl-7b", 128, 128, 1e6, ScalingType::Default, {}, {}, 32768, Layout::Half},
      // Qwen2.5-VL 7B: 3584/28 = 128, rope_theta 1e6, legacy type mrope (= default), M 128000.
      {"qwen2.5-vl-7b", 128, 128, 1e6, ScalingType::Default, {}, {}, 128000, Layout::Half},
      // Qwen3-VL 8B: text_config.head_dim 128, rope_theta 5e6, rope_type default, M 262144.
      {"qwen3-vl-8b", 128, 128, 5e6, ScalingType::Default, {}, {}, 262144, Layout::Half},
      // The presets below have RoPE that differs by layer; the row is the spec of their RoPE layers (README [26]–[32]).
      // Command A: head_dim 128, rope_theta 50000, no scaling, interleaved (Cohere), M 262144 (its sliding layers).
      {"command-a-03-2025", 128, 128, 5e4, ScalingType::Default, {}, {}, 262144, Layout::Interleaved},
      // Qwen3-Next 80B-A3B: head_dim 256, partial_rotary_factor 0.25 → 64, rope_theta 1e7 (its full layers).
      {"qwen3-next-80b-a3b", 256, 64, 1e7, ScalingType::Default, {}, {}, 262144, Layout::Half},
      // OLMo 3 7B: 4096/32 = 128, yarn f=8 from 8192, rope_theta 5e5, M 65536 (its full layers).
      {"olmo-3-7b", 128, 128, 5e5, ScalingType::Yarn, 8.0, 8192, 65536, Layout::Half},
      // MiniMax-M2: head_dim 128, rotary_dim 64, rope_theta 5e6, M 196608.
      {"minimax-m2", 128, 64, 5e6, ScalingType::Default, {}, {}, 196608, Layout::Half},
      // EXAONE 4.0 32B: head_dim 128, llama3 f=16 from 8192, rope_theta 1e6, M 131072 (its sliding layers).
      {"exaone-4.0-32b", 128, 128, 1e6, ScalingType::Llama3, 16.0, 8192, 131072, Layout::Half},
      // Gemma 4 26B-A4B (full layers): global_head_dim 512, proportional with partial_rotary_factor 0.25:
      // int(512 × 0.25) = 128 channels, the 64 pairs that turn (the spec lists all 256 pairs, 192 at frequency 0), 1e6.
      {"gemma-4-26b-a4b", 512, 128, 1e6, ScalingType::Proportional, {}, {}, 262144, Layout::Half},
      // SmolLM3 3B: 2048/16 = 128, rope_theta 5e6, M 65536 (its RoPE layers).
      {"smollm3-3b", 128, 128, 5e6, ScalingType::Default, {}, {}, 65536, Layout::Half},
      // GLM-4.5: head_dim 128, partial_rotary_factor 0.5 → 64 in half pairs, rope_theta 1e6, M 131072 (README [33]).
      {"glm-4.5", 128, 64, 1e6, ScalingType::Default, {}, {}, 131072, Layout::Half},
      // Kimi K2 Instruct: qk_rope_head_dim 64, yarn f=32 from 4096, rope_theta 50000, M 131072, interleaved
      // (DeepSeek-V3's
      // code, rope_interleave default true) (README [34]).
      {"kimi-k2-instruct", 64, 64, 5e4, ScalingType::Yarn, 32.0, 4096, 131072, Layout::Interleaved},
      // Qwen3.5 9B: text_config.head_dim 256, rope_parameters.partial_rotary_factor 0.25 → 64, rope_theta 1e7, M 262144
      // (its full-attention layers) (README [35]).
      {"qwen3.5-9b", 256, 64, 1e7, ScalingType::Default, {}, {}, 262144, Layout::Half},
      // Devstral Small 2 24B (ministral3): head_dim 128, yarn f=48 from 8192, rope_theta 1e8, M 393216 (README [36]).
      {"devstral-small-2-24b", 128, 128, 1e8, ScalingType::Yarn, 48.0, 8192, 393216, Layout::Half},
      // Intern-S1-Pro: text_config.head_dim 128, rope_theta 5e6, M 262144, FoPE on top of default RoPE (README [37]).
      {"intern-s1-pro", 128, 128, 5e6, ScalingType::Default, {}, {}, 262144, Layout::Half},
      // diffusers transformers (README [38]–[45], models/grid_rope.hpp): the rotated width, the first axis's base.
      // Wan 2.1 T2V 14B and 1.3B: attention_head_dim 128 (widths 44, 42, 42), base 10000, interleaved.
      {"wan2.1-t2v-14b", 128, 128, 1e4, ScalingType::Default, {}, {}, {}, Layout::Interleaved},
      {"wan2.1-t2v-1.3b", 128, 128, 1e4, ScalingType::Default, {}, {}, {}, Layout::Interleaved},
      // Flux.1: axes_dims_rope (16, 56, 56), base 10000 (FluxPosEmbed(theta=10000)).
      {"flux.1-dev", 128, 128, 1e4, ScalingType::Default, {}, {}, {}, Layout::Interleaved},
      // Flux.2 dev: (32, 32, 32, 32), rope_theta 2000.
      {"flux.2-dev", 128, 128, 2e3, ScalingType::Default, {}, {}, {}, Layout::Interleaved},
      // Qwen-Image: (16, 56, 56), base 10000, complex pairs.
      {"qwen-image", 128, 128, 1e4, ScalingType::Default, {}, {}, {}, Layout::Interleaved},
      // HunyuanVideo: rope_axes_dim (16, 56, 56), rope_theta 256.
      {"hunyuanvideo", 128, 128, 256, ScalingType::Default, {}, {}, {}, Layout::Interleaved},
      // LTX-Video: one RoPE over 32 × 64 = 2048 channels, base 10000.
      {"ltx-video", 2048, 2048, 1e4, ScalingType::Default, {}, {}, {}, Layout::Interleaved},
      // LTX-2: one table over 32 × 128 = 4096 channels, rope_theta 10000; rope_type split: half inside each head.
      {"ltx-2", 4096, 4096, 1e4, ScalingType::Default, {}, {}, {}, Layout::Half},
      // Cosmos-Predict2 2B: d 128, rope_scale (1, 3, 3): t's base 10000 · 1^(44/42) = 10000; half layout.
      {"cosmos-predict2-2b", 128, 128, 1e4, ScalingType::Default, {}, {}, {}, Layout::Half},
      // Cosmos 3 Nano: head_dim 128, one ladder of rope_theta 5e6 (Qwen3-VL's interleave of [24, 20, 20]), half
      // layout (README [45]).
      {"cosmos3-nano", 128, 128, 5e6, ScalingType::Default, {}, {}, {}, Layout::Half},
      // Z-Image-Turbo: dim 3840 / 30 heads = 128 = axes_dims (32, 48, 48), rope_theta 256, complex pairs.
      {"z-image-turbo", 128, 128, 256, ScalingType::Default, {}, {}, {}, Layout::Interleaved},
      // HunyuanVideo 1.5: HunyuanVideo's rope_axes_dim (16, 56, 56) and rope_theta 256, 16 heads of 128.
      {"hunyuanvideo-1.5-720p-t2v", 128, 128, 256, ScalingType::Default, {}, {}, {}, Layout::Interleaved},
      // Kandinsky 5.0 T2V Lite: head sum(axes_dims) = 16 + 24 + 24 = 64, base 10000.
      {"kandinsky-5.0-t2v-lite-sft-5s", 64, 64, 1e4, ScalingType::Default, {}, {}, {}, Layout::Interleaved},
  };
  ASSERT_EQ(list_presets().size(), std::size(rows));
  for (const PresetRow& row : rows) {
    SCOPED_TRACE(row.name);
    const ModelConfig m = load_preset(row.name);
    const RopeConfig& r = m.rope;
    EXPECT_EQ(m.name, row.name);
    EXPECT_EQ(r.head_dim, row.head_dim);
    EXPECT_EQ(r.rotary_dim(), row.rotary_dim);
    EXPECT_EQ(r.base, row.base);
    EXPECT_EQ(r.type, row.type);
    EXPECT_EQ(r.factor, row.factor);
    EXPECT_EQ(r.original_max_position_embeddings, row.original_max);
    EXPECT_EQ(r.max_position_embeddings, row.max_positions);
    EXPECT_EQ(r.layout, row.layout);
    EXPECT_THAT(english(m.origin), Not(IsEmpty()));
  }
}

TEST(ModelConfig, PresetScalingParametersMatchTheirConfigs) {
  // Llama 3.1 / 3.2 config.json: low_freq_factor 1, high_freq_factor 4 (data/models/README.md).
  for (const char* name : {"llama-3.1-8b", "llama-3.2-1b"}) {
    const RopeConfig r = load_preset(name).rope;
    EXPECT_EQ(r.low_freq_factor, 1.0) << name;
    EXPECT_EQ(r.high_freq_factor, 4.0) << name;
  }
  // DeepSeek-V3 config.json: beta_fast 32, beta_slow 1, mscale = mscale_all_dim = 1.0.
  const RopeConfig ds = load_preset("deepseek-v3").rope;
  EXPECT_EQ(ds.beta_fast, 32.0);
  EXPECT_EQ(ds.beta_slow, 1.0);
  EXPECT_EQ(ds.mscale, 1.0);
  EXPECT_EQ(ds.mscale_all_dim, 1.0);
  EXPECT_EQ(ds.truncate, std::nullopt);
  // gpt-oss-20b config.json: beta 32/1, truncate false.
  const RopeConfig oss = load_preset("gpt-oss-20b").rope;
  EXPECT_EQ(oss.beta_fast, 32.0);
  EXPECT_EQ(oss.beta_slow, 1.0);
  EXPECT_EQ(oss.truncate, false);
  // Kimi K2 Instruct config.json: beta_fast = beta_slow = 1 (README [34]), mscale = mscale_all_dim = 1.0.
  const RopeConfig kimi = load_preset("kimi-k2-instruct").rope;
  EXPECT_EQ(kimi.beta_fast, 1.0);
  EXPECT_EQ(kimi.beta_slow, 1.0);
  EXPECT_EQ(kimi.mscale, 1.0);
  EXPECT_EQ(kimi.mscale_all_dim, 1.0);
  // Devstral Small 2 config.json: beta 32/1, mscale = mscale_all_dim = 1.0 (README [36]).
  const RopeConfig dev = load_preset("devstral-small-2-24b").rope;
  EXPECT_EQ(dev.beta_fast, 32.0);
  EXPECT_EQ(dev.beta_slow, 1.0);
  EXPECT_EQ(dev.mscale, 1.0);
  EXPECT_EQ(dev.mscale_all_dim, 1.0);
}

TEST(ModelConfig, NewFamilyPresetsCarryTheirSectionsQueryScalingAndVisionTower) {
  // Qwen3.5 9B (README [35]): rope_parameters mrope_section [11, 11, 10], mrope_interleaved true.
  const ModelConfig qwen = load_preset("qwen3.5-9b");
  ASSERT_TRUE(qwen.mrope.has_value());
  EXPECT_EQ(qwen.mrope->sections, (std::vector<int>{11, 11, 10}));
  EXPECT_EQ(qwen.mrope->order, SectionOrder::Interleaved);
  // Devstral Small 2 (README [36]): ministral3's query scaling, β = llama_4_scaling_beta 0.1, L0 = 8192;
  // s(p) = 1 + 0.1 ln(1 + floor(p / 8192)) (S21): 1 below 8192, 1 + 0.1 ln 2 from 8192, 1 + 0.1 ln 48 at 393215.
  const ModelConfig dev = load_preset("devstral-small-2-24b");
  ASSERT_TRUE(dev.query_scaling.has_value());
  EXPECT_EQ(dev.query_scaling->beta, 0.1);
  EXPECT_EQ(dev.query_scaling->original, 8192.0);
  EXPECT_EQ(dev.query_scaling->at(8191), 1.0);
  EXPECT_DOUBLE_EQ(dev.query_scaling->at(8192), 1.0 + 0.1 * std::log(2.0));
  EXPECT_DOUBLE_EQ(dev.query_scaling->at(393215), 1.0 + 0.1 * std::log(48.0));
  // Its vision_config is Pixtral's: head_dim 64, rope_theta 1e4, 1540 / 14 = 110 patches per side.
  ASSERT_TRUE(dev.vision_tower.has_value());
  EXPECT_EQ(dev.vision_tower->kind, VisionRope::Pixtral);
  EXPECT_EQ(dev.vision_tower->head_dim, 64);
  EXPECT_EQ(dev.vision_tower->base, 1e4);
  EXPECT_EQ(dev.vision_tower->grid, 110);
  // GLM-4.5 and Kimi K2 scale no query; Kimi's layout is DeepSeek-V3's.
  EXPECT_FALSE(load_preset("glm-4.5").query_scaling.has_value());
  EXPECT_FALSE(load_preset("kimi-k2-instruct").query_scaling.has_value());
}

TEST(ModelConfig, Phi3PresetHoldsItsRealFactorLists) {
  // microsoft/Phi-3-mini-128k-instruct config.json (data/models/README.md): 48 numbers each;
  // first and last entries as in the source (long 1.0700000524520874 … 64.76000213623047,
  // short 1.1 … 3.049999999999997).
  const ModelConfig m = load_preset("phi-3-mini-128k");
  const RopeConfig& r = m.rope;
  ASSERT_EQ(r.long_factor.size(), 48u);
  ASSERT_EQ(r.short_factor.size(), 48u);
  EXPECT_EQ(r.long_factor.front(), 1.0700000524520874);
  EXPECT_EQ(r.long_factor[18], 37.279998779296875);
  EXPECT_EQ(r.long_factor.back(), 64.76000213623047);
  EXPECT_EQ(r.short_factor.front(), 1.1);
  EXPECT_EQ(r.short_factor[8], 2.000000000000001);
  EXPECT_EQ(r.short_factor.back(), 3.049999999999997);
  // No factor in the config: f = M / L0 = 131072 / 4096 = 32 (docs/scaling.md).
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("f = max_position_embeddings / original = 131072 / 4096 = 32")));
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("read from the top level (Phi-3 style)")));
}

TEST(ModelConfig, Phi35PresetHoldsItsOwnFactorLists) {
  // microsoft/Phi-3.5-mini-instruct config.json (data/models/README.md [20]): 48 numbers each, not Phi-3's;
  // first and last entries as in the source (long 1.0800000429153442, 1.1100000143051147 … 64.83999633789062,
  // short 1.0 … 2.8399994373321533).
  const ModelConfig m = load_preset("phi-3.5-mini-instruct");
  const RopeConfig& r = m.rope;
  ASSERT_EQ(r.long_factor.size(), 48u);
  ASSERT_EQ(r.short_factor.size(), 48u);
  EXPECT_EQ(r.long_factor[0], 1.0800000429153442);
  EXPECT_EQ(r.long_factor[1], 1.1100000143051147);
  EXPECT_EQ(r.long_factor.back(), 64.83999633789062);
  EXPECT_EQ(r.short_factor.front(), 1.0);
  EXPECT_EQ(r.short_factor[25], 2.0199997425079346);
  EXPECT_EQ(r.short_factor.back(), 2.8399994373321533);
  EXPECT_NE(r.long_factor, load_preset("phi-3-mini-128k").rope.long_factor);
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("f = max_position_embeddings / original = 131072 / 4096 = 32")));
}

TEST(ModelConfig, MistralNemoPresetRotatesItsExplicitHeadDimNotHiddenOverHeads) {
  // mistralai/Mistral-Nemo-Base-2407 config.json: head_dim 128 while hidden_size 5120 / 32 heads = 160.
  // HF's MistralAttention and the default rope init read head_dim first; 64 pairs, not 80.
  const ModelConfig m = load_preset("mistral-nemo-base-2407");
  EXPECT_EQ(m.rope.head_dim, 128);
  EXPECT_EQ(m.rope.rotary_dim(), 128);
  EXPECT_THAT(english(m.origin), Contains(HasSubstr("head_dim: 128 (head_dim)")));
}

TEST(ModelConfig, ListPresetsGivesEveryPresetWithADescriptionInNameOrder) {
  const std::vector<PresetInfo> presets = list_presets();
  // data/models/ holds the 47 presets of data/models/README.md (13 diffusers transformers among them).
  ASSERT_EQ(presets.size(), 47u);
  for (std::size_t i = 0; i < presets.size(); ++i) {
    EXPECT_THAT(presets[i].description, Not(IsEmpty())) << presets[i].name;
    EXPECT_EQ(presets[i].description.find('\n'), std::string::npos) << presets[i].name;
    if (i > 0) {
      EXPECT_LT(presets[i - 1].name, presets[i].name);
    }
    EXPECT_NO_THROW(load_preset(presets[i].name));
  }
  EXPECT_EQ(presets.front().name, "chatglm3-6b");
  EXPECT_EQ(presets.back().name, "z-image-turbo");
  // chatglm3-6b, command-a-03-2025, cosmos-predict2-2b, cosmos3-nano, deepseek-v3, devstral-small-2-24b,
  // exaone-4.0-32b, flux.1-dev, flux.2-dev, gemma-3-27b, gemma-3-4b, gemma-4-26b-a4b, glm-4-9b-chat, glm-4.5, gpt-j-6b,
  // …
  EXPECT_THAT(presets[14].description, HasSubstr("GPT-J"));
}

struct LayerMapRow {
  const char* preset;
  const char* type;
  std::vector<int> first_layers;  ///< the first layers of the type, in order
  std::size_t count;              ///< how many layers have it
  bool rope;
};

TEST(ModelConfig, PerLayerPresetsMapEveryLayerAsTheirFamiliesCode) {
  // data/models/README.md [26]–[32], and the layer rules of data/families.json: Cohere2Config and Exaone4Config
  // slide unless (i + 1) % 4 == 0 and rotate only sliding layers; Qwen3NextConfig's full_attention_interval 4;
  // OLMo 3's and Gemma 4's layer_types as written; SmolLM3's no_rope_layers (0 = NoPE).
  const LayerMapRow rows[] = {
      {"command-a-03-2025", "sliding_attention", {0, 1, 2, 4}, 48, true},
      {"command-a-03-2025", "full_attention", {3, 7, 11}, 16, false},
      {"exaone-4.0-32b", "sliding_attention", {0, 1, 2, 4}, 48, true},
      {"exaone-4.0-32b", "full_attention", {3, 7, 11}, 16, false},
      {"qwen3-next-80b-a3b", "linear_attention", {0, 1, 2, 4}, 36, false},
      {"qwen3-next-80b-a3b", "full_attention", {3, 7, 11}, 12, true},
      {"olmo-3-7b", "sliding_attention", {0, 1, 2, 4}, 24, true},
      {"olmo-3-7b", "full_attention", {3, 7, 11}, 8, true},
      {"gemma-4-26b-a4b", "sliding_attention", {0, 1, 2, 3, 4, 6}, 25, true},
      {"gemma-4-26b-a4b", "full_attention", {5, 11, 17, 23, 29}, 5, true},
      {"smollm3-3b", "rope", {0, 1, 2, 4}, 27, true},
      {"smollm3-3b", "nope", {3, 7, 11}, 9, false},
      {"qwen3.5-9b", "linear_attention", {0, 1, 2, 4}, 24, false},
      {"qwen3.5-9b", "full_attention", {3, 7, 11}, 8, true},
  };
  for (const LayerMapRow& row : rows) {
    SCOPED_TRACE(std::string(row.preset) + " " + row.type);
    const ModelConfig m = load_preset(row.preset);
    const auto it = std::find_if(m.layer_types.begin(), m.layer_types.end(),
                                 [&](const LayerTypeRope& lt) { return lt.name == row.type; });
    ASSERT_NE(it, m.layer_types.end());
    EXPECT_EQ(it->rope, row.rope);
    ASSERT_EQ(it->layers.size(), row.count);
    EXPECT_TRUE(std::equal(row.first_layers.begin(), row.first_layers.end(), it->layers.begin()));
  }
  // OLMo 3: YaRN only on the full layers (transformers PR #45945); Gemma 4: head 256 at 1e4 on the sliding layers.
  const ModelConfig olmo = load_preset("olmo-3-7b");
  for (const LayerTypeRope& lt : olmo.layer_types) {
    EXPECT_EQ(lt.config.type, lt.name == "full_attention" ? ScalingType::Yarn : ScalingType::Default) << lt.name;
    EXPECT_EQ(lt.config.base, 5e5) << lt.name;
  }
  const ModelConfig gemma = load_preset("gemma-4-26b-a4b");
  for (const LayerTypeRope& lt : gemma.layer_types) {
    const bool full = lt.name == "full_attention";
    EXPECT_EQ(lt.config.head_dim, full ? 512 : 256) << lt.name;
    EXPECT_EQ(lt.config.base, full ? 1e6 : 1e4) << lt.name;
  }
}

TEST(ModelConfig, UnknownPresetIsRefusedWithTheKnownNames) {
  EXPECT_THAT([] { load_preset("llama-9"); },
              ThrowsMessage<InvalidArgument>(AllOf(HasSubstr("unknown model preset 'llama-9'"),
                                                   HasSubstr("llama-3.1-8b"), HasSubstr("qwen3-8b"))));
}

}  // namespace
}  // namespace rope
