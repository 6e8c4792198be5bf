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
#include "rope/models/gguf/gguf_config.hpp"
#include "rope/models/layer_types.hpp"
#include "rope/models/resolve.hpp"
#include "rope/models/scaling/scaling.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;

using test::gguf_path;

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
  for (const Message& n : m.notes) all += n.in(Lang::En) + "\n";
  return all;
}

TEST(GgufLayers, Cohere2TurnsOnlyItsSlidingLayersWithTheGlobalBase) {
  // cohere2.cpp:89: RoPE only where is_swa (il % 4 < 3), with freq_base: rope.freq_base_swa is never used.
  const GgufModel g = read_gguf_model(gguf_path("command-r7b.gguf"));
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
  const GgufModel g = read_gguf_model(gguf_path("olmo-3-7b.gguf"));
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
  const GgufModel g = read_gguf_model(gguf_path("llama-4-scout.gguf"));
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
  const GgufModel n = read_gguf_model(gguf_path("llama-4-no-chunks.gguf"));
  ASSERT_EQ(n.model.layer_types.size(), 2u);
  EXPECT_EQ(n.model.layer_types[0].name, "rope");
  EXPECT_EQ(n.model.layer_types[1].name, "nope");
  EXPECT_EQ(n.model.layer_types[1].layers, std::vector<int>{47});
  EXPECT_FALSE(n.model.nope_temperature.has_value());
  EXPECT_THAT(notes_of(n.model), HasSubstr("aborts llama.cpp's first decode"));
}

TEST(GgufLayers, SmallThinkerDenseFirstPattern) {
  // smallthinker.cpp:9,106: load_swa_pattern(ml, 4, true): layer il is full when il % 4 == 0, and has no RoPE.
  const GgufModel g = read_gguf_model(gguf_path("smallthinker-21b.gguf"));
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
  const GgufModel big = read_gguf_model(gguf_path("exaone-4-32b.gguf"));
  ASSERT_EQ(big.model.layer_types.size(), 2u);
  EXPECT_FALSE(big.model.layer_types[1].rope);
  EXPECT_EQ(big.model.layer_types[1].layers, layers_where(64, [](int i) { return i % 4 == 3; }));
  const GgufModel small = read_gguf_model(gguf_path("exaone-4-1.2b.gguf"));
  EXPECT_TRUE(small.model.layer_types.empty());
}

TEST(GgufLayers, AfmoeNopeLayersWithoutASlidingWindow) {
  // afmoe.cpp:135: n_no_rope_layer_step stays 4 without a sliding window: no RoPE where (il + 1) % 4 == 0.
  const GgufModel g = read_gguf_model(gguf_path("afmoe.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  EXPECT_EQ(g.model.layer_types[0].name, "rope");
  EXPECT_EQ(g.model.layer_types[1].name, "nope");
  EXPECT_EQ(g.model.layer_types[1].layers, (std::vector<int>{3, 7}));
}

TEST(GgufLayers, GraniteRopeSwitchAndPattern) {
  // granite-hybrid.cpp:16-20: rope.scaling.finetuned false switches RoPE off in every layer (Granite 4.0-H).
  try {
    read_gguf_model(gguf_path("granite-4.0-h.gguf"));
    ADD_FAILURE() << "a Granite without RoPE read as one with";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("granitehybrid.rope.scaling.finetuned: false: llama.cpp applies no RoPE"));
  }
  // granite-swa.cpp:43,211: attention.rope_pattern, 1 = RoPE.
  const GgufModel g = read_gguf_model(gguf_path("granite-swa.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  EXPECT_EQ(g.model.layer_types[1].name, "nope");
  EXPECT_EQ(g.model.layer_types[1].layers, std::vector<int>{3});
}

TEST(GgufLayers, Step35FullLayersRotateHalfTheSlidingOnesTheWhole) {
  // step35.cpp:9 halves n_rot_full after n_rot_swa took it (llama-model.cpp:1400,1411); :244-255 the sliding layers
  // at rope.freq_base_swa unscaled without rope_freqs, the full ones with the first n_rot / 4 factors of it.
  const GgufModel g = read_gguf_model(gguf_path("step-3.5.gguf"));
  EXPECT_EQ(g.rotary_dim, 64);
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  const LayerTypeRope& full = g.model.layer_types[0];
  const LayerTypeRope& sliding = g.model.layer_types[1];
  EXPECT_EQ(full.name, "full_attention");
  EXPECT_EQ(full.layers, (std::vector<int>{0, 4}));
  EXPECT_EQ(full.config.base, 5e6);
  EXPECT_EQ(full.config.rotary_dim(), 64);
  EXPECT_EQ(sliding.layers, (std::vector<int>{1, 2, 3, 5, 6, 7}));
  EXPECT_EQ(sliding.config.base, 10000.0);
  EXPECT_EQ(sliding.config.rotary_dim(), 128);
  EXPECT_EQ(sliding.config.type, ScalingType::Default);
  EXPECT_EQ(g.model.layer_type, "full_attention");
  EXPECT_EQ(g.rope_freqs.size(), 32u);  // the first 32 of the file's 64 factors
}

TEST(GgufLayers, Spark25SlidingLayersOwnHeadsWithTheScaling) {
  // spark2-5.cpp:8-12,76-87: the listed sliding layers with key_length_swa, n_rot(il), rope.freq_base_swa, scaled.
  const GgufModel g = read_gguf_model(gguf_path("spark-2.5.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  const LayerTypeRope& sliding = g.model.layer_types[0];
  EXPECT_EQ(sliding.layers, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(sliding.config.head_dim, 64);
  EXPECT_EQ(sliding.config.rotary_dim(), 64);
  EXPECT_EQ(sliding.config.base, 10000.0);
  EXPECT_EQ(sliding.config.type, ScalingType::Linear);
  EXPECT_EQ(sliding.config.factor, 2.0);
  EXPECT_EQ(g.model.layer_types[1].config.head_dim, 128);
  EXPECT_EQ(g.model.layer_types[1].config.base, 1e6);
}

TEST(GgufLayers, Dots3noteMlaHeadsPerKindRotateTheirLastChannels) {
  // dots3note.cpp:23-34: key_length_mla 192 on full layers, key_length_mla_swa 128 on sliding ones; q_pe/k_pe are
  // the last 64 channels of either (:309-339); sliding layers at rope.freq_base_swa with the model's YaRN.
  const GgufModel g = read_gguf_model(gguf_path("dots3note.gguf"));
  EXPECT_EQ(g.head_dim, 192);
  EXPECT_EQ(g.model.qk_nope_head_dim, 128);
  ASSERT_EQ(g.model.layer_types.size(), 3u);  // and its indexer (test_gguf_indexers.cpp)
  EXPECT_EQ(g.model.layer_types[1].config.head_dim, 128);
  EXPECT_EQ(g.model.layer_types[1].config.base, 10000.0);
  EXPECT_EQ(g.model.layer_types[1].config.type, ScalingType::Yarn);
  const ModelRope r = resolve_model_rope({"", gguf_path("dots3note.gguf")}, {});
  ASSERT_EQ(r.layers.size(), 3u);
  ASSERT_TRUE(r.layers[0].spec && r.layers[1].spec);
  EXPECT_EQ(r.layers[0].spec->head_dim, 192);
  EXPECT_EQ(r.layers[0].spec->rotary_offset, 128);
  EXPECT_EQ(r.layers[1].spec->head_dim, 128);
  EXPECT_EQ(r.layers[1].spec->rotary_offset, 64);
  EXPECT_EQ(r.layers[1].spec->rotary_dim, 64);
}

TEST(GgufLayers, HyV4IndexerTurnsTheLastChannelsWithTheModelsRope) {
  // hy-v4.cpp:342-375: build_indexer_top_k turns iq and ik with the model's rope_type, n_rot and base, then
  // ggml_rope_set_offset(n_embd_indexer − n_rot): the last 64 of 128 channels; only on the layers whose
  // attention.indexer.types entry is not 0 (:439-440), the others reuse the top-k of the previous one.
  const GgufModel g = read_gguf_model(gguf_path("hy-v4.gguf"));
  EXPECT_EQ(g.rope_type, GgufRopeType::Norm);
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  EXPECT_EQ(g.model.layer_types[0].name, "attention");
  EXPECT_EQ(g.model.layer_types[0].layers, (std::vector<int>{0, 1, 2, 3}));
  const LayerTypeRope& indexer = g.model.layer_types[1];
  EXPECT_EQ(indexer.name, "indexer");
  EXPECT_EQ(indexer.layers, (std::vector<int>{0, 2}));
  EXPECT_EQ(indexer.config.head_dim, 128);
  EXPECT_EQ(indexer.config.rotary_dim(), 64);
  EXPECT_EQ(indexer.config.base, 10000.0);
  EXPECT_EQ(select_layer_type(g.model, "2").name, "attention");  // an index selects the attention
  const ModelRope r = resolve_model_rope({"", gguf_path("hy-v4.gguf")}, {});
  ASSERT_EQ(r.layers.size(), 2u);
  ASSERT_TRUE(r.layers[0].spec && r.layers[1].spec);
  EXPECT_EQ(r.layers[0].spec->head_dim, 192);  // key_length_mla: 128 without position, the last 64 turn
  EXPECT_EQ(r.layers[0].spec->rotary_offset, 128);
  EXPECT_EQ(r.layers[1].spec->head_dim, 128);
  EXPECT_EQ(r.layers[1].spec->rotary_offset, 64);
  EXPECT_EQ(r.layers[1].spec->rotary_dim, 64);
  EXPECT_EQ(r.layers[1].spec->layout, Layout::Interleaved);  // NORM, the model's
}

TEST(GgufLayers, DeepSeek4IndexerHeadsSelectedByName) {
  // deepseek4.cpp:609-616, 1055-1068, 1189-1194: the lightning indexer of the ratio-4 layers turns the last 64 channels
  // of its 128-channel heads as the compressed layers do; an index still selects the layer's own type.
  const GgufModel g = read_gguf_model(gguf_path("deepseek-v4.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 3u);
  const LayerTypeRope& indexer = g.model.layer_types[2];
  EXPECT_EQ(indexer.name, "indexer");
  EXPECT_EQ(indexer.layers, (std::vector<int>{2, 4}));
  EXPECT_EQ(indexer.config.head_dim, 128);
  EXPECT_EQ(indexer.config.rotary_dim(), 64);
  EXPECT_EQ(indexer.config.base, 160000.0);
  EXPECT_EQ(select_layer_type(g.model, "2").name, "compressed_attention");
  const ModelRope r = resolve_model_rope({"", gguf_path("deepseek-v4.gguf")}, {});
  ASSERT_EQ(r.layers.size(), 3u);
  ASSERT_TRUE(r.layers[2].spec);
  EXPECT_EQ(r.layers[2].spec->head_dim, 128);
  EXPECT_EQ(r.layers[2].spec->rotary_offset, 64);
  EXPECT_EQ(r.layers[0].spec->rotary_offset, 448);
}

TEST(GgufLayers, HunyuanVlFoldsAlphaIntoTheBaseInFloat32) {
  // hunyuan-vl.cpp:7-12: base = rope.freq_base · alpha^(d/(d − 2)), d the head size, in float32; libllama's RoPE nodes
  // carry 11158844 for these keys (the conformance tier's hunyuan-vl-alpha).
  const GgufModel g = read_gguf_model(gguf_path("hunyuan-vl.gguf"));
  EXPECT_EQ(g.model.rope.base, 11158844.0);
}

TEST(GgufLayers, MlaHeadsOfEveryMlaArchitectureAndTheDsparkDraft) {
  // glm-dsa.cpp:43,379-381: key_length_mla is the head, its last rope.dimension_count channels turn.
  const GgufModel glm = read_gguf_model(gguf_path("glm-dsa.gguf"));
  EXPECT_EQ(glm.head_dim, 256);
  EXPECT_EQ(glm.model.qk_nope_head_dim, 192);
  // dflash.cpp:48-92: the DeepSeek-V4 DSpark draft turns every stage at rope.freq_base unscaled, the last channels.
  const GgufModel ds = read_gguf_model(gguf_path("dflash-dspark.gguf"));
  EXPECT_EQ(ds.rope_type, GgufRopeType::Norm);
  EXPECT_EQ(ds.model.qk_nope_head_dim, 448);
  EXPECT_EQ(ds.model.rope.type, ScalingType::Default);
  EXPECT_EQ(ds.model.rope.base, 10000.0);
  EXPECT_THAT(notes_of(ds.model),
              HasSubstr("turns every stage of a DeepSeek-V4 DSpark draft with rope.freq_base unscaled"));
}

}  // namespace
}  // namespace rope
