// gguf_config_layers.cpp: the layers llama.cpp gives another RoPE, or none, decided by each architecture's graph
// (ggml-org/llama.cpp at the node-llama-cpp 3.22.1 bundle, commit de3ff815ea7d, src/models/ARCH.cpp; the lines are
// cited in gguf_config_layers.cpp). The files are written by tests/io/write_gguf.py as the converter writes them,
// without a sliding_window_pattern. The conformance tier runs the same architectures through the real libllama.
#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "rope/core/error.hpp"
#include "rope/models/gguf_config.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/scaling.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;

std::string path(const std::string& name) { return std::string(ROPE_GGUF_DIR) + "/" + name; }

/// The layers i < n with f(i).
template <class F>
std::vector<int> layers_where(int n, F f) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    if (f(i)) out.push_back(i);
  }
  return out;
}

std::string notes_of(const ModelConfig& m) {
  std::string all;
  for (const Message& n : m.notes) all += n.in(false) + "\n";
  return all;
}

TEST(GgufLayers, Cohere2TurnsOnlyItsSlidingLayersWithTheGlobalBase) {
  // cohere2.cpp:89: RoPE only where is_swa (il % 4 < 3), with freq_base: rope.freq_base_swa is never used.
  const GgufModel g = read_gguf_model(path("command-r7b.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  const LayerTypeRope& sliding = g.model.layer_types[0];
  const LayerTypeRope& full = g.model.layer_types[1];
  EXPECT_EQ(sliding.name, "sliding_attention");
  EXPECT_TRUE(sliding.rope);
  EXPECT_EQ(sliding.layers, layers_where(32, [](int i) { return i % 4 < 3; }));
  EXPECT_EQ(sliding.config.base, 50000.0);
  EXPECT_EQ(full.name, "full_attention");
  EXPECT_FALSE(full.rope);
  EXPECT_EQ(full.layers, layers_where(32, [](int i) { return i % 4 == 3; }));
  EXPECT_EQ(g.model.layer_type, "sliding_attention");  // the only layers that turn
  EXPECT_EQ(g.model.rope.base, 50000.0);
  EXPECT_THAT(notes_of(g.model), HasSubstr("its graph turns the sliding-window layers with rope.freq_base"));
  EXPECT_EQ(&select_layer_type(g.model, "5"), &g.model.layer_types[0]);
  EXPECT_EQ(&select_layer_type(g.model, "31"), &g.model.layer_types[1]);
}

TEST(GgufLayers, Olmo3SlidingLayersDropTheYarn) {
  // olmo2.cpp:117-131: sliding layers at freq_base with freq_scale 1, ext_factor 0, attn_factor 1.
  const GgufModel g = read_gguf_model(path("olmo-3-7b.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  const LayerTypeRope& sliding = g.model.layer_types[0];
  EXPECT_EQ(sliding.layers, layers_where(32, [](int i) { return i % 4 < 3; }));
  EXPECT_EQ(sliding.config.type, ScalingType::Default);
  EXPECT_EQ(sliding.config.base, 500000.0);
  EXPECT_EQ(g.model.layer_types[1].config.type, ScalingType::Yarn);
  EXPECT_EQ(g.model.layer_type, "full_attention");
  EXPECT_EQ(g.model.rope.type, ScalingType::Yarn);
}

TEST(GgufLayers, Llama4ChunkedLayersAndNopeLayersWithTheTemperature) {
  // llama4.cpp:13-19,143: chunked attention (pattern 4), no RoPE where (il + 1) % 4 == 0, temperature 8192 / 0.1.
  const GgufModel g = read_gguf_model(path("llama-4-scout.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  EXPECT_EQ(g.model.layer_types[0].name, "chunked_attention");
  EXPECT_EQ(g.model.layer_types[1].name, "full_attention");
  EXPECT_FALSE(g.model.layer_types[1].rope);
  EXPECT_EQ(g.model.layer_types[1].layers, layers_where(48, [](int i) { return (i + 1) % 4 == 0; }));
  ASSERT_TRUE(g.model.nope_temperature.has_value());
  EXPECT_DOUBLE_EQ(g.model.nope_temperature->at(8190), 1.0);
  // llama.cpp: log(floor((p + 1) / 8192) + 1) · 0.1 + 1 (src/llama-graph.cpp:167-169).
  EXPECT_DOUBLE_EQ(g.model.nope_temperature->at(8191), std::log(2.0) * 0.1 + 1.0);
  // sliding_window 0: no chunks; n_no_rope_layer_step = 48 leaves layer 47 alone without RoPE.
  const GgufModel n = read_gguf_model(path("llama-4-no-chunks.gguf"));
  ASSERT_EQ(n.model.layer_types.size(), 2u);
  EXPECT_EQ(n.model.layer_types[0].name, "rope");
  EXPECT_EQ(n.model.layer_types[1].name, "nope");
  EXPECT_EQ(n.model.layer_types[1].layers, std::vector<int>{47});
  EXPECT_FALSE(n.model.nope_temperature.has_value());
  EXPECT_THAT(notes_of(n.model), HasSubstr("aborts llama.cpp's first decode"));
}

TEST(GgufLayers, SmallThinkerDenseFirstPattern) {
  // smallthinker.cpp:9,106: load_swa_pattern(ml, 4, true): layer il is full when il % 4 == 0, and has no RoPE.
  const GgufModel g = read_gguf_model(path("smallthinker-21b.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  EXPECT_EQ(g.model.layer_types[0].name, "full_attention");
  EXPECT_FALSE(g.model.layer_types[0].rope);
  EXPECT_EQ(g.model.layer_types[0].layers, layers_where(52, [](int i) { return i % 4 == 0; }));
  EXPECT_EQ(g.model.layer_types[1].name, "sliding_attention");
  EXPECT_EQ(g.model.layer_type, "sliding_attention");
  try {
    select_layer_type(g.model, "52");
    ADD_FAILURE() << "layer 52 of 52 accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("a layer 0 … 51"));
  }
}

TEST(GgufLayers, Exaone4SlidesOnlyWith64Layers) {
  // exaone4.cpp:4-11: the sliding pattern only for 64 layers; then RoPE on the sliding layers only (:111).
  const GgufModel big = read_gguf_model(path("exaone-4-32b.gguf"));
  ASSERT_EQ(big.model.layer_types.size(), 2u);
  EXPECT_FALSE(big.model.layer_types[1].rope);
  EXPECT_EQ(big.model.layer_types[1].layers, layers_where(64, [](int i) { return i % 4 == 3; }));
  const GgufModel small = read_gguf_model(path("exaone-4-1.2b.gguf"));
  EXPECT_TRUE(small.model.layer_types.empty());
}

TEST(GgufLayers, AfmoeNopeLayersWithoutASlidingWindow) {
  // afmoe.cpp:135: n_no_rope_layer_step stays 4 without a sliding window: no RoPE where (il + 1) % 4 == 0.
  const GgufModel g = read_gguf_model(path("afmoe.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  EXPECT_EQ(g.model.layer_types[0].name, "rope");
  EXPECT_EQ(g.model.layer_types[1].name, "nope");
  EXPECT_EQ(g.model.layer_types[1].layers, (std::vector<int>{3, 7}));
}

TEST(GgufLayers, GraniteRopeSwitchAndPattern) {
  // granite-hybrid.cpp:16-20: rope.scaling.finetuned false switches RoPE off in every layer (Granite 4.0-H).
  try {
    read_gguf_model(path("granite-4.0-h.gguf"));
    ADD_FAILURE() << "a Granite without RoPE read as one with";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("granitehybrid.rope.scaling.finetuned: false: llama.cpp applies no RoPE"));
  }
  // granite-swa.cpp:43,211: attention.rope_pattern, 1 = RoPE.
  const GgufModel g = read_gguf_model(path("granite-swa.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  EXPECT_EQ(g.model.layer_types[1].name, "nope");
  EXPECT_EQ(g.model.layer_types[1].layers, std::vector<int>{3});
}

}  // namespace
}  // namespace rope
