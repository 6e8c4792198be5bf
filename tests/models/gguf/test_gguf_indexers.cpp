// gguf_config_indexer.cpp's gguf_indexer: the lightning indexers whose heads are [rope | nope], the layer type
// "indexer" with a rope type of its own and its first channels turning (ggml-org/llama.cpp at the node-llama-cpp 3.22.1
// bundle, commit de3ff815ea7d: src/models/deepseek32.cpp:179-180,226-249, glm-dsa.cpp:5-27,58-66,264-287,
// dots3note.cpp:207-230, qwen4exp.cpp:127-135,626-642,785-788). The files are written by tests/io/write_gguf.py; the
// conformance tier runs the same graphs through the real libllama and ggml's kernels.
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

using test::gguf_path;

/// The resolved RoPE of `file` with --layer-type `type`.
RopeSpec spec_of_type(const std::string& file, const std::string& type) {
  RopeOverrides o;
  o.layer_type = type;
  return resolve_model_rope({"", gguf_path(file)}, o).spec;
}

const LayerTypeRope& indexer_of(const GgufModel& g) {
  const LayerTypeRope& t = g.model.layer_types.back();
  EXPECT_EQ(t.name, "indexer");
  return t;
}

TEST(GgufIndexers, DeepSeek32IndexerIsNeoxOnTheFirstChannelsOfEveryLayer) {
  // deepseek32.cpp:233-248: ggml_rope_ext(indexer_q / indexer_k, n_rot, LLAMA_ROPE_TYPE_NEOX, the model's freq_base,
  // freq_scale, ext_factor, attn_factor) on heads of indexer.key_length, in every layer; :179 "[rope | nope]".
  const GgufModel g = read_gguf_model(gguf_path("deepseek32.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  EXPECT_EQ(g.model.layer_types[0].name, "attention");
  const LayerTypeRope& ix = indexer_of(g);
  EXPECT_EQ(ix.layers, (std::vector<int>{0, 1, 2}));
  ASSERT_TRUE(ix.layout.has_value());
  EXPECT_EQ(*ix.layout, Layout::Half);
  EXPECT_TRUE(ix.first_channels);
  const RopeSpec s = spec_of_type("deepseek32.gguf", "indexer");
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.rotary_dim, 64);
  EXPECT_EQ(s.rotary_offset, 0);
  EXPECT_EQ(s.layout, Layout::Half);
  EXPECT_EQ(s.layout_basis, LayoutBasis::ConfigKey);
  EXPECT_THAT(s.layout_reason.en, ::testing::HasSubstr("NEOX"));
  EXPECT_EQ(s.config.base, 10000.0);
  EXPECT_EQ(s.config.type, ScalingType::Yarn);  // the model's YaRN, as q_pe's
  EXPECT_EQ(s.config.factor, 40.0);
  const RopeSpec a = spec_of_type("deepseek32.gguf", "1");  // a layer index: the attention's q_pe, the last 64 of 192
  EXPECT_EQ(a.rotary_offset, 128);
  EXPECT_EQ(a.layout, Layout::Interleaved);
  EXPECT_EQ(a.params.attention_factor, s.params.attention_factor);
}

TEST(GgufIndexers, GlmDsaIndexerIsNormOnItsFullIndexerLayers) {
  // glm-dsa.cpp:264-287: NORM on the first n_rot channels, only where is_indexer_full(il); without
  // attention.indexer.types every layer when context_length < 1048576 (:58-62), else GLM-5.2's list (:5-27, :64).
  const GgufModel g = read_gguf_model(gguf_path("glm-dsa-indexer.gguf"));
  const LayerTypeRope& ix = indexer_of(g);
  EXPECT_EQ(ix.layers, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(*ix.layout, Layout::Interleaved);
  const RopeSpec s = spec_of_type("glm-dsa-indexer.gguf", "indexer");
  EXPECT_EQ(s.rotary_offset, 0);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.layout, Layout::Interleaved);
  EXPECT_EQ(s.config.base, 1e6);
  const GgufModel g52 = read_gguf_model(gguf_path("glm-5.2.gguf"));
  EXPECT_EQ(indexer_of(g52).layers, (std::vector<int>{0, 1, 2, 6, 10}));
  // The file without the indexer's key_length (llama.cpp requires it): no indexer type.
  EXPECT_TRUE(read_gguf_model(gguf_path("glm-dsa.gguf")).model.layer_types.empty());
}

TEST(GgufIndexers, Dots3noteIndexerIsNeoxOnTheFullLayersAtTheModelsBase) {
  // dots3note.cpp:207-230: `if (!is_swa)`, NEOX, the graph's freq_base (not the sliding layers' freq_base_l).
  const GgufModel g = read_gguf_model(gguf_path("dots3note.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 3u);
  const LayerTypeRope& ix = indexer_of(g);
  EXPECT_EQ(ix.layers, (std::vector<int>{0}));
  const RopeSpec s = spec_of_type("dots3note.gguf", "indexer");
  EXPECT_EQ(s.rotary_offset, 0);
  EXPECT_EQ(s.layout, Layout::Half);
  EXPECT_EQ(s.config.base, 5e6);
  EXPECT_EQ(s.config.type, ScalingType::Yarn);
  EXPECT_EQ(spec_of_type("dots3note.gguf", "0").rotary_offset, 128);  // the full layer's own MLA head
}

TEST(GgufIndexers, Qwen4ExpIndexerOnFullLayersWithACompressRatio) {
  // qwen4exp.cpp:127-135: layers 3 and 7 of 8 are full attention (full_attention_interval 4), the others linear
  // attention without RoPE; :785-788 the indexer where compress_ratios[il] > 0: layer 7 (layer 3's ratio is 0);
  // :626-642 IMROPE with the model's sections on heads of indexer.key_length, the first n_rot channels.
  const GgufModel g = read_gguf_model(gguf_path("qwen4exp.gguf"));
  ASSERT_EQ(g.model.layer_types.size(), 3u);
  EXPECT_EQ(g.model.layer_types[0].name, "full_attention");
  EXPECT_EQ(g.model.layer_types[0].layers, (std::vector<int>{3, 7}));
  EXPECT_EQ(g.model.layer_types[1].name, "linear_attention");
  EXPECT_FALSE(g.model.layer_types[1].rope);
  const LayerTypeRope& ix = indexer_of(g);
  EXPECT_EQ(ix.layers, (std::vector<int>{7}));
  EXPECT_FALSE(ix.layout.has_value());  // the model's IMROPE
  const RopeSpec s = spec_of_type("qwen4exp.gguf", "indexer");
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.rotary_dim, 64);
  EXPECT_EQ(s.rotary_offset, 0);
  EXPECT_TRUE(s.axes.has_value());
  EXPECT_THROW(spec_of_type("qwen4exp.gguf", "linear_attention"), InvalidArgument);
  // attention.recurrent_layers lists them; without compress_ratios no layer has the indexer (qwen4exp.cpp:785-788).
  const GgufModel dense = read_gguf_model(gguf_path("qwen4exp-dense.gguf"));
  ASSERT_EQ(dense.model.layer_types.size(), 2u);
  EXPECT_EQ(dense.model.layer_types[0].layers, (std::vector<int>{2, 5}));
  EXPECT_EQ(dense.model.layer_types[1].layers, (std::vector<int>{0, 1, 3, 4}));
  EXPECT_THROW(select_layer_type(dense.model, "indexer"), InvalidArgument);
}

/// The layer types' layers of a GGUF file: {full_attention, linear_attention}.
void expect_linear_attention(const std::string& file, const std::vector<int>& full, const std::vector<int>& linear) {
  SCOPED_TRACE(file);
  const GgufModel g = read_gguf_model(gguf_path(file));
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  EXPECT_EQ(g.model.layer_types[0].name, "full_attention");
  EXPECT_TRUE(g.model.layer_types[0].rope);
  EXPECT_EQ(g.model.layer_types[0].layers, full);
  EXPECT_EQ(g.model.layer_types[1].name, "linear_attention");
  EXPECT_FALSE(g.model.layer_types[1].rope);
  EXPECT_EQ(g.model.layer_types[1].layers, linear);
  EXPECT_EQ(g.model.layer_type, "full_attention");
  EXPECT_THROW(spec_of_type(file, "linear_attention"), InvalidArgument);
  EXPECT_THROW(spec_of_type(file, std::to_string(linear.front())), InvalidArgument);
  EXPECT_EQ(spec_of_type(file, std::to_string(full.front())).rotary_dim, 64);
}

TEST(GgufLinearAttention, HybridsTurnOnlyTheirFullAttentionLayers) {
  // qwen35.cpp:15-23: without attention.recurrent_layers all but every full_attention_interval-th layer (4) of the
  // trunk; the MTP layer 8 (nextn_predict_layers 1) is past the trunk. :166-171 the recurrent layers run the gated
  // delta net, the others build_layer_attn with IMROPE (:296-308).
  expect_linear_attention("qwen35.gguf", {3, 7}, {0, 1, 2, 4, 5, 6});
  EXPECT_TRUE(spec_of_type("qwen35.gguf", "full_attention").axes.has_value());
  // qwen35moe.cpp:18-26 with full_attention_interval 3.
  expect_linear_attention("qwen35moe.gguf", {2, 5}, {0, 1, 3, 4});
  // qwen3next.cpp:16-23: attention.recurrent_layers lists them (NEOX, :278-287).
  expect_linear_attention("qwen3next.gguf", {1, 4}, {0, 2, 3});
  // minimax-01.cpp:11-17: its default interval is 8 (:252-278 RoPE on the softmax-attention layers only).
  expect_linear_attention("minimax-01.gguf", {7, 15}, {0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14});
  // Every layer linear: no RoPE anywhere; an interval of 0: (i + 1) % 0 in llama.cpp's loader. Both refused.
  EXPECT_THAT([] { read_gguf_model(gguf_path("qwen3next-all-linear.gguf")); },
              testing::ThrowsMessage<InvalidArgument>(testing::HasSubstr("every layer is linear attention")));
  EXPECT_THAT([] { read_gguf_model(gguf_path("qwen35-interval-0.gguf")); },
              testing::ThrowsMessage<InvalidArgument>(
                  testing::HasSubstr("qwen35.full_attention_interval: must be greater than zero")));
}

TEST(GgufHeads, LayersWithoutKeyValueHeadsHaveNoRope) {
  // LFM2 (src/models/lfm2.cpp:12): is_recr(il) = n_head_kv(il) == 0, the short-convolution layers, without attention;
  // head_count_kv is read one per layer (src/llama-model.cpp:1336, get_key_or_arr).
  const GgufModel g = read_gguf_model(gguf_path("lfm2.gguf"));
  EXPECT_EQ(g.n_head, 32);
  EXPECT_EQ(g.n_head_kv, 8);  // the attention layers' shape
  EXPECT_EQ(g.head_dim, 64);  // 2048 / 32
  ASSERT_EQ(g.model.layer_types.size(), 2u);
  EXPECT_EQ(g.model.layer_types[0].name, "attention");
  EXPECT_EQ(g.model.layer_types[0].layers, (std::vector<int>{2, 5}));
  EXPECT_TRUE(g.model.layer_types[0].rope);
  EXPECT_EQ(g.model.layer_types[1].name, "no_attention");
  EXPECT_EQ(g.model.layer_types[1].layers, (std::vector<int>{0, 1, 3, 4}));
  EXPECT_FALSE(g.model.layer_types[1].rope);
  EXPECT_THAT(g.model.layer_types[1].from.en, ::testing::HasSubstr("lfm2.attention.head_count_kv is 0 there"));
  EXPECT_EQ(spec_of_type("lfm2.gguf", "5").config.base, 1e6);
  EXPECT_THAT([] { (void)spec_of_type("lfm2.gguf", "1"); },
              testing::ThrowsMessage<InvalidArgument>(testing::HasSubstr("have no RoPE")));
  // An array of another length than block_count: llama.cpp refuses it ("wrong array length"), and so does rope.
  EXPECT_THAT([] { (void)read_gguf_model(gguf_path("lfm2-short-array.gguf")); },
              testing::ThrowsMessage<InvalidArgument>(testing::HasSubstr(
                  "lfm2.attention.head_count_kv: expected an array of 6 whole numbers, one per layer")));
}

}  // namespace
}  // namespace rope
