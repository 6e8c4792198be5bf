// data/families.json, audited against Hugging Face transformers' config classes (issue 32): what a config.json that
// omits head_dim or its RoPE block gets from the class. The expected values are transcribed from HF's files (paths
// under src/transformers/models/, the @strict dataclass versions of transformers main after 357f414cae88, and the
// commits named), not read from the table; each was wrong before the audit (the value rope gave is in the comment).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "models/config_test_util.hpp"
#include "rope/models/families/family_table.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/rope_spec.hpp"

namespace rope {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using namespace config_test;

/// The head_dim a config with hidden_size and num_attention_heads but no head_dim gets.
int head_dim_of(const std::string& model_type, int hidden, int heads) {
  return make_spec(parse(R"({"model_type": ")" + model_type + R"(", "hidden_size": )" + std::to_string(hidden) +
                         R"(, "num_attention_heads": )" + std::to_string(heads) + "}"))
      .head_dim;
}

TEST(FamilyDefaults, TheClassHeadDimWinsOverHiddenSizeOverHeads) {
  EXPECT_EQ(head_dim_of("qwen3", 1024, 16), 128);          // Qwen3Config head_dim 128 (was 64)
  EXPECT_EQ(head_dim_of("gemma", 2304, 8), 256);           // GemmaConfig head_dim 256 (was 288)
  EXPECT_EQ(head_dim_of("gemma2", 2304, 8), 256);          // Gemma2Config head_dim 256 (was 288)
  EXPECT_EQ(head_dim_of("gemma3_text", 2560, 8), 256);     // Gemma3TextConfig head_dim 256 (was 320)
  EXPECT_EQ(head_dim_of("gpt_oss", 2880, 64), 64);         // GptOssConfig head_dim 64 (was 45: refused)
  EXPECT_EQ(head_dim_of("llama4_text", 4096, 40), 128);    // Llama4TextConfig head_dim 128 (was 102)
  EXPECT_EQ(head_dim_of("ernie4_5", 1024, 16), 128);       // Ernie4_5Config head_dim 128 (was 64)
  EXPECT_EQ(head_dim_of("glm", 2048, 32), 128);            // GlmConfig head_dim 128 (was 64)
  EXPECT_EQ(head_dim_of("glm4", 2048, 32), 128);           // Glm4Config head_dim 128 (was 64)
  EXPECT_EQ(head_dim_of("minimax_m2", 3072, 48), 128);     // MiniMaxM2Config head_dim 128 (was 64)
  EXPECT_EQ(head_dim_of("ministral3", 3072, 32), 128);     // Ministral3Config head_dim 128 (was 96)
  EXPECT_EQ(head_dim_of("qwen3_vl_text", 2560, 32), 128);  // Qwen3VLTextConfig head_dim 128 (was 80)
  // Classes without the field keep hidden_size // num_attention_heads (Qwen3MoeConfig, Ernie4_5_MoeConfig,
  // Glm4vMoeTextConfig: getattr(config, "head_dim", hidden_size // heads) in their attention).
  EXPECT_EQ(head_dim_of("qwen3_moe", 1024, 16), 64);
  EXPECT_EQ(head_dim_of("ernie4_5_moe", 2560, 20), 128);
  EXPECT_EQ(head_dim_of("mistral", 5120, 32), 160);
  // A given head_dim wins, and inspect says where the default came from.
  EXPECT_EQ(make_spec(parse(R"({"model_type": "qwen3", "head_dim": 64, "hidden_size": 1024})")).head_dim, 64);
  const ModelConfig m = parse(R"({"model_type": "qwen3", "hidden_size": 1024, "num_attention_heads": 16})");
  EXPECT_THAT(english(m.origin), Contains("head_dim: 128 (HF Qwen3Config default)"));
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("head_dim not given: HF's Qwen3Config default 128 assumed")));
}

/// The config's RoPE is YaRN with this θ, factor and L0.
void expect_yarn(const ModelConfig& m, double theta, double factor, long l0) {
  EXPECT_EQ(m.rope.type, ScalingType::Yarn);
  EXPECT_EQ(m.rope.base, theta);
  EXPECT_EQ(m.rope.factor, factor);
  EXPECT_EQ(m.rope.original_max_position_embeddings, l0);
}

TEST(FamilyDefaults, GptOssWithoutARopeBlockIsYarnThirtyTwo) {
  // GptOssConfig.__post_init__: rope_parameters None -> yarn, factor 32, beta 32 / 1, truncate False, L0 4096;
  // rope_theta the class's default_theta 150000 (was: plain RoPE). Attention factor 0.1·ln 32 + 1
  // (modeling_rope_utils.py _compute_yarn_parameters), NumPy: 0.1 * np.log(32.0) + 1.0 = 1.3465735902799727.
  const ModelConfig m = parse(R"({"model_type": "gpt_oss", "head_dim": 64, "max_position_embeddings": 131072})");
  expect_yarn(m, 150000.0, 32.0, 4096);
  EXPECT_EQ(m.rope.beta_fast, 32.0);
  EXPECT_EQ(m.rope.beta_slow, 1.0);
  EXPECT_EQ(m.rope.truncate, false);
  EXPECT_NEAR(make_spec(m).attention_factor(), 1.3465735902799727, 1e-15);
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("rope_parameters not given: HF's GptOssConfig default")));
  // The same as the hub's own block (data/models/gpt-oss-20b.json gives it as rope_scaling).
  const ModelConfig hub = parse(R"({"model_type": "gpt_oss", "head_dim": 64, "max_position_embeddings": 131072,
      "rope_theta": 150000, "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
      "truncate": false, "original_max_position_embeddings": 4096}})");
  expect_same_rope(m.rope, hub.rope);
  // A top-level rope_theta fills the class block (setdefault); a given block wins whole.
  EXPECT_EQ(parse(R"({"model_type": "gpt_oss", "head_dim": 64, "rope_theta": 20000})").rope.base, 20000.0);
  EXPECT_EQ(
      parse(R"({"model_type": "gpt_oss", "head_dim": 64, "rope_parameters": {"rope_type": "default"}})").rope.type,
      ScalingType::Default);
}

TEST(FamilyDefaults, Ministral3WithoutARopeBlockIsItsYarnWithQueryScaling) {
  // Ministral3Config.__post_init__: yarn θ 1e6, factor 16 from 16384, beta 32 / 1, mscale = mscale_all_dim = 1,
  // llama_4_scaling_beta 0.1 (was: plain RoPE at 10000, no query scaling).
  const ModelConfig m = parse(R"({"model_type": "ministral3", "head_dim": 128, "max_position_embeddings": 262144})");
  expect_yarn(m, 1000000.0, 16.0, 16384);
  ASSERT_TRUE(m.query_scaling.has_value());
  EXPECT_EQ(m.query_scaling->beta, 0.1);
  EXPECT_NEAR(m.query_scaling->at(262143), 1.0 + 0.1 * std::log1p(15.0), 1e-15);
  EXPECT_NEAR(make_spec(m).attention_factor(), 1.0, 1e-15);  // get_mscale(16, 1) / get_mscale(16, 1)
  // The block's rope_theta wins over a top-level one (convert_rope_params_to_dict: setdefault), said so.
  const ModelConfig top = parse(R"({"model_type": "ministral3", "head_dim": 128, "rope_theta": 500000})");
  EXPECT_EQ(top.rope.base, 1000000.0);
  EXPECT_THAT(english(top.notes), Contains(HasSubstr("rope_theta 500000 at the top level is ignored")));
}

TEST(FamilyDefaults, Mistral4PartialFactorIsOfTheWholeQkHead) {
  // Mistral4Config.__post_init__: head_dim = qk_nope_head_dim + qk_rope_head_dim, rope_parameters'
  // partial_rotary_factor (setdefault qk_rope / head_dim); LlamaRotaryEmbedding rotates int(head_dim · factor)
  // channels: 0.5 of 128 = 64, all of qk_rope_head_dim (was 32 = 0.5 of 64).
  const char* given = R"({"model_type": "mistral4", "qk_rope_head_dim": 64, "qk_nope_head_dim": 64,
      "max_position_embeddings": 1048576, "rope_parameters": {"rope_type": "yarn", "rope_theta": 10000.0,
      "factor": 128.0, "original_max_position_embeddings": 8192, "llama_4_scaling_beta": 0.1,
      "partial_rotary_factor": 0.5}})";
  const RopeSpec spec = make_spec(parse(given));
  EXPECT_EQ(spec.head_dim, 128);  // q = cat(q_nope, q_pe)
  EXPECT_EQ(spec.rotary_dim, 64);
  EXPECT_EQ(spec.rotary_offset, 64);
  // Without a block: the class's yarn, θ 1e4, factor 128 from 8192 (was: plain RoPE), the rotary dim qk_rope's.
  const ModelConfig m = parse(R"({"model_type": "mistral4", "qk_rope_head_dim": 64, "qk_nope_head_dim": 64,
      "max_position_embeddings": 1048576})");
  expect_yarn(m, 10000.0, 128.0, 8192);
  ASSERT_TRUE(m.query_scaling.has_value());
  EXPECT_EQ(make_spec(m).rotary_dim, 64);
  // More channels than qk_rope_head_dim cannot be rotated (HF fails on the shapes).
  expect_invalid(R"({"model_type": "mistral4", "qk_rope_head_dim": 64, "qk_nope_head_dim": 64,
      "rope_parameters": {"rope_type": "default", "partial_rotary_factor": 1.0}})",
                 "at most qk_rope_head_dim 64");
}

TEST(FamilyDefaults, Qwen3VlTransformersFourDefaultTheta) {
  // Qwen3VLTextConfig: default_theta 5e5 in v5; transformers 4.x's __init__ had rope_theta=5000000.0
  // (models/qwen3_vl/configuration_qwen3_vl.py at e1b551679e26), the value a 4.x config without the key ran with.
  EXPECT_EQ(parse(R"({"model_type": "qwen3_vl_text", "head_dim": 128})").rope.base, 500000.0);
  const ModelConfig v4 = parse(R"({"model_type": "qwen3_vl", "transformers_version": "4.57.0",
      "text_config": {"model_type": "qwen3_vl_text", "head_dim": 128}})");
  EXPECT_EQ(v4.rope.base, 5000000.0);
  EXPECT_THAT(english(v4.notes), Contains(HasSubstr("Qwen3VLTextConfig of transformers 4.x defaulted to 5000000")));
}

/// A Phi-3 longrope config (head_dim 96: 48 factors each) with `extra` keys at the top and `in_block` in the block.
std::string phi3_longrope(const std::string& extra, const std::string& in_block) {
  std::string list = "[";
  for (int i = 0; i < 48; ++i) list += (i ? ", " : "") + std::string("1.5");
  list += "]";
  return R"({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072)" +
         extra + R"(, "rope_scaling": {"type": "longrope", "short_factor": )" + list + R"(, "long_factor": )" + list +
         in_block + "}}";
}

TEST(FamilyDefaults, Phi3sOriginalMaxPositionEmbeddingsAttributeWinsOverTheBlock) {
  // Phi3Config declares original_max_position_embeddings (default 4096); modeling_rope_utils.py
  // standardize_rope_params copies that attribute into a longrope block ("we give priority to
  // self.original_max_position_embeddings"). Was: the block's value, else max_position_embeddings.
  EXPECT_EQ(parse(phi3_longrope("", "")).rope.original_max_position_embeddings, 4096);  // was 131072
  const ModelConfig block = parse(phi3_longrope("", R"(, "original_max_position_embeddings": 8192)"));
  EXPECT_EQ(block.rope.original_max_position_embeddings, 4096);  // was 8192
  EXPECT_THAT(english(block.notes),
              Contains(HasSubstr("rope_scaling.original_max_position_embeddings 8192 is ignored")));
  EXPECT_EQ(parse(phi3_longrope(R"(, "original_max_position_embeddings": 2048)",
                                R"(, "original_max_position_embeddings": 8192)"))
                .rope.original_max_position_embeddings,
            2048);  // was 8192
  // Phi-3-mini-128k's own shape (top level 4096, none in the block) is unchanged.
  EXPECT_EQ(
      parse(phi3_longrope(R"(, "original_max_position_embeddings": 4096)", "")).rope.original_max_position_embeddings,
      4096);
}

TEST(FamilyDefaults, ATopLevelOriginalMaxPositionEmbeddingsWinsOverTheBlock) {
  // modeling_rope_utils.py _compute_yarn_parameters (and the longrope and llama3 ones) call
  // config.standardize_rope_params() again, after the config's keys became attributes: a top-level
  // original_max_position_embeddings replaces the block's (was: the block's 8192).
  const char* both = R"({"model_type": "llama", "head_dim": 128, "max_position_embeddings": 131072,
      "original_max_position_embeddings": 2048, "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
      "original_max_position_embeddings": 8192}})";
  const ModelConfig m = parse(both);
  EXPECT_EQ(m.rope.original_max_position_embeddings, 2048);
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("rope_scaling.original_max_position_embeddings 8192 is ignored")));
  // Without a top-level key the block's stays; without either, a class without the attribute has none (L0 = M).
  EXPECT_EQ(parse(R"({"model_type": "llama", "head_dim": 128, "max_position_embeddings": 131072,
      "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192}})")
                .rope.original_max_position_embeddings,
            8192);
  EXPECT_EQ(parse(R"({"model_type": "llama", "head_dim": 128, "max_position_embeddings": 131072,
      "rope_scaling": {"rope_type": "yarn", "factor": 4.0}})")
                .rope.original_max_position_embeddings,
            std::nullopt);
}

TEST(FamilyDefaults, MlaHeadDimsAreTheClasssWhenAbsent) {
  // Mistral4Config: qk_rope_head_dim 64, qk_nope_head_dim 64 (configuration_mistral4.py at 454194bd240b); its
  // partial_rotary_factor 0.5 is of their sum 128: 64 channels, after the 64 nope ones (was: 32 = 0.5 of 64, at 0).
  const RopeSpec m4 = make_spec(parse(R"({"model_type": "mistral4", "hidden_size": 4096, "num_attention_heads": 32,
      "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}})"));
  EXPECT_EQ(m4.rotary_dim, 64);
  EXPECT_EQ(m4.rotary_offset, 64);
  EXPECT_EQ(m4.head_dim, 128);
  // DeepseekV3Config: qk_rope_head_dim 64, qk_nope_head_dim 128 (configuration_deepseek_v3.py at 0fc683d1cd94);
  // q = cat(q_nope, q_pe) is 192 wide (was: head_dim 7168 / 128 = 56, every channel rotating).
  const ModelConfig v3 = parse(R"({"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128})");
  const RopeSpec s = make_spec(v3);
  EXPECT_EQ(s.rotary_dim, 64);
  EXPECT_EQ(s.rotary_offset, 128);
  EXPECT_EQ(s.head_dim, 192);
  EXPECT_THAT(english(v3.notes), Contains(HasSubstr("qk_nope_head_dim not given: HF's DeepseekV3Config default 128")));
  // Given keys win.
  EXPECT_EQ(
      make_spec(parse(R"({"model_type": "deepseek_v3", "qk_rope_head_dim": 32, "qk_nope_head_dim": 96})")).head_dim,
      128);
}

TEST(FamilyDefaults, Phi3ReadsTypeYarnAsLongrope) {
  // Phi3Config.convert_rope_params_to_dict: "For backward compatibility if previous version used su or yarn",
  // rope_type becomes longrope (was: YaRN, refused without its factor).
  std::string list = "[";
  for (int i = 0; i < 48; ++i) list += (i ? ", " : "") + std::string("1.5");
  list += "]";
  const ModelConfig m = parse(R"({"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32,
      "max_position_embeddings": 131072, "original_max_position_embeddings": 4096, "rope_scaling": {"type": "yarn",
      "short_factor": )" + list +
                              R"(, "long_factor": )" + list + "}}");
  EXPECT_EQ(m.rope.type, ScalingType::LongRope);
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("'yarn' is read as longrope: HF's Phi3Config renames it")));
  // Another family's yarn stays YaRN.
  EXPECT_EQ(
      parse(R"({"model_type": "llama", "head_dim": 128, "rope_scaling": {"type": "yarn", "factor": 4.0}})").rope.type,
      ScalingType::Yarn);
}

TEST(FamilyDefaults, Gemma4IgnoresRopeScalingAndTopLevelTheta) {
  // Gemma4TextConfig.convert_rope_params_to_dict returns the keys untouched (configuration_gemma4.py at
  // 351f643ab9f5): its rope_parameters stay the class's (was: linear f 8 at base 5000 on every layer).
  const ModelConfig m = parse(R"({"model_type": "gemma4_text", "num_hidden_layers": 6, "rope_theta": 5000,
      "rope_scaling": {"rope_type": "linear", "factor": 8.0}})");
  EXPECT_EQ(m.rope.type, ScalingType::Proportional);
  EXPECT_EQ(m.rope.base, 1000000.0);
  EXPECT_THAT(english(m.notes),
              Contains(HasSubstr("rope_scaling is ignored: HF's Gemma4TextConfig reads rope_parameters only")));
  const LayerTypeRope& sliding = select_layer_type(m, "0");
  EXPECT_EQ(sliding.config.type, ScalingType::Default);
  EXPECT_EQ(sliding.config.base, 10000.0);
  EXPECT_EQ(sliding.config.head_dim, 256);
}

TEST(FamilyDefaults, Gemma3NestedSlidingBlockIsRead) {
  // Gemma3TextConfig.convert_rope_params_to_dict (HF v5): a rope_parameters keyed by layer type keeps its
  // sliding_attention block; rope_local_base_freq (else 10000) only fills its rope_theta (was: 10000 for both).
  const ModelConfig own = parse(R"({"model_type": "gemma3_text", "head_dim": 256, "num_hidden_layers": 6,
      "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 20000.0},
      "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0}}})");
  EXPECT_EQ(select_layer_type(own, "sliding_attention").config.base, 20000.0);
  EXPECT_EQ(select_layer_type(own, "full_attention").config.type, ScalingType::Linear);
  const ModelConfig local = parse(R"({"model_type": "gemma3_text", "head_dim": 256, "num_hidden_layers": 6,
      "rope_local_base_freq": 30000, "rope_parameters": {"sliding_attention": {"rope_type": "default"},
      "full_attention": {"rope_type": "linear", "factor": 8.0}}})");
  EXPECT_EQ(select_layer_type(local, "0").config.base, 30000.0);
  EXPECT_EQ(select_layer_type(local, "5").config.base, 1000000.0);
}

TEST(FamilyDefaults, HunYuanPastMaxPositionEmbeddingsLosesAlpha) {
  // HunYuanDenseV1RotaryEmbedding keeps @dynamic_rope_update: for seq_len = max(position) + 1 > M it recomputes
  // _compute_dynamic_ntk_parameters, θ·(f·L/M − (f−1))^(d/(d−2)), without α (modeling_rope_utils.py
  // dynamic_frequency_update). Was: θ·α^(d/(d−2)) at every length.
  const RopeSpec spec = make_spec(parse(R"({"model_type": "hunyuan_v1_dense", "head_dim": 128, "rope_theta": 10000.0,
      "max_position_embeddings": 32768, "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0}})"));
  const double alpha_base = 10000.0 * std::pow(1000.0, 128.0 / 126.0);
  EXPECT_DOUBLE_EQ(*spec.params.effective_base, alpha_base);
  EXPECT_DOUBLE_EQ(*spec_at_position(spec, 32767).params.effective_base, alpha_base);  // L = M
  EXPECT_DOUBLE_EQ(*spec_at_position(spec, 163839).params.effective_base, 10000.0 * std::pow(5.0, 128.0 / 126.0));
}

TEST(FamilyDefaults, KimiK2MlaHeadDimsAreItsOwnConfigClasss) {
  // Kimi K2's config.json names its own configuration_deepseek.py (auto_map; a copy of DeepSeek-V3's), read in
  // alibaba/rtp-llm rtp_llm/test/model_test/fake_test/testdata/kimi_k2/tokenizer/configuration_deepseek.py at
  // be512b9420495f9994f961a94da24d0405aa4d70: DeepseekV3Config(qk_rope_head_dim=64, qk_nope_head_dim=128,
  // rope_theta=10000.0). Without the keys q = cat(q_nope, q_pe) is 192 wide, the last 64 rotating (was: head_dim
  // 7168 / 64 = 112, every channel rotating, while the softmax scale already used 128 + 64).
  const ModelConfig m = parse(R"({"model_type": "kimi_k2", "hidden_size": 7168, "num_attention_heads": 64})");
  const RopeSpec s = make_spec(m);
  EXPECT_EQ(s.head_dim, 192);
  EXPECT_EQ(s.rotary_dim, 64);
  EXPECT_EQ(s.rotary_offset, 128);
  EXPECT_EQ(m.rope.base, 10000.0);
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("qk_rope_head_dim not given: HF's DeepseekV3Config")));
  // Its modeling code (modeling_deepseek.py of the model's repository) has no public copy here: rope says whose
  // code it follows instead.
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("its own modeling code")));
  // Given keys win.
  EXPECT_EQ(make_spec(parse(R"({"model_type": "kimi_k2", "qk_rope_head_dim": 32, "qk_nope_head_dim": 96})")).head_dim,
            128);
}

TEST(FamilyDefaults, QwenHybridLegacyLayerTypeNamesAreRemapped) {
  // Qwen3NextConfig, Qwen3_5TextConfig, Qwen3_5MoeTextConfig.__post_init__ (configuration_qwen3_next.py,
  // configuration_qwen3_5.py, configuration_qwen3_5_moe.py at 008e574391258935f3ecc3035c882e73bbcac419):
  // a given layer_types goes through remap_legacy_layer_types (configuration_utils.py _LEGACY_LAYER_TYPE_REMAP:
  // "mamba" -> "linear_attention", "attention" -> "full_attention"). Was: "mamba" layers rotated.
  for (const char* type : {"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"}) {
    SCOPED_TRACE(type);
    const ModelConfig m = parse(std::string(R"({"model_type": ")") + type + R"(", "head_dim": 256,
        "layer_types": ["mamba", "mamba", "mamba", "attention"]})");
    EXPECT_EQ(select_layer_type(m, "0").name, "linear_attention");
    EXPECT_FALSE(select_layer_type(m, "0").rope);
    EXPECT_EQ(select_layer_type(m, "3").name, "full_attention");
    EXPECT_TRUE(select_layer_type(m, "3").rope);
    EXPECT_THAT(english(m.notes), Contains(HasSubstr("layer type 'mamba' is read as linear_attention")));
  }
}

TEST(FamilyDefaults, QwenThreeFiveDefaultThetaIsTenThousand) {
  // Qwen3_5TextConfig and Qwen3_5MoeTextConfig set no default_theta (configuration_qwen3_5.py,
  // configuration_qwen3_5_moe.py at 008e574391258935f3ecc3035c882e73bbcac419; modular_qwen3_5.py at
  // 009e78d6e89fd6f3e68cf81ba95ccc682c8cdda9 subclasses Qwen3NextConfig, which sets none either), so HF v5's
  // RotaryEmbeddingConfigMixin.default_theta 10_000.0 applies. The published Qwen3.5 configs give 1e7 themselves
  // (data/models/qwen3.5-9b.json); copies outside transformers that write 1e7 as a class default are not HF's.
  for (const char* type : {"qwen3_5_text", "qwen3_5_moe_text", "qwen3_next"}) {
    SCOPED_TRACE(type);
    const ModelConfig m = parse(std::string(R"({"model_type": ")") + type + R"(", "head_dim": 256,
        "transformers_version": "4.57.0.dev0"})");
    EXPECT_EQ(m.rope.base, 10000.0);
  }
}

}  // namespace
}  // namespace rope
