// gguf_config.hpp: a GGUF file's metadata as the ModelConfig a config.json gives. The files are written by
// tests/io/write_gguf.py (independent of the reader) with the values of the published config.json files
// that data/models/ holds as presets, so the frequencies from a GGUF file must equal the preset's.
#include "rope/models/gguf/gguf_config.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <unistd.h>

#include "rope/core/error.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

using test::gguf_path;

/// The preset's frequencies and attention factor against the GGUF file's: the same parameters through the
/// same code must give the same doubles, up to the float32 rounding of the values stored in the file
/// (relative 2^-24 ≈ 6e-8 on base or factors moves a frequency by about that much; 1e-6 bounds it).
void expect_same_rope_as_preset(const std::string& file, const std::string& preset, double rtol) {
  SCOPED_TRACE(file);
  const GgufModel g = read_gguf_model(gguf_path(file));
  const RopeParameters a = rope_parameters(g.model.rope);
  const RopeParameters b = rope_parameters(load_preset(preset).rope);
  ASSERT_EQ(a.inv_freq.size(), b.inv_freq.size());
  for (Eigen::Index i = 0; i < a.inv_freq.size(); ++i) {
    EXPECT_NEAR(a.inv_freq[i], b.inv_freq[i], rtol * b.inv_freq[i]) << "pair " << i;
  }
  EXPECT_NEAR(a.attention_factor, b.attention_factor, rtol);
}

TEST(GgufConfig, Llama31FromRopeFreqs) {
  const GgufModel g = read_gguf_model(gguf_path("llama-3.1-8b.gguf"));
  EXPECT_EQ(g.architecture, "llama");
  EXPECT_EQ(g.rope_type, GgufRopeType::Norm);
  EXPECT_EQ(g.model.rope.layout, Layout::Interleaved);
  EXPECT_EQ(g.n_head, 32);
  EXPECT_EQ(g.n_head_kv, 8);
  EXPECT_EQ(g.model.rope.type, ScalingType::Llama3);
  EXPECT_EQ(g.model.rope.factor, 8.0);
  EXPECT_EQ(g.model.rope.original_max_position_embeddings, 8192);
  ASSERT_TRUE(g.rope_freqs_difference);
  // write_gguf.py computed the factors in float64 and stored float32: the difference is that rounding.
  EXPECT_LT(*g.rope_freqs_difference, 1e-7);
  EXPECT_GT(*g.rope_freqs_difference, 0.0);
  EXPECT_THAT(english(g.model.origin), Contains("rope_theta: 500000 (llama.rope.freq_base)"));
  EXPECT_THAT(english(g.model.origin), Contains("max_position_embeddings: 131072 (llama.context_length)"));
  expect_same_rope_as_preset("llama-3.1-8b.gguf", "llama-3.1-8b", 0.0);
}

TEST(GgufConfig, FrequenciesEqualThePresets) {
  expect_same_rope_as_preset("qwen2.5-7b.gguf", "qwen2.5-7b", 0.0);
  expect_same_rope_as_preset("qwen3-8b-v2.gguf", "qwen3-8b", 0.0);
  expect_same_rope_as_preset("gemma-3-4b.gguf", "gemma-3-4b", 0.0);
  expect_same_rope_as_preset("mistral-7b-v0.1.gguf", "mistral-7b-v0.1", 0.0);
  expect_same_rope_as_preset("llama-2-7b-be.gguf", "llama-2-7b", 0.0);
  // Phi-3's attention factor is stored as float32 in the file (rope.scaling.attn_factor), HF computes it in
  // double from the same formula: relative 2^-24.
  expect_same_rope_as_preset("phi-3-mini-128k.gguf", "phi-3-mini-128k", 1e-7);
  expect_same_rope_as_preset("deepseek-v3.gguf", "deepseek-v3", 0.0);
}

TEST(GgufConfig, RopeTypeAndLayoutPerArchitecture) {
  struct Case {
    const char* file;
    GgufRopeType type;
    Layout layout;
    int head_dim;
    int rotary_dim;
  };
  const Case cases[] = {
      {"qwen2.5-7b.gguf", GgufRopeType::Neox, Layout::Half, 128, 128},
      {"qwen2-vl-7b.gguf", GgufRopeType::Mrope, Layout::Half, 128, 128},
      {"qwen3-vl-8b.gguf", GgufRopeType::Imrope, Layout::Half, 128, 128},
      {"gemma-3-4b.gguf", GgufRopeType::Neox, Layout::Half, 256, 256},
      {"phi-3-mini-128k.gguf", GgufRopeType::Neox, Layout::Half, 96, 96},
      {"deepseek-v3.gguf", GgufRopeType::Norm, Layout::Interleaved, 192, 64},
      {"gpt-oss-20b.gguf", GgufRopeType::Neox, Layout::Half, 64, 64},
      {"glm-4-9b.gguf", GgufRopeType::Norm, Layout::Interleaved, 128, 64},
      {"command-r.gguf", GgufRopeType::Norm, Layout::Interleaved, 128, 128},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    const GgufModel g = read_gguf_model(gguf_path(c.file));
    EXPECT_EQ(g.rope_type, c.type);
    EXPECT_EQ(g.model.rope.layout, c.layout);
    EXPECT_EQ(g.head_dim, c.head_dim);
    EXPECT_EQ(g.rotary_dim, c.rotary_dim);
    EXPECT_EQ(g.model.rope.rotary_dim(), c.rotary_dim);
  }
}

TEST(GgufConfig, SectionsSwaBaseAndScalingKeys) {
  const GgufModel vl = read_gguf_model(gguf_path("qwen2-vl-7b.gguf"));
  EXPECT_EQ(vl.sections, (std::vector<long>{16, 24, 24, 0}));
  const GgufModel gemma = read_gguf_model(gguf_path("gemma-3-4b.gguf"));
  EXPECT_EQ(gemma.freq_base_swa, 10000.0);
  EXPECT_EQ(gemma.sliding_window, 1024);
  EXPECT_EQ(gemma.model.rope.type, ScalingType::Linear);
  EXPECT_EQ(gemma.model.rope.factor, 8.0);
  const GgufModel oss = read_gguf_model(gguf_path("gpt-oss-20b.gguf"));
  EXPECT_EQ(oss.model.rope.type, ScalingType::Yarn);
  EXPECT_EQ(oss.model.rope.factor, 32.0);
  EXPECT_EQ(oss.model.rope.original_max_position_embeddings, 4096);
  EXPECT_EQ(oss.model.rope.base, 150000.0);
  // DeepSeek: yarn_log_multiplier 0.1 = 0.1·mscale_all_dim.
  const GgufModel ds = read_gguf_model(gguf_path("deepseek-v3.gguf"));
  EXPECT_EQ(ds.model.rope.mscale_all_dim, 1.0);
  EXPECT_EQ(ds.model.rope.mscale, 1.0);
  // src/llama-context.cpp:185-198: mscale = mscale_all_dim for deepseek2 only; DeepSeek-3.2 divides by 0.1 (1 → 10),
  // Mistral 3 reads mscale_all_dim itself, GLM-DSA not at all (libllama's yarn_attn_factor for these, with ggml's
  // 1/(1 + 0.1 ln f): 0.213271, 1, 1; the conformance tier's deepseek32 model, saved by libllama with 1, checks the
  // first).
  const GgufModel d32 = read_gguf_model(gguf_path("deepseek32-log-mul-1.gguf"));
  EXPECT_FLOAT_EQ(static_cast<float>(*d32.model.rope.mscale_all_dim), 10.0f);
  EXPECT_EQ(d32.model.rope.mscale, 1.0);
  const double want = (0.1 * std::log(40.0) + 1) / (0.1 * 10 * std::log(40.0) + 1);
  EXPECT_NEAR(rope_parameters(d32.model.rope).attention_factor, want, 1e-6);
  const GgufModel m3 = read_gguf_model(gguf_path("ministral3-yarn.gguf"));
  EXPECT_EQ(m3.model.rope.mscale_all_dim, 1.0);
  EXPECT_EQ(m3.model.rope.mscale, 1.0);
  const GgufModel glm = read_gguf_model(gguf_path("glm-dsa-yarn-log.gguf"));
  EXPECT_FALSE(glm.model.rope.mscale_all_dim.has_value());
  EXPECT_NEAR(rope_parameters(glm.model.rope).attention_factor, 0.1 * std::log(40.0) + 1, 1e-12);
  // The legacy key scale_linear (ggml docs/gguf.md) without scaling.type: llama.cpp's default type linear.
  const GgufModel legacy = read_gguf_model(gguf_path("llama-2-7b-linear.gguf"));
  EXPECT_EQ(legacy.model.rope.type, ScalingType::Linear);
  EXPECT_EQ(legacy.model.rope.factor, 4.0);
  EXPECT_THAT(english(legacy.model.origin), Contains("factor: 4 (llama.rope.scale_linear)"));
  // rope_freqs of all ones: no scaling.
  const GgufModel ones = read_gguf_model(gguf_path("llama-2-7b-be.gguf"));
  EXPECT_EQ(ones.model.rope.type, ScalingType::Default);
  EXPECT_EQ(ones.rope_freqs_difference, 0.0);
  // Phi-3: the lists from the tensors, the attention factor from the key.
  const GgufModel phi = read_gguf_model(gguf_path("phi-3-mini-128k.gguf"));
  EXPECT_EQ(phi.model.rope.type, ScalingType::LongRope);
  EXPECT_EQ(phi.model.rope.long_factor.size(), 48u);
  EXPECT_NEAR(*phi.model.rope.attention_factor, std::sqrt(1 + std::log(32.0) / std::log(4096.0)), 1e-7);
}

TEST(GgufConfig, MalformedOrUncoveredFilesAreRefused) {
  const std::pair<const char*, const char*> cases[] = {
      {"mamba.gguf", "general.architecture: 'mamba': llama.cpp applies no RoPE to it"},
      {"unknown-arch.gguf", "general.architecture: 'foonet' is not an architecture rope maps (it maps: llama, "},
      {"arch-not-string.gguf", "general.architecture: expected a string, got uint32"},
      {"no-architecture.gguf", "general.architecture: missing"},
      {"freq-base-string.gguf", "llama.rope.freq_base: expected a number, got string"},
      {"freq-base-nan.gguf", "llama.rope.freq_base: expected a finite number, got nan"},  // not "got float32"
      {"bad-sections.gguf",
       "qwen2vl.rope.dimension_sections: the sections [16, 24, 20, 0] add up to 60, not rotary_dim / 2 = 64"},
      {"rope-freqs-wrong-length.gguf", "rope_freqs.weight: 63 factors, the rotary dimension 128 has 64 pairs"},
      // get_mscale refused it later without the file or the key (issue 52, item 8)
      {"yarn-log-mul-huge.gguf",
       "deepseek32.rope.scaling.yarn_log_multiplier: 1e+38 / 0.1 is not a finite float32 (llama.cpp's loader divides "
       "it in float32, "},
  };
  for (const auto& c : cases) {
    const std::string file = c.first;  // a plain variable: clang 14 cannot capture a structured binding
    SCOPED_TRACE(file);
    EXPECT_THAT([&] { read_gguf_model(gguf_path(file)); },
                ThrowsMessage<InvalidArgument>(HasSubstr(gguf_path(file) + ": " + c.second)));
  }
}

TEST(GgufConfig, ReadModelFileTellsGgufByItsMagic) {
  const std::string json = std::string(ROPE_REFERENCE_DIR) + "/../../data/models/llama-2-7b.json";
  EXPECT_EQ(read_model_file(json).rope.base, 10000.0);
  const auto renamed = std::filesystem::temp_directory_path() / ("rope-gguf-" + std::to_string(::getpid()) + ".json");
  std::filesystem::copy_file(gguf_path("qwen2.5-7b.gguf"), renamed, std::filesystem::copy_options::overwrite_existing);
  const ModelConfig m = read_model_file(renamed.string());
  std::filesystem::remove(renamed);
  EXPECT_EQ(m.model_type, "qwen2");
  EXPECT_EQ(m.rope.base, 1e6);
}

TEST(GgufConfig, AttentionShapeFromGgufAndConfigJson) {
  const AttentionShape g = read_attention_shape(gguf_path("llama-3.1-8b.gguf"));
  EXPECT_TRUE(g.gguf);
  EXPECT_EQ(g.n_head, 32);
  EXPECT_EQ(g.n_head_kv, 8);
  // Llama 2 7B's config.json has no num_key_value_heads: HF's default, one KV head per query head.
  const AttentionShape j = read_attention_shape(std::string(ROPE_REFERENCE_DIR) + "/../../data/models/llama-2-7b.json");
  EXPECT_FALSE(j.gguf);
  EXPECT_EQ(j.n_head, 32);
  EXPECT_EQ(j.n_head_kv, 32);
  EXPECT_THAT([] { read_attention_shape(gguf_path("mamba.gguf")); },
              ThrowsMessage<InvalidArgument>(HasSubstr("no RoPE")));
}

TEST(GgufConfig, SoftmaxScaleAsLlamaCppsGraphDecidesIt) {
  // kq_scale of each graph (src/models/*.cpp at de3ff815ea7d; docs/scaling.md (S22)), computed by hand:
  const auto scale = [](const char* file) {
    const GgufModel g = read_gguf_model(gguf_path(file));
    EXPECT_TRUE(g.model.attention_scale.has_value()) << file;
    return g.model.attention_scale ? g.model.attention_scale->value : 0.0;
  };
  // Gemma 3: q × 1/√n_embd_head_k, except the 27B (62 layers): 1/√(n_embd / n_head) = 1/√(5376 / 32) = 168^−0.5,
  // HF's query_pre_attn_scalar 168 (gemma3.cpp:29-31).
  EXPECT_DOUBLE_EQ(scale("gemma-3-4b.gguf"), 0.0625);
  EXPECT_DOUBLE_EQ(scale("gemma-3-27b.gguf"), 0.07715167498104596);
  // DeepSeek-2: mscale² / √192 with mscale = (get_mscale(40, 1) / get_mscale(40, 1)) · (0.1 · 1 · ln 40 + 1), the
  // yarn_log_multiplier 0.1 read as mscale_all_dim 1 (deepseek2.cpp:433-443): HF's (0.1·ln 40 + 1)² / √192 too.
  EXPECT_NEAR(scale("deepseek-v3.gguf"), 0.1352337788608801, 1e-15);
  EXPECT_NEAR(scale("deepseek-v3-mla.gguf"), 0.1352337788608801, 1e-15);
  // GLM-DSA's loader does not read yarn_log_multiplier (0): attn_factor_org = get_mscale(40, 1) / (0.1·ln 40 + 1) ×
  // (0.1·ln 40 + 1), so mscale = 0.1·ln 40 + 1 all the same (llama-context.cpp:177-211; the conformance tier's
  // glm-dsa).
  EXPECT_NEAR(scale("glm-dsa-yarn-log.gguf"), 0.1352337788608801, 1e-15);
  // Granite: attention.scale when given (HF's attention_multiplier), else 1/√n_embd_head (granite-swa.cpp:231).
  EXPECT_EQ(scale("granite-swa-scale.gguf"), 0.015625);
  EXPECT_DOUBLE_EQ(scale("granite-swa.gguf"), 1.0 / std::sqrt(128.0));
  // Every other graph: 1/√n_embd_head_k (llama.cpp:122), its rule named.
  const GgufModel llama = read_gguf_model(gguf_path("llama-3.1-8b.gguf"));
  EXPECT_DOUBLE_EQ(llama.model.attention_scale->value, 1.0 / std::sqrt(128.0));
  EXPECT_THAT(llama.model.attention_scale->from.en, HasSubstr("kq_scale = 1/√n_embd_head_k, as the graph of llama"));
}

TEST(GgufConfig, SoftmaxScaleRulesOfTheTable) {
  // data/families.json's kq_scale rules, each on a file whose rule head differs from attention.key_length.
  const auto scale = [](const char* file) {
    const GgufModel g = read_gguf_model(gguf_path(file));
    EXPECT_TRUE(g.model.attention_scale.has_value()) << file;
    return g.model.attention_scale.value_or(AttentionScale{});
  };
  // 1/√n_rot: rope.dimension_count 32 of a head of 64 (openai-moe.cpp:113), 64 of 128 (bailingmoe.cpp:111).
  EXPECT_DOUBLE_EQ(scale("gpt-oss-rot32.gguf").value, 1.0 / std::sqrt(32.0));
  EXPECT_DOUBLE_EQ(scale("gpt-oss-20b.gguf").value, 0.125);
  EXPECT_DOUBLE_EQ(scale("bailingmoe.gguf").value, 0.125);
  EXPECT_EQ(scale("bailingmoe.gguf").rule.en, "64^−0.5 (bailingmoe.rope.dimension_count 64)");
  // 1/√n_embd_head_v: value_length 96, key_length 128 (plamo2.cpp:250); LFM2 without value_length: 2048 / 32.
  EXPECT_DOUBLE_EQ(scale("plamo2.gguf").value, 1.0 / std::sqrt(96.0));
  EXPECT_DOUBLE_EQ(scale("lfm2.gguf").value, 0.125);
  EXPECT_EQ(scale("lfm2.gguf").rule.en, "64^−0.5 (lfm2.embedding_length / lfm2.attention.head_count 64)");
  // 1/√n_embd_head_k_mla: the MLA head 192 of key_length 576 (dots3note.cpp:184-188, hy-v4.cpp:500-501).
  EXPECT_DOUBLE_EQ(scale("dots3note.gguf").value, 1.0 / std::sqrt(192.0));
  EXPECT_THAT(scale("dots3note.gguf").from.en,
              HasSubstr("on the sliding layers 1/√dots3note.attention.key_length_mla_swa"));
  EXPECT_DOUBLE_EQ(scale("hy-v4.gguf").value, 1.0 / std::sqrt(192.0));
  // Gemma 2's 27B (46 layers): q × 1/√(4608 / 32) = 144^−0.5, not 128^−0.5; scores capped at 50 without the key.
  const AttentionScale g27 = scale("gemma-2-27b.gguf");
  EXPECT_DOUBLE_EQ(g27.value, 1.0 / 12.0);
  ASSERT_TRUE(g27.softcap.has_value());
  EXPECT_EQ(*g27.softcap, 50.0);
  EXPECT_THAT(g27.softcap_from.en, HasSubstr("llama.cpp's default 50 (src/models/gemma2.cpp:7, 14"));
  // Grok: the scores × attention.output_scale (the float32 0.05, read as its shortest decimal), capped at
  // attn_logit_softcapping; without the keys llama.cpp's 0.08838834764831845 and 30 (grok.cpp:8-9).
  const AttentionScale grok = scale("grok.gguf");
  EXPECT_DOUBLE_EQ(grok.value, 0.05);
  EXPECT_EQ(grok.softcap.value_or(0), 20.0);
  const AttentionScale grok_defaults = scale("grok-defaults.gguf");
  EXPECT_DOUBLE_EQ(grok_defaults.value, 0.08838834764831845);
  EXPECT_EQ(grok_defaults.softcap.value_or(0), 30.0);
  EXPECT_THAT(grok_defaults.rule.en, HasSubstr("llama.cpp's default"));
  // The rules come from the table: each architecture the conformance test found reads as its row says.
  const auto rule = [](std::string_view arch) { return find_gguf_architecture(arch)->kq_scale.rule; };
  using R = LlamaKqScale::Rule;
  EXPECT_EQ(rule("granite"), R::AttentionScaleKey);
  EXPECT_EQ(rule("gemma3"), R::Gemma27B);
  EXPECT_EQ(find_gguf_architecture("gemma3")->kq_scale.layers_27b, 62);
  EXPECT_EQ(rule("mistral4"),
            R::MlaMscale);  // deepseek2's graph (models.h: using graph = llama_model_deepseek2::graph)
  EXPECT_EQ(rule("jais"), R::InverseHead);
  EXPECT_EQ(rule("t5"), R::One);
  EXPECT_EQ(rule("llama"), R::Default);
}

TEST(GgufConfig, ArchitectureTable) {
  std::set<std::string_view> names;
  int tested = 0;
  for (const GgufArchitecture& a : gguf_architectures()) {
    EXPECT_TRUE(names.insert(a.name).second) << a.name;
    tested += a.tested ? 1 : 0;
  }
  EXPECT_EQ(tested, 40);  // the architectures of write_gguf.py's files, mamba (no RoPE) included
  EXPECT_EQ(to_string(GgufRopeType::Imrope), "IMROPE");
  // data/families.json llama_cpp: every architecture of llama_model_rope_type (152 at de3ff815ea7d), and what it
  // decides in code (tests/conformance/llama_rope_types.py compares the table with the source itself).
  EXPECT_EQ(names.size(), 152u);
  const auto type_of = [](std::string_view n) {
    for (const GgufArchitecture& a : gguf_architectures()) {
      if (a.name == n) return std::make_pair(a.type, a.with_sections);
    }
    return std::make_pair(GgufRopeType::Vision, GgufRopeType::Vision);
  };
  EXPECT_EQ(type_of("qwen35").first, GgufRopeType::Imrope);
  EXPECT_EQ(type_of("qwen3vlmoe").first, GgufRopeType::Imrope);
  EXPECT_EQ(type_of("smollm3").first, GgufRopeType::Norm);
  EXPECT_EQ(type_of("gemma4").first, GgufRopeType::Neox);
  EXPECT_EQ(type_of("paddleocr").first, GgufRopeType::Mrope);
  EXPECT_EQ(type_of("hunyuan_vl"), std::make_pair(GgufRopeType::Neox, GgufRopeType::Mrope));
  EXPECT_EQ(type_of("glm4"), std::make_pair(GgufRopeType::Norm, GgufRopeType::Mrope));
  EXPECT_EQ(type_of("nemotron_h").first, GgufRopeType::None);
}

TEST(GgufConfig, TensorNamesAreLlamaCpps) {
  // llama.cpp reads rope_freqs.weight; a tensor named rope_freqs is not read, by llama.cpp or by rope.
  const GgufModel bare = read_gguf_model(gguf_path("llama-3.1-8b-bare-names.gguf"));
  EXPECT_EQ(bare.model.rope.type, ScalingType::Default);
  EXPECT_FALSE(bare.rope_freqs_difference);
  ASSERT_EQ(bare.model.warnings.size(), 1u);
  EXPECT_THAT(bare.model.warnings[0].en,
              HasSubstr("tensor rope_freqs has no .weight suffix: llama.cpp reads rope_freqs.weight only"));
  EXPECT_EQ(read_gguf_model(gguf_path("llama-3.1-8b.gguf")).model.warnings.size(), 0u);
}

TEST(GgufConfig, GemmaSlidingLayersAreLayerTypes) {
  // llama.cpp: 34 layers, pattern 6 (il % 6 < 5 slides), the sliding layers at freq_base_swa without scaling.
  const GgufModel g = read_gguf_model(gguf_path("gemma-3-4b.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  EXPECT_EQ(g.model.layer_type, "full_attention");
  const LayerTypeRope& sliding = g.model.layer_types[0];
  const LayerTypeRope& full = g.model.layer_types[1];
  EXPECT_EQ(sliding.name, "sliding_attention");
  EXPECT_EQ(full.layers, (std::vector<int>{5, 11, 17, 23, 29}));
  EXPECT_EQ(sliding.layers.size(), 29u);
  EXPECT_EQ(sliding.config.base, 10000.0);
  EXPECT_EQ(sliding.config.type, ScalingType::Default);
  EXPECT_EQ(sliding.config.head_dim, 256);
  EXPECT_EQ(full.config.type, ScalingType::Linear);
  EXPECT_EQ(full.config.base, 1e6);
  // The HF preset's layer types give the same layers and RoPEs.
  const ModelConfig hf = load_preset("gemma-3-4b");
  ASSERT_EQ(hf.layer_types.size(), 2u);
  EXPECT_EQ(hf.layer_types[0].layers, sliding.layers);
  EXPECT_EQ(rope_parameters(hf.layer_types[0].config).inv_freq, rope_parameters(sliding.config).inv_freq);
  // The pattern as an array of bools; no freq_base_swa: llama.cpp's 10000.
  const GgufModel p = read_gguf_model(gguf_path("gemma-3-pattern.gguf"));
  ASSERT_EQ(p.model.layer_types.size(), 2u);
  EXPECT_EQ(p.model.layer_types[0].layers, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(p.model.layer_types[1].layers, (std::vector<int>{1}));
  EXPECT_EQ(p.model.layer_types[0].config.base, 10000.0);
}

TEST(GgufConfig, SmolLm3HasNoRopeOnEveryFourthLayer) {
  // llama.cpp src/models/smollm3.cpp:69: use_rope = (il + 1) % 4 != 0.
  const GgufModel g = read_gguf_model(gguf_path("smollm3-3b.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  EXPECT_EQ(g.model.layer_type, "rope");
  EXPECT_EQ(g.model.layer_types[1].name, "nope");
  EXPECT_FALSE(g.model.layer_types[1].rope);
  EXPECT_EQ(g.model.layer_types[1].layers, (std::vector<int>{3, 7, 11, 15, 19, 23, 27, 31, 35}));
  EXPECT_EQ(g.model.layer_types[0].layers.size(), 27u);
  EXPECT_EQ(g.model.layer_types[0].config.base, 5e6);
}

TEST(GgufConfig, DeepSeekRotatesTheLastChannelsAndMlaHeads) {
  // llama.cpp rotates the last rope.dimension_count channels (ggml_rope_set_offset): 128 without position first.
  const GgufModel g = read_gguf_model(gguf_path("deepseek-v3.gguf"));
  EXPECT_EQ(g.model.qk_nope_head_dim, 128);
  EXPECT_EQ(g.head_dim, 192);
  // MLA: key_length 576 is the latent 512 + 64; the head is key_length_mla 192.
  const GgufModel mla = read_gguf_model(gguf_path("deepseek-v3-mla.gguf"));
  EXPECT_EQ(mla.head_dim, 192);
  EXPECT_EQ(mla.rotary_dim, 64);
  EXPECT_EQ(mla.model.qk_nope_head_dim, 128);
  EXPECT_THAT(english(mla.model.notes), Contains(HasSubstr("MLA: deepseek2.attention.key_length 576")));
  EXPECT_EQ(rope_parameters(mla.model.rope).inv_freq, rope_parameters(g.model.rope).inv_freq);
}

TEST(GgufConfig, MropeTextTokensAndGlm4Sections) {
  // Qwen3-VL: IMROPE's pairs 61 and 62 read slot e, which llama.cpp sets to 0 for text.
  const GgufModel vl = read_gguf_model(gguf_path("qwen3-vl-8b.gguf"));
  EXPECT_THAT(english(vl.model.notes), Contains(HasSubstr("pairs 61, 62 read the fourth slot e")));
  const AxisMap map = make_axis_map(*vl.model.mrope, 64);
  EXPECT_EQ(axis_component(map, AxisPosition::single(7), 3), 0.0);
  EXPECT_EQ(axis_component(map, AxisPosition::single(7), 0), 7.0);
  AxisPosition four = parse_axis_position("7,8,9,10", "p");
  EXPECT_EQ(axis_component(map, four, 3), 10.0);
  Eigen::VectorXd theta = Eigen::VectorXd::Ones(64);
  const Eigen::VectorXd phi = axis_angles(theta, &map, AxisPosition::single(7));
  EXPECT_EQ(phi[61], 0.0);
  EXPECT_EQ(phi[62], 0.0);
  EXPECT_EQ(phi[60], 7.0);
  // glm4 with sections (use_mrope): MROPE.
  EXPECT_EQ(read_gguf_model(gguf_path("glm-4v.gguf")).rope_type, GgufRopeType::Mrope);
  EXPECT_EQ(read_gguf_model(gguf_path("glm-4-9b.gguf")).rope_type, GgufRopeType::Norm);
}

// rope.scaling.yarn_ext_factor (ikawrakow/ik_llama.cpp src/llama-hparams.cpp:348, 1724 @ 8337e4cd3861; ggml's
// rope_yarn): θ_i/f·(1 − (1 − r_i)·e) + θ_i·(1 − r_i)·e, the ramp r_i of (S8) recomputed here from ggml's corr dims
// (floor and ceil of d·ln(L0/(2π·β))/(2·ln base) for β 32 and 1); the magnitude 1 + 0.1·ln f only when e ≠ 0.
TEST(GgufConfig, YarnExtFactorWeighsTheExtrapolation) {
  const double base = 10000, f = 4, l0 = 32768, d = 128;
  const auto corr = [&](double beta) { return d * std::log(l0 / (beta * 2 * std::acos(-1.0))) / (2 * std::log(base)); };
  const double low = std::max(0.0, std::floor(corr(32))), high = std::min(d - 1, std::ceil(corr(1)));
  for (const auto& [file, e] : {std::pair{"llama-yarn-ext-0.5.gguf", 0.5}, std::pair{"llama-yarn-ext-0.gguf", 0.0}}) {
    SCOPED_TRACE(file);
    const GgufModel g = read_gguf_model(gguf_path(file));
    ASSERT_EQ(g.model.rope.ext_factor, e);
    const RopeParameters p = rope_parameters(g.model.rope);
    ASSERT_EQ(p.inv_freq.size(), 64);
    for (int j = 0; j < 64; ++j) {
      const double theta = std::pow(base, -2.0 * j / d);
      const double extrapolate = (1 - std::clamp((j - low) / std::max(0.001, high - low), 0.0, 1.0)) * e;
      const double want = theta / f * (1 - extrapolate) + theta * extrapolate;
      EXPECT_NEAR(p.inv_freq[j], want, 1e-15 * theta) << "pair " << j;
    }
    EXPECT_NEAR(p.attention_factor, e == 0 ? 1.0 : 0.1 * std::log(f) + 1, 1e-12);
  }
}

}  // namespace
}  // namespace rope
