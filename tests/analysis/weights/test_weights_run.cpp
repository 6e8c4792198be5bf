// rope weights as one call (analysis/weights/weights_run.hpp) on the checkpoints of tests/reference/weights/, written
// by NumPy and llama.cpp's own code (tests/reference/weights.py: the converter's LlamaModel.permute, gguf-py's writer
// and quantizer, ggml's ggml_quantize_chunk): every case named with its map, its residuals and the engine's
// expectation.
#include "rope/analysis/weights/weights_run.hpp"

#include <cmath>
#include <cstring>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits>
#include <random>

#include "rope/core/error.hpp"
#include "support/cli_harness.hpp"
#include "support/shared.hpp"
#include "support/temp_dir_test.hpp"

namespace rope {
namespace {

using RunMap = WeightMap;

std::string weights_path(const std::string& name) {
  return std::string(ROPE_REFERENCE_DIR) + "/../../data/weights/" + name;
}

struct RunCase {
  const char* name;
  const char* reference;
  const char* candidate;
  RunMap expected;  ///< what the candidate's engine expects
  RunMap q, k;      ///< the maps found
  bool passed;
  /// The largest residual of the best map: 0 for bit-equal copies, float16's and the quantizers' error otherwise.
  double max_residual;
};

class WeightsRunCases : public ::testing::TestWithParam<RunCase> {};

TEST_P(WeightsRunCases, NamesTheMapAndTheExpectation) {
  const RunCase& c = GetParam();
  const WeightsRun run = run_weights({weights_path(c.reference), weights_path(c.candidate), "", {}, 0, false});
  EXPECT_EQ(run.expected, c.expected);
  EXPECT_EQ(run.passed(), c.passed);
  ASSERT_FALSE(run.tensors.empty());
  for (const WeightsTensor& t : run.tensors) {
    SCOPED_TRACE(t.name);
    EXPECT_EQ(t.match.map, t.kind == 'q' ? c.q : c.k);
    EXPECT_EQ(t.expected, c.expected);
    EXPECT_LE(t.match.residual, c.max_residual);
    ASSERT_TRUE(t.match.runner_up);
    // The runner-up is a different permutation and at least 10 times worse (quantized copies included).
    EXPECT_GE(t.match.runner_up_residual, 10 * t.match.residual);
    EXPECT_GT(t.match.runner_up_residual, 0.5);
  }
  EXPECT_GE(run.other_tensors, 1);  // the norm, left alone
}

// Residual bounds, measured on these files (N(0, 1/256) weights): between two float16 copies of the same float32
// weights 0; a bias in float16 against float32 2.2e-4 (float16's relative 2^-11); BF16 1.7e-3; Q8_0 5.4e-3; Q6_K
// 1.8e-2; Q4_K 7.2e-2; Q4_0 8.6e-2 (4 bits, one scale per 32 values). Each bound leaves a factor 1.5 or more.
INSTANTIATE_TEST_SUITE_P(
    Files, WeightsRunCases,
    ::testing::Values(
        RunCase{"hf_to_gguf_sharded", "llama-hf", "llama-f16.gguf", RunMap::HfToGguf, RunMap::HfToGguf,
                RunMap::HfToGguf, true, 0},
        RunCase{"gguf_to_hf", "llama-f16.gguf", "llama-hf", RunMap::GgufToHf, RunMap::GgufToHf, RunMap::GgufToHf, true,
                0},
        RunCase{"k_with_query_heads", "llama-hf", "llama-k-query-heads.gguf", RunMap::HfToGguf, RunMap::HfToGguf,
                RunMap::KWithQueryHeads, false, 0},
        RunCase{"twice", "llama-hf", "llama-twice.gguf", RunMap::HfToGguf, RunMap::HfToGgufTwice, RunMap::HfToGgufTwice,
                false, 0},
        RunCase{"missing_on_norm", "llama-hf", "llama-missing.gguf", RunMap::HfToGguf, RunMap::Identity,
                RunMap::Identity, false, 0},
        RunCase{"q8_0", "llama-hf", "llama-q8_0.gguf", RunMap::HfToGguf, RunMap::HfToGguf, RunMap::HfToGguf, true,
                0.01},
        RunCase{"q4_0", "llama-hf", "llama-q4_0.gguf", RunMap::HfToGguf, RunMap::HfToGguf, RunMap::HfToGguf, true, 0.2},
        RunCase{"q4_k_m", "llama-hf", "llama-q4_k_m.gguf", RunMap::HfToGguf, RunMap::HfToGguf, RunMap::HfToGguf, true,
                0.15},
        RunCase{"bf16_f32", "llama-hf", "llama-bf16-f32.gguf", RunMap::HfToGguf, RunMap::HfToGguf, RunMap::HfToGguf,
                true, 0.01},
        RunCase{"gguf_to_gguf_quantized", "llama-f16.gguf", "llama-q4_k_m.gguf", RunMap::Identity, RunMap::Identity,
                RunMap::Identity, true, 0.15},
        // d = 4: hf-to-gguf = gguf-to-hf; the expected name is shown.
        RunCase{"gqa32_d4", "gqa32-hf", "gqa32.gguf", RunMap::HfToGguf, RunMap::HfToGguf, RunMap::HfToGguf, true, 0},
        RunCase{"gqa32_d4_back", "gqa32.gguf", "gqa32-hf", RunMap::GgufToHf, RunMap::GgufToHf, RunMap::GgufToHf, true,
                0},
        // MHA: k permuted with n_head is the converter's own map.
        RunCase{"mha_k_bug_is_the_map", "mha-hf", "mha-k-query-heads.gguf", RunMap::HfToGguf, RunMap::HfToGguf,
                RunMap::HfToGguf, true, 0},
        // Qwen2 is NEOX: no permutation, biases included; the Llama permutation applied to it is wrong.
        RunCase{"qwen2_neox", "qwen2-hf", "qwen2.gguf", RunMap::Identity, RunMap::Identity, RunMap::Identity, true,
                1e-3},
        RunCase{"qwen2_permuted", "qwen2-hf", "qwen2-permuted.gguf", RunMap::Identity, RunMap::HfToGguf,
                RunMap::HfToGguf, false, 1e-3},
        // NORM in llama.cpp but never permuted by its converter (Hugging Face already pairs them interleaved:
        // Llama4Model.undo_permute = False, DeepseekV2Model never permutes): "no permutation" expected, and the
        // Llama permutation applied to them named as the mistake. DeepSeek's k is its MLA kv_a_proj_with_mqa.
        RunCase{"llama4_never_permuted", "llama4-hf", "llama4.gguf", RunMap::Identity, RunMap::Identity,
                RunMap::Identity, true, 0},
        RunCase{"llama4_permuted", "llama4-hf", "llama4-permuted.gguf", RunMap::Identity, RunMap::HfToGguf,
                RunMap::HfToGguf, false, 0},
        RunCase{"deepseek2_never_permuted", "deepseek2-hf", "deepseek2.gguf", RunMap::Identity, RunMap::Identity,
                RunMap::Identity, true, 0},
        RunCase{"deepseek2_q_permuted", "deepseek2-hf", "deepseek2-permuted.gguf", RunMap::Identity, RunMap::HfToGguf,
                RunMap::Identity, false, 0},
        // Phi-3: q, k and v fused on both sides (qkv_proj, attn_qkv), split by the head counts; NEOX: no
        // permutation expected, and the Llama permutation applied to its q and k rows found.
        RunCase{"phi3_fused_qkv", "phi3-hf", "phi3.gguf", RunMap::Identity, RunMap::Identity, RunMap::Identity, true,
                0},
        RunCase{"phi3_fused_qkv_permuted", "phi3-hf", "phi3-permuted.gguf", RunMap::Identity, RunMap::HfToGguf,
                RunMap::HfToGguf, false, 0},
        // query_key_value in each family's own row order on the Hugging Face side (GPT-NeoX per head with biases,
        // Falcon's new decoder per KV group, Falcon-7B's multi-query [q; k; v] by FalconConfig's default, ChatGLM's
        // multi-query groups with biases), split as the family table says; the GGUF side q, k, v stacked as
        // llama.cpp's converter writes them. Both sides pair alike: identity expected. A bias in float16 against
        // float32: 2.2e-4. The "-k-permuted" files: the Llama permutation on k's rows only, named.
        RunCase{"gpt_neox_per_head", "gptneox-hf", "gptneox.gguf", RunMap::Identity, RunMap::Identity, RunMap::Identity,
                true, 5e-4},
        RunCase{"gpt_neox_k_permuted", "gptneox-hf", "gptneox-k-permuted.gguf", RunMap::Identity, RunMap::Identity,
                RunMap::HfToGguf, false, 5e-4},
        RunCase{"falcon_kv_groups", "falcon-hf", "falcon.gguf", RunMap::Identity, RunMap::Identity, RunMap::Identity,
                true, 0},
        RunCase{"falcon_kv_groups_k_permuted", "falcon-hf", "falcon-k-permuted.gguf", RunMap::Identity,
                RunMap::Identity, RunMap::HfToGguf, false, 0},
        RunCase{"falcon_multi_query", "falcon-mq-hf", "falcon-mq.gguf", RunMap::Identity, RunMap::Identity,
                RunMap::Identity, true, 0},
        RunCase{"falcon_multi_query_k_permuted", "falcon-mq-hf", "falcon-mq-k-permuted.gguf", RunMap::Identity,
                RunMap::Identity, RunMap::HfToGguf, false, 0},
        RunCase{"chatglm_multi_query", "chatglm-hf", "chatglm.gguf", RunMap::Identity, RunMap::Identity,
                RunMap::Identity, true, 5e-4},
        RunCase{"chatglm_k_permuted", "chatglm-hf", "chatglm-k-permuted.gguf", RunMap::Identity, RunMap::Identity,
                RunMap::HfToGguf, false, 5e-4}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(WeightsRun, BiasesAreTheirOwnEntries) {
  const WeightsRun run = run_weights({weights_path("qwen2-hf"), weights_path("qwen2-permuted.gguf"), "", {}, 0, false});
  ASSERT_EQ(run.tensors.size(), 4u);
  EXPECT_EQ(run.tensors[1].name, "blk.0.attn_q.bias");
  EXPECT_TRUE(run.tensors[1].bias);
  EXPECT_EQ(run.tensors[1].match.map, RunMap::HfToGguf);
  EXPECT_EQ(run.tensors[1].reference_name, "model.layers.0.self_attn.q_proj.bias");
}

TEST(WeightsRun, AFusedQkvTensorIsSplitIntoItsQAndKRows) {
  const WeightsRun run = run_weights({weights_path("phi3-hf"), weights_path("phi3-permuted.gguf"), "", {}, 0, false});
  ASSERT_EQ(run.tensors.size(), 2u);
  for (const WeightsTensor& t : run.tensors) {
    EXPECT_EQ(t.name, "blk.0.attn_qkv.weight");
    EXPECT_EQ(t.reference_name, "model.layers.0.self_attn.qkv_proj.weight");
  }
  EXPECT_EQ(run.tensors[0].kind, 'q');
  EXPECT_EQ(run.tensors[0].rows, 8 * 16);  // 8 query heads of 16 rows, then 2 KV heads' k, then v (left alone)
  EXPECT_EQ(run.tensors[1].kind, 'k');
  EXPECT_EQ(run.tensors[1].rows, 2 * 16);
  EXPECT_EQ(run.other_tensors, 1);  // the norm
}

// The rows each family's split takes: q and k of the fused tensor, their KV heads from the family's keys.
TEST(WeightsRun, AQueryKeyValueIsSplitAsItsFamilysCodeSplitsIt) {
  const WeightsRun run = run_weights({weights_path("falcon-mq-hf"), weights_path("falcon-mq.gguf"), "", {}, 0, false});
  ASSERT_EQ(run.tensors.size(), 2u);
  EXPECT_EQ(run.tensors[0].reference_name, "transformer.h.0.self_attention.query_key_value.weight");
  EXPECT_EQ(run.tensors[0].rows, 8 * 16);
  EXPECT_EQ(run.tensors[1].rows, 16);  // multi_query: one k head, whatever num_attention_heads
  ASSERT_TRUE(run.reference.fused);
  EXPECT_EQ(run.reference.fused->layout, FusedQkvLayout::Stacked);
  EXPECT_EQ(run.reference.fused->rule, "multi_query");
  EXPECT_EQ(run.reference.n_head_kv, 1);
  EXPECT_FALSE(run.candidate.fused);
  const WeightsRun groups = run_weights({weights_path("falcon-hf"), weights_path("falcon.gguf"), "", {}, 0, false});
  ASSERT_TRUE(groups.reference.fused);
  EXPECT_EQ(groups.reference.fused->layout, FusedQkvLayout::KvGroups);
  EXPECT_EQ(groups.reference.n_head_kv, 2);
}

TEST(WeightsRun, AQueryKeyValueWithoutItsFamilysOrderIsRefusedByName) {
  try {
    run_weights({weights_path("fused-unknown-hf"), weights_path("llama-f16.gguf"), "", {}, 0, false});
    FAIL() << "not refused";
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("tensor 'model.layers.0.self_attn.query_key_value.weight' holds q, k "
                                               "and v fused, and the family table has no order of its rows for llama "
                                               "(fused_qkv)"));
  }
}

TEST(WeightsRun, SidesSayTheirModel) {
  const WeightsRun run = run_weights({weights_path("llama-hf"), weights_path("llama-q4_k_m.gguf"), "", {}, 0, false});
  EXPECT_FALSE(run.reference.gguf);
  EXPECT_TRUE(run.candidate.gguf);
  EXPECT_EQ(run.reference.model, "llama");
  EXPECT_EQ(run.reference.layout, Layout::Half);
  EXPECT_EQ(run.candidate.layout, Layout::Interleaved);
  EXPECT_EQ(run.candidate.n_head, 8);
  EXPECT_EQ(run.candidate.n_head_kv, 2);
  EXPECT_EQ(run.candidate.dtypes, (std::vector<std::string>{"Q4_K", "Q6_K"}));
}

TEST(WeightsRun, HeatMapOfOneHeadBlock) {
  WeightsRequest r{weights_path("llama-hf"), weights_path("llama-f16.gguf"), "", 0, 1, false};
  const WeightsRun run = run_weights(r);
  ASSERT_TRUE(run.heatmap);
  EXPECT_EQ(run.heatmap->rows(), 16);
  EXPECT_EQ(run.heatmap_tensor, "blk.0.attn_q.weight");
  // Candidate row 2j + s is reference row s·8 + j: correlation 1 there.
  for (long j = 0; j < 8; ++j) {
    EXPECT_NEAR((*run.heatmap)(2 * j, j), 1.0, 1e-6);
    EXPECT_NEAR((*run.heatmap)(2 * j + 1, 8 + j), 1.0, 1e-6);
  }
  r.heatmap_head = 8;
  EXPECT_THROW(run_weights(r), InvalidArgument);
}

TEST(WeightsRun, ShapesThatDifferAreRefused) {
  EXPECT_THROW(run_weights({weights_path("llama-hf"), weights_path("mha-k-query-heads.gguf"), "", {}, 0, false}),
               InvalidArgument);
}

// Checkpoints written here: a Hugging Face directory of one layer (2 heads of d = 8, width 16) whose q and k are
// `q` and `k` (16 × 16 float32 each), so that a candidate can hold what no map explains.
class WeightsUnexplained : public test::TempDirTest {
 protected:
  std::string checkpoint(const std::string& name, const std::vector<float>& q, const std::vector<float>& k) {
    std::filesystem::create_directories(path(name));
    std::ofstream(path(name + "/config.json"))
        << R"({"model_type": "llama", "hidden_size": 16, "num_attention_heads": 2, "num_key_value_heads": 2, )"
        << R"("head_dim": 8, "num_hidden_layers": 1, "rope_theta": 10000.0})";
    const std::string json =
        R"({"model.layers.0.self_attn.q_proj.weight": {"dtype": "F32", "shape": [16, 16], "data_offsets": [0, 1024]}, )"
        R"("model.layers.0.self_attn.k_proj.weight": {"dtype": "F32", "shape": [16, 16], "data_offsets": [1024, 2048]}})";
    std::string data(2048, '\0');
    std::memcpy(data.data(), q.data(), 1024);
    std::memcpy(data.data() + 1024, k.data(), 1024);
    std::ofstream(path(name + "/model.safetensors"), std::ios::binary) << test::le(json.size(), 8) << json << data;
    return path(name);
  }
  static std::vector<float> normal(unsigned seed) {
    std::mt19937 g(seed);
    std::normal_distribution<float> n(0.0f, 0.0625f);
    std::vector<float> v(256);
    for (float& x : v) x = n(g);
    return v;
  }
};

TEST_F(WeightsUnexplained, TheSameWeightsPass) {
  const WeightsRun run = run_weights(
      {checkpoint("ref", normal(1), normal(2)), checkpoint("cand", normal(1), normal(2)), "", {}, 0, false});
  EXPECT_TRUE(run.passed());
  for (const WeightsTensor& t : run.tensors) EXPECT_TRUE(t.match.explained) << t.name;
}

// Unrelated weights of the same scale: every map leaves a residual near √2, the best map explains nothing.
TEST_F(WeightsUnexplained, UnrelatedWeightsDoNotPass) {
  const WeightsRun run = run_weights(
      {checkpoint("ref", normal(1), normal(2)), checkpoint("cand", normal(3), normal(4)), "", {}, 0, false});
  EXPECT_FALSE(run.passed());
  ASSERT_EQ(run.tensors.size(), 2u);
  for (const WeightsTensor& t : run.tensors) {
    EXPECT_FALSE(t.match.explained) << t.name;
    EXPECT_FALSE(t.ok()) << t.name;
    EXPECT_GT(t.match.residual, kWeightResidualBound) << t.name;
  }
}

// All zeros on both sides: every map's residual is 0, so no map is told from the runner-up.
TEST_F(WeightsUnexplained, AllZerosDoNotPass) {
  const std::vector<float> zeros(256, 0.0f);
  const WeightsRun run =
      run_weights({checkpoint("ref", zeros, zeros), checkpoint("cand", zeros, zeros), "", {}, 0, false});
  EXPECT_FALSE(run.passed());
  for (const WeightsTensor& t : run.tensors) {
    EXPECT_EQ(t.match.residual, 0.0) << t.name;
    EXPECT_FALSE(t.match.explained) << t.name;
  }
}

struct NonFiniteCase {
  const char* name;
  float value;
  const char* shown;
};

class WeightsNonFinite : public WeightsUnexplained, public ::testing::WithParamInterface<NonFiniteCase> {};

// A NaN or an infinity in a q/k tensor is refused naming the file, the tensor and the element (all NaN: the first).
TEST_P(WeightsNonFinite, RefusedNamingTensorAndElement) {
  const NonFiniteCase& c = GetParam();
  std::vector<float> k = normal(2);
  k[37] = c.value;
  const std::string ref = checkpoint("ref", normal(1), normal(2));
  const std::string cand = checkpoint("cand", normal(1), k);
  try {
    run_weights({ref, cand, "", {}, 0, false});
    ADD_FAILURE() << "not refused";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()), cand +
                                         "/model.safetensors: model.layers.0.self_attn.k_proj.weight holds a value "
                                         "that is not a finite number (" +
                                         c.shown + " at element 37)");
  }
  const std::vector<float> nan(256, std::numeric_limits<float>::quiet_NaN());
  EXPECT_THROW(run_weights({ref, checkpoint("nan", nan, nan), "", {}, 0, false}), InvalidArgument);
  EXPECT_THROW(run_weights({checkpoint("nan_ref", nan, nan), cand, "", {}, 0, false}), InvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Values, WeightsNonFinite,
                         ::testing::Values(NonFiniteCase{"nan", std::numeric_limits<float>::quiet_NaN(), "nan"},
                                           NonFiniteCase{"inf", std::numeric_limits<float>::infinity(), "inf"},
                                           NonFiniteCase{"minus_inf", -std::numeric_limits<float>::infinity(), "-inf"}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace rope
