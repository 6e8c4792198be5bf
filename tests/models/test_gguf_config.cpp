// gguf_config.hpp: a GGUF file's metadata as the ModelConfig a config.json gives. The files are written by
// tests/io/write_gguf.py (independent of the reader) with the values of the published config.json files
// that data/models/ holds as presets, so the frequencies from a GGUF file must equal the preset's.
#include "rope/models/gguf_config.hpp"

#include <cmath>
#include <filesystem>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <unistd.h>

#include "rope/core/error.hpp"
#include "rope/models/presets.hpp"
#include "rope/models/scaling.hpp"

namespace rope {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::string path(const std::string& name) { return std::string(ROPE_GGUF_DIR) + "/" + name; }

/// The preset's frequencies and attention factor against the GGUF file's: the same parameters through the
/// same code must give the same doubles, up to the float32 rounding of the values stored in the file
/// (relative 2^-24 ≈ 6e-8 on base or factors moves a frequency by about that much; 1e-6 bounds it).
void expect_same_rope(const std::string& file, const std::string& preset, double rtol) {
  SCOPED_TRACE(file);
  const GgufModel g = read_gguf_model(path(file));
  const RopeParameters a = rope_parameters(g.model.rope);
  const RopeParameters b = rope_parameters(load_preset(preset).rope);
  ASSERT_EQ(a.inv_freq.size(), b.inv_freq.size());
  for (Eigen::Index i = 0; i < a.inv_freq.size(); ++i) {
    EXPECT_NEAR(a.inv_freq[i], b.inv_freq[i], rtol * b.inv_freq[i]) << "pair " << i;
  }
  EXPECT_NEAR(a.attention_factor, b.attention_factor, rtol);
}

TEST(GgufConfig, Llama31FromRopeFreqs) {
  const GgufModel g = read_gguf_model(path("llama-3.1-8b.gguf"));
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
  expect_same_rope("llama-3.1-8b.gguf", "llama-3.1-8b", 0.0);
}

TEST(GgufConfig, FrequenciesEqualThePresets) {
  expect_same_rope("qwen2.5-7b.gguf", "qwen2.5-7b", 0.0);
  expect_same_rope("qwen3-8b-v2.gguf", "qwen3-8b", 0.0);
  expect_same_rope("gemma-3-4b.gguf", "gemma-3-4b", 0.0);
  expect_same_rope("mistral-7b-v0.1.gguf", "mistral-7b-v0.1", 0.0);
  expect_same_rope("llama-2-7b-be.gguf", "llama-2-7b", 0.0);
  // Phi-3's attention factor is stored as float32 in the file (rope.scaling.attn_factor), HF computes it in
  // double from the same formula: relative 2^-24.
  expect_same_rope("phi-3-mini-128k.gguf", "phi-3-mini-128k", 1e-7);
  expect_same_rope("deepseek-v3.gguf", "deepseek-v3", 0.0);
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
    const GgufModel g = read_gguf_model(path(c.file));
    EXPECT_EQ(g.rope_type, c.type);
    EXPECT_EQ(g.model.rope.layout, c.layout);
    EXPECT_EQ(g.head_dim, c.head_dim);
    EXPECT_EQ(g.rotary_dim, c.rotary_dim);
    EXPECT_EQ(g.model.rope.rotary_dim(), c.rotary_dim);
  }
}

TEST(GgufConfig, SectionsSwaBaseAndScalingKeys) {
  const GgufModel vl = read_gguf_model(path("qwen2-vl-7b.gguf"));
  EXPECT_EQ(vl.sections, (std::vector<long>{16, 24, 24, 0}));
  const GgufModel gemma = read_gguf_model(path("gemma-3-4b.gguf"));
  EXPECT_EQ(gemma.freq_base_swa, 10000.0);
  EXPECT_EQ(gemma.sliding_window, 1024);
  EXPECT_EQ(gemma.model.rope.type, ScalingType::Linear);
  EXPECT_EQ(gemma.model.rope.factor, 8.0);
  const GgufModel oss = read_gguf_model(path("gpt-oss-20b.gguf"));
  EXPECT_EQ(oss.model.rope.type, ScalingType::Yarn);
  EXPECT_EQ(oss.model.rope.factor, 32.0);
  EXPECT_EQ(oss.model.rope.original_max_position_embeddings, 4096);
  EXPECT_EQ(oss.model.rope.base, 150000.0);
  // DeepSeek: yarn_log_multiplier 0.1 = 0.1·mscale_all_dim.
  const GgufModel ds = read_gguf_model(path("deepseek-v3.gguf"));
  EXPECT_EQ(ds.model.rope.mscale_all_dim, 1.0);
  EXPECT_EQ(ds.model.rope.mscale, 1.0);
  // The legacy key scale_linear (ggml docs/gguf.md) without scaling.type: llama.cpp's default type linear.
  const GgufModel legacy = read_gguf_model(path("llama-2-7b-linear.gguf"));
  EXPECT_EQ(legacy.model.rope.type, ScalingType::Linear);
  EXPECT_EQ(legacy.model.rope.factor, 4.0);
  EXPECT_THAT(english(legacy.model.origin), Contains("factor: 4 (llama.rope.scale_linear)"));
  // rope_freqs of all ones: no scaling.
  const GgufModel ones = read_gguf_model(path("llama-2-7b-be.gguf"));
  EXPECT_EQ(ones.model.rope.type, ScalingType::Default);
  EXPECT_EQ(ones.rope_freqs_difference, 0.0);
  // Phi-3: the lists from the tensors, the attention factor from the key.
  const GgufModel phi = read_gguf_model(path("phi-3-mini-128k.gguf"));
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
      {"bad-sections.gguf", "qwen2vl.rope.dimension_sections: the sections [16, 24, 20, 0] add up to 60, not rotary_dim / 2 = 64"},
      {"rope-freqs-wrong-length.gguf", "rope_freqs: 63 factors, the rotary dimension 128 has 64 pairs"},
  };
  for (const auto& c : cases) {
    const std::string file = c.first;  // a plain variable: clang 14 cannot capture a structured binding
    SCOPED_TRACE(file);
    EXPECT_THAT([&] { read_gguf_model(path(file)); }, ThrowsMessage<InvalidArgument>(HasSubstr(path(file) + ": " + c.second)));
  }
}

TEST(GgufConfig, ReadModelFileTellsGgufByItsMagic) {
  const std::string json = std::string(ROPE_REFERENCE_DIR) + "/../../data/models/llama-2-7b.json";
  EXPECT_EQ(read_model_file(json).rope.base, 10000.0);
  const auto renamed = std::filesystem::temp_directory_path() / ("rope-gguf-" + std::to_string(::getpid()) + ".json");
  std::filesystem::copy_file(path("qwen2.5-7b.gguf"), renamed, std::filesystem::copy_options::overwrite_existing);
  const ModelConfig m = read_model_file(renamed.string());
  std::filesystem::remove(renamed);
  EXPECT_EQ(m.model_type, "qwen2");
  EXPECT_EQ(m.rope.base, 1e6);
}

TEST(GgufConfig, AttentionShapeFromGgufAndConfigJson) {
  const AttentionShape g = read_attention_shape(path("llama-3.1-8b.gguf"));
  EXPECT_TRUE(g.gguf);
  EXPECT_EQ(g.n_head, 32);
  EXPECT_EQ(g.n_head_kv, 8);
  // Llama 2 7B's config.json has no num_key_value_heads: HF's default, one KV head per query head.
  const AttentionShape j = read_attention_shape(std::string(ROPE_REFERENCE_DIR) + "/../../data/models/llama-2-7b.json");
  EXPECT_FALSE(j.gguf);
  EXPECT_EQ(j.n_head, 32);
  EXPECT_EQ(j.n_head_kv, 32);
  EXPECT_THAT([] { read_attention_shape(path("mamba.gguf")); }, ThrowsMessage<InvalidArgument>(HasSubstr("no RoPE")));
}

TEST(GgufConfig, ArchitectureTable) {
  std::set<std::string_view> names;
  int tested = 0;
  for (const GgufArchitecture& a : gguf_architectures()) {
    EXPECT_TRUE(names.insert(a.name).second) << a.name;
    tested += a.tested ? 1 : 0;
  }
  EXPECT_EQ(tested, 12);  // the architectures of write_gguf.py's files, mamba (no RoPE) included
  EXPECT_EQ(to_string(GgufRopeType::Imrope), "IMROPE");
}

}  // namespace
}  // namespace rope
