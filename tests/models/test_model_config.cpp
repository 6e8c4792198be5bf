#include "rope/models/model_config.hpp"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "rope/core/error.hpp"

namespace rope {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::ThrowsMessage;

ModelConfig parse(std::string_view text) { return parse_model_config(text, "config.json"); }

/// The parse must fail with InvalidArgument whose message contains `message`.
void expect_invalid(std::string_view text, const std::string& message) {
  EXPECT_THAT([&] { parse(text); }, ThrowsMessage<InvalidArgument>(HasSubstr(message))) << text;
}

void expect_same_rope(const RopeConfig& a, const RopeConfig& b) {
  EXPECT_EQ(a.head_dim, b.head_dim);
  EXPECT_EQ(a.partial_rotary_factor, b.partial_rotary_factor);
  EXPECT_EQ(a.base, b.base);
  EXPECT_EQ(a.layout, b.layout);
  EXPECT_EQ(a.max_position_embeddings, b.max_position_embeddings);
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.factor, b.factor);
  EXPECT_EQ(a.original_max_position_embeddings, b.original_max_position_embeddings);
  EXPECT_EQ(a.beta_fast, b.beta_fast);
  EXPECT_EQ(a.beta_slow, b.beta_slow);
  EXPECT_EQ(a.truncate, b.truncate);
  EXPECT_EQ(a.mscale, b.mscale);
  EXPECT_EQ(a.mscale_all_dim, b.mscale_all_dim);
  EXPECT_EQ(a.attention_factor, b.attention_factor);
  EXPECT_EQ(a.low_freq_factor, b.low_freq_factor);
  EXPECT_EQ(a.high_freq_factor, b.high_freq_factor);
  EXPECT_EQ(a.short_factor, b.short_factor);
  EXPECT_EQ(a.long_factor, b.long_factor);
}

/// A longrope config with head_dim 96 (d/2 = 48, Phi-3's shape) and lists of the given lengths.
std::string longrope_config(int short_count, int long_count) {
  const auto list = [](int n) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::string("1.5");
    return s + "]";
  };
  return R"({"hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
             "original_max_position_embeddings": 4096,
             "rope_scaling": {"type": "longrope", "short_factor": )" +
         list(short_count) + R"(, "long_factor": )" + list(long_count) + "}}";
}

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
  // No factor in the config: f = M / L0 = 131072 / 4096 = 32 (scaling-methods.md §10).
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("f = max_position_embeddings / original = 131072 / 4096 = 32")));
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("read from the top level (Phi-3 style)")));
}

TEST(ModelConfig, ListPresetsGivesEveryPresetWithADescriptionInNameOrder) {
  const std::vector<PresetInfo> presets = list_presets();
  // data/models/ holds the 13 presets of data/models/README.md.
  ASSERT_EQ(presets.size(), 13u);
  for (std::size_t i = 0; i < presets.size(); ++i) {
    EXPECT_THAT(presets[i].description, Not(IsEmpty())) << presets[i].name;
    EXPECT_EQ(presets[i].description.find('\n'), std::string::npos) << presets[i].name;
    if (i > 0) {
      EXPECT_LT(presets[i - 1].name, presets[i].name);
    }
    EXPECT_NO_THROW(load_preset(presets[i].name));
  }
  EXPECT_EQ(presets.front().name, "deepseek-v3");
  EXPECT_EQ(presets.back().name, "qwen3-8b");
  EXPECT_THAT(presets[2].description, HasSubstr("GPT-J"));  // deepseek-v3, gemma-3-4b, gpt-j-6b, …
}

TEST(ModelConfig, UnknownPresetIsRefusedWithTheKnownNames) {
  EXPECT_THAT([] { load_preset("llama-9"); },
              ThrowsMessage<InvalidArgument>(AllOf(HasSubstr("unknown model preset 'llama-9'"),
                                                   HasSubstr("llama-3.1-8b"), HasSubstr("qwen3-8b"))));
}

// ---- Semantics ---------------------------------------------------------------------------------------

TEST(ModelConfig, V4AndV5SpellingsGiveTheSameRopeConfig) {
  // Llama 3.1 8B as transformers v4 writes it (rope_theta at the top, rope_scaling) and as v5 does
  // (everything in rope_parameters); scaling-methods.md §4.
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

  // v5 may also carry partial_rotary_factor inside rope_parameters (scaling-methods.md §4).
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

TEST(ModelConfig, GptJRotaryDimBecomesAPartialFactor) {
  // GPT-J 6B: rotary_dim 64 of head_dim 256 (n_embd 4096 / n_head 16), factor 64/256 = 0.25
  // (HF configuration_gptj.py defaults; scaling-methods.md §9).
  const ModelConfig m = load_preset("gpt-j-6b");
  EXPECT_EQ(m.rope.partial_rotary_factor, 0.25);
  EXPECT_EQ(m.rope.rotary_dim(), 64);
  EXPECT_THAT(english(m.origin), Contains("partial_rotary_factor: 0.25 = 64 / 256 (rotary_dim)"));
  EXPECT_THAT(english(m.origin), Contains("head_dim: 256 (n_embd 4096 / n_head 16)"));
  EXPECT_THAT(english(m.notes), Contains("layout: interleaved pairs (2i, 2i+1) for model_type gptj"));
  EXPECT_THAT(english(m.notes), Contains("rope_theta not given: HF default 10000 assumed"));
  // A ratio with no exact binary value still gives back rotary_dim: 24 of 80 (0.3 · 80 may round low).
  const ModelConfig odd = parse(R"({"head_dim": 80, "rotary_dim": 24})");
  EXPECT_EQ(odd.rope.rotary_dim(), 24);
  expect_invalid(R"({"head_dim": 64, "rotary_dim": 128})", "config.json: rotary_dim: must not exceed head_dim 64, got 128");
}

TEST(ModelConfig, GptNeoXRotaryPctIsThePartialFactor) {
  // GPT-NeoX-20B: rotary_pct 0.25 of head_dim 6144/64 = 96 → d = 24, pairs (j, j+12), half layout
  // (scaling-methods.md §9; C8).
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
  // DeepSeek-V3: qk_rope_head_dim 64 (not 7168/128 = 56, not 128 + 64); scaling-methods.md §10.
  const ModelConfig m = load_preset("deepseek-v3");
  EXPECT_EQ(m.rope.head_dim, 64);
  EXPECT_EQ(m.rope.rotary_dim(), 64);
  EXPECT_THAT(english(m.origin), Contains("head_dim: 64 (qk_rope_head_dim)"));
  EXPECT_THAT(english(m.notes), Contains(HasSubstr("qk_nope_head_dim 128 carry no position")));
  // rope_interleave (HF DeepseekV3Config) overrides the model_type's layout.
  const ModelConfig half = parse(R"({"model_type": "deepseek_v3", "qk_rope_head_dim": 64, "rope_interleave": false})");
  EXPECT_EQ(half.rope.layout, Layout::Half);
}

TEST(ModelConfig, DefaultsAndConventionsAreNoted) {
  // A missing rope_theta is HF's default 10000, and the reader is told.
  const ModelConfig m = parse(R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32})");
  EXPECT_EQ(m.rope.base, 10000.0);
  EXPECT_THAT(english(m.notes), Contains("rope_theta not given: HF default 10000 assumed"));
  EXPECT_THAT(english(m.notes), Contains("layout: HF rotate_half (half) for model_type llama"));
  EXPECT_THAT(english(m.origin), Contains("rope_theta: 10000 (HF default)"));
  EXPECT_THAT(english(m.origin), Contains("head_dim: 128 (hidden_size 4096 / num_attention_heads 32)"));
  EXPECT_EQ(m.rope.max_position_embeddings, std::nullopt);
  // gpt-oss's own default is 150000 (scaling-methods.md §4).
  EXPECT_EQ(parse(R"({"model_type": "gpt_oss", "head_dim": 64})").rope.base, 150000.0);
  // Yarn without original_max_position_embeddings uses M, and the HF defaults are spelled out.
  const ModelConfig yarn = parse(R"({"head_dim": 128, "max_position_embeddings": 32768,
      "rope_scaling": {"rope_type": "yarn", "factor": 4}})");
  EXPECT_THAT(english(yarn.notes), Contains("original_max_position_embeddings not given: L0 = max_position_embeddings 32768 (HF)"));
  EXPECT_THAT(english(yarn.notes), Contains("beta_fast not given: HF default 32"));
  EXPECT_EQ(yarn.rope.original_max_position_embeddings, std::nullopt);
}

TEST(ModelConfig, ReadsAFileAndNamesItInMessages) {
  const fs::path dir = fs::temp_directory_path() / ("rope-model-config-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path good = dir / "config.json";
  {
    std::ofstream out(good, std::ios::binary);
    out << "\xEF\xBB\xBF" << R"({"head_dim": 128, "rope_theta": 500000})";  // UTF-8 BOM, as Windows editors write
  }
  const ModelConfig m = read_model_config(good.string());
  EXPECT_EQ(m.name, good.string());
  EXPECT_EQ(m.rope.base, 5e5);

  const fs::path bad = dir / "bad.json";
  {
    std::ofstream out(bad, std::ios::binary);
    out << R"({"head_dim": "128"})";
  }
  EXPECT_THAT([&] { read_model_config(bad.string()); },
              ThrowsMessage<InvalidArgument>(HasSubstr(bad.string() + ": head_dim: expected an integer, got string")));

  const fs::path big = dir / "big.json";
  {
    std::ofstream out(big, std::ios::binary);
    out << std::string(kMaxConfigBytes + 1, ' ');
  }
  EXPECT_THAT([&] { read_model_config(big.string()); },
              ThrowsMessage<InvalidArgument>(HasSubstr("larger than the 4194304-byte limit")));
  EXPECT_THAT([&] { read_model_config((dir / "missing.json").string()); },
              ThrowsMessage<IoError>(AllOf(HasSubstr("missing.json"), HasSubstr("No such file or directory"))));
  EXPECT_THAT([&] { read_model_config(dir.string()); }, ThrowsMessage<IoError>(HasSubstr("Is a directory")));
  fs::remove_all(dir);
}

// ---- Malformed input: every failure names the JSON path --------------------------------------------

TEST(ModelConfig, NotJsonIsRefused) {
  expect_invalid("", "config.json: not valid JSON");
  expect_invalid(R"({"head_dim": 128,})", "config.json: not valid JSON: at line 1, column 18");
  expect_invalid("rope_theta = 10000", "config.json: not valid JSON");
  expect_invalid(R"({"head_dim": 128} trailing)", "config.json: not valid JSON");
}

TEST(ModelConfig, TopLevelMustBeAnObject) {
  expect_invalid(R"([{"head_dim": 128}])", "config.json: expected a JSON object at the top level, got array");
  expect_invalid("42", "config.json: expected a JSON object at the top level, got number");
}

TEST(ModelConfig, WrongTypesNameTheirPath) {
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"rope_type": "linear", "factor": "8"}})",
                 "config.json: rope_scaling.factor: expected a number, got string");
  expect_invalid(R"({"head_dim": 128, "rope_theta": "10000"})", "config.json: rope_theta: expected a number, got string");
  expect_invalid(R"({"head_dim": 128.5})", "config.json: head_dim: expected an integer, got 128.5");
  expect_invalid(R"({"head_dim": 128, "rope_scaling": [1, 2]})", "config.json: rope_scaling: expected an object, got array");
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

TEST(ModelConfig, FactorListsMustHaveHalfTheRotaryDim) {
  // Phi-3: d = 96, so each list has d/2 = 48 numbers (scaling-methods.md §3 longrope).
  EXPECT_NO_THROW(parse(longrope_config(48, 48)));
  expect_invalid(longrope_config(48, 47), "config.json: rope_scaling.long_factor: expected 48 numbers, got 47");
  expect_invalid(longrope_config(49, 48), "config.json: rope_scaling.short_factor: expected 48 numbers, got 49");
  // A partial rotary factor shortens them: head_dim 96 × 0.5 = 48 → 24 numbers.
  std::string partial = longrope_config(48, 48);
  partial.insert(1, R"("partial_rotary_factor": 0.5, )");
  expect_invalid(partial, "config.json: rope_scaling.short_factor: expected 24 numbers, got 48");
}

TEST(ModelConfig, DuplicateKeysAreRefusedByName) {
  expect_invalid(R"({"head_dim": 128, "rope_theta": 10000, "rope_theta": 500000})",
                 "config.json: duplicate key 'rope_theta'");
  expect_invalid(R"({"head_dim": 128, "rope_scaling": {"rope_type": "linear", "factor": 2, "factor": 4}})",
                 "config.json: rope_scaling: duplicate key 'factor'");
  expect_invalid(R"({"a": [{"b": 1}, {"c": 1, "c": 2}], "head_dim": 128})", "config.json: a[1]: duplicate key 'c'");
  // The same key in different objects is fine.
  EXPECT_NO_THROW(parse(R"({"head_dim": 128, "x": {"factor": 1}, "rope_scaling": {"rope_type": "linear", "factor": 2}})"));
}

TEST(ModelConfig, DeepNestingIsRefused) {
  const std::string deep = R"({"head_dim": 128, "x": )" + std::string(100, '[') + std::string(100, ']') + "}";
  expect_invalid(deep, "config.json: JSON nested more than 64 levels deep");
  const std::string fine = R"({"head_dim": 128, "x": )" + std::string(60, '[') + std::string(60, ']') + "}";
  EXPECT_NO_THROW(parse(fine));
}

TEST(ModelConfig, ByteOrderMarkIsAcceptedAndSizeIsBounded) {
  EXPECT_EQ(parse("\xEF\xBB\xBF{\"head_dim\": 64}").rope.head_dim, 64);
  const std::string huge = R"({"head_dim": 64, "pad": ")" + std::string(kMaxConfigBytes, 'x') + "\"}";
  expect_invalid(huge, "config.json: larger than the 4194304-byte limit for a config file");
}

TEST(ModelConfig, OddRotaryDimIsRefused) {
  // head_dim 96 × 0.3 = 28.8 → d = 28 is fine; head_dim 6 × 0.5 = 3 is odd.
  EXPECT_EQ(parse(R"({"head_dim": 96, "partial_rotary_factor": 0.3})").rope.rotary_dim(), 28);
  expect_invalid(R"({"head_dim": 6, "partial_rotary_factor": 0.5})",
                 "config.json: partial_rotary_factor: rotary dim d = int(head_dim 6 × partial_rotary_factor 0.5) = 3");
}

}  // namespace
}  // namespace rope
