// `rope weights` in-process: the wiring (library numbers are tests/analysis/weights/test_weights_run.cpp's), exit
// codes, the JSON keys, the text in both languages, the heat map, and bad input as one line.
#include "rope/cli/cli.hpp"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "rope/report/printing.hpp"

#include "support/cli_harness.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::Result;
using test::rope_cli;
using ::testing::HasSubstr;
using ::testing::Not;

class CmdWeights : public test::TempDirTest {};

std::string weights_cli_path(const std::string& name) {
  return std::string(ROPE_REFERENCE_DIR) + "/../../data/weights/" + name;
}

TEST_F(CmdWeights, ConverterPermutationPasses) {
  const Result r = rope_cli({"weights", weights_cli_path("llama-hf"), weights_cli_path("llama-q4_k_m.gguf")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("the candidate's engine expects: hf-to-gguf"));
  EXPECT_THAT(r.out, HasSubstr("blk.0.attn_q.weight"));
  EXPECT_THAT(r.out, HasSubstr("Q4_K"));
  EXPECT_THAT(r.out, HasSubstr("every q/k tensor (2) has the permutation the candidate's engine expects"));
  EXPECT_EQ(r.err, "");
}

TEST_F(CmdWeights, KBugFailsNamingIt) {
  const Result r = rope_cli({"weights", weights_cli_path("llama-hf"), weights_cli_path("llama-k-query-heads.gguf")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("hf-to-gguf-k-with-query-heads"));
  EXPECT_THAT(r.out, HasSubstr("llama.cpp #2376"));
  EXPECT_THAT(r.out, HasSubstr("WEIGHTS CHECK FAILED"));
}

TEST_F(CmdWeights, FusedQueryKeyValueOfAFamily) {
  // Falcon's new decoder: query_key_value per KV group, split as FalconAttention._split_heads does; its k permuted.
  // The candidate's names are shown: the Hugging Face side as the candidate.
  // Its long name shortened in the middle within 100 columns, whole with --wide.
  Result r = rope_cli({"weights", weights_cli_path("falcon.gguf"), weights_cli_path("falcon-hf")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("transformer.h.0.s…_key_value.weight"));
  r = rope_cli({"weights", weights_cli_path("falcon.gguf"), weights_cli_path("falcon-hf"), "--wide"});
  EXPECT_THAT(r.out, HasSubstr("transformer.h.0.self_attention.query_key_value.weight"));
  r = rope_cli({"weights", weights_cli_path("falcon-hf"), weights_cli_path("falcon-k-permuted.gguf")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("WEIGHTS CHECK FAILED"));
  // A family whose table row says no order of its rows: one line, exit 2, naming the tensor and the rule.
  expect_one_line_error(rope_cli({"weights", weights_cli_path("fused-unknown-hf"), weights_cli_path("llama-f16.gguf")}),
                        2,
                        "'model.layers.0.self_attn.query_key_value.weight' holds q, k and v fused, and the family "
                        "table has no order of its rows for llama (fused_qkv)");
}

TEST_F(CmdWeights, JsonHasTheIssuesKeys) {
  const Result r =
      rope_cli({"weights", weights_cli_path("qwen2-hf"), weights_cli_path("qwen2-permuted.gguf"), "--json"});
  EXPECT_EQ(r.code, 1);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["passed"].get<bool>());
  ASSERT_EQ(j["tensors"].size(), 4u);
  const auto& t = j["tensors"][1];
  for (const char* key : {"name", "reference_name", "layer", "kind", "bias", "map", "expected", "ok", "residual",
                          "runner_up", "runner_up_residual"})
    EXPECT_TRUE(t.contains(key)) << key;
  EXPECT_EQ(t["name"], "blk.0.attn_q.bias");
  EXPECT_EQ(t["kind"], "q");
  EXPECT_TRUE(t["bias"].get<bool>());
  EXPECT_EQ(t["map"], "hf-to-gguf");
  EXPECT_EQ(t["expected"], "identity");
  EXPECT_FALSE(t["ok"].get<bool>());
  EXPECT_EQ(t["layer"], 0);
}

TEST_F(CmdWeights, CoincidingMapsSaidOnce) {
  const Result r = rope_cli({"weights", weights_cli_path("gqa32-hf"), weights_cli_path("gqa32.gguf")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("hf-to-gguf = gguf-to-hf: at this shape (head block of 4 rows)"));
}

TEST_F(CmdWeights, Chinese) {
  const Result r =
      rope_cli({"weights", weights_cli_path("llama-hf"), weights_cli_path("llama-twice.gguf"), "--lang", "zh"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("候选"));
  EXPECT_THAT(r.out, Not(HasSubstr("the candidate")));
  EXPECT_THAT(r.out, Not(HasSubstr("permuted twice")));
}

TEST_F(CmdWeights, HeatMap) {
  const Result r = rope_cli({"weights", weights_cli_path("llama-hf"), weights_cli_path("llama-f16.gguf"), "--png",
                             path("h.png"), "--head", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(test::png_size(read(path("h.png"))), (std::pair<std::uint32_t, std::uint32_t>{1200, 800}));
}

TEST_F(CmdWeights, BadInputOneLine) {
  expect_one_line_error(rope_cli({"weights", weights_cli_path("llama-hf"), path("none.gguf")}), 3, "none.gguf");
  expect_one_line_error(rope_cli({"weights", weights_cli_path("llama-hf"), weights_cli_path("mha-k-query-heads.gguf")}),
                        2, "the shapes differ");
  const std::string all = read(weights_cli_path("llama-f16.gguf"));
  std::ofstream(path("cut.gguf"), std::ios::binary) << all.substr(0, all.size() - 64);
  expect_one_line_error(rope_cli({"weights", weights_cli_path("llama-hf"), path("cut.gguf")}), 2,
                        "past the end of the file");
  std::filesystem::create_directories(path("d"));
  std::filesystem::copy_file(weights_cli_path("mha-hf/model.safetensors"), path("d/model.safetensors"));
  expect_one_line_error(rope_cli({"weights", path("d/model.safetensors"), weights_cli_path("mha-k-query-heads.gguf")}),
                        2, "--config");
  expect_one_line_error(rope_cli({"weights", weights_cli_path("llama-hf"), weights_cli_path("llama-f16.gguf"), "--png",
                                  path("x.png"), "--head", "9"}),
                        2, "head 9");
  EXPECT_FALSE(std::filesystem::exists(path("x.png")));
}

// A candidate whose values are the reference's shifted by one element (each row moved one column): no map explains it,
// and the best one is not a pass (before, the nearest map was named and the run passed).
TEST_F(CmdWeights, WhatNoMapExplainsIsNotAPass) {
  std::filesystem::create_directories(path("shifted"));
  std::filesystem::copy_file(weights_cli_path("mha-hf/config.json"), path("shifted/config.json"));
  const std::string all = read(weights_cli_path("mha-hf/model.safetensors"));
  std::size_t header = 0;
  for (int i = 7; i >= 0; --i) header = header * 256 + static_cast<unsigned char>(all[static_cast<std::size_t>(i)]);
  const std::string data = all.substr(8 + header);
  std::ofstream(path("shifted/model.safetensors"), std::ios::binary)
      << all.substr(0, 8 + header) << data.substr(2) << data.substr(0, 2);
  const Result r = rope_cli({"weights", weights_cli_path("mha-hf"), path("shifted")});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("unexplained"));
  EXPECT_THAT(test::unwrapped(r.out), HasSubstr("above the bound 0.5: the candidate's rows are not a permutation of "
                                                "the reference's, and no map is named"));
  EXPECT_THAT(r.out, HasSubstr("WEIGHTS CHECK FAILED"));
  EXPECT_THAT(r.out, Not(HasSubstr("every q/k tensor")));
  const Result json = rope_cli({"weights", weights_cli_path("mha-hf"), path("shifted"), "--json"});
  EXPECT_EQ(json.code, 1);
  const auto v = nlohmann::json::parse(json.out);
  EXPECT_FALSE(v["passed"].get<bool>());
  EXPECT_FALSE(v["tensors"][0]["explained"].get<bool>());
  const Result zh = rope_cli({"weights", weights_cli_path("mha-hf"), path("shifted"), "--lang", "zh"});
  EXPECT_THAT(zh.out, HasSubstr("无法解释"));
}

// Issue 77 (6): --config where both sides say their model was ignored, exit 0, even for a file that does not exist.
TEST_F(CmdWeights, AConfigNeitherSideNeedsIsRefused) {
  for (const std::string& config : {path("none.json"), weights_cli_path("mha-hf/config.json")}) {
    expect_one_line_error(
        rope_cli({"weights", weights_cli_path("llama-hf"), weights_cli_path("llama-f16.gguf"), "--config", config}), 2,
        "--config '" + config + "' would not be read: both sides say their model");
  }
}

TEST_F(CmdWeights, SingleSafetensorsWithConfig) {
  std::filesystem::create_directories(path("d"));
  std::filesystem::copy_file(weights_cli_path("mha-hf/model.safetensors"), path("d/model.safetensors"));
  const Result r = rope_cli({"weights", path("d/model.safetensors"), weights_cli_path("mha-k-query-heads.gguf"),
                             "--config", weights_cli_path("mha-hf/config.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(test::unwrapped(r.out), HasSubstr("the model read from"));
}

// A missing permutation (issue 81 item 5): the sentence says what the found map means there, not that the engine
// pairs the rows as the reference does.
TEST_F(CmdWeights, MissingPermutationSaysSo) {
  const Result r = rope_cli({"weights", weights_cli_path("llama-hf"), weights_cli_path("llama-missing.gguf")});
  EXPECT_EQ(r.code, 1);
  const std::string out = test::unwrapped(r.out);
  EXPECT_THAT(out, HasSubstr("identity: the permutation is missing: the candidate keeps the reference's row order"));
  EXPECT_THAT(out, Not(HasSubstr("as the reference does")));
  const Result zh =
      rope_cli({"weights", weights_cli_path("llama-hf"), weights_cli_path("llama-missing.gguf"), "--lang", "zh"});
  EXPECT_THAT(test::unwrapped(zh.out), HasSubstr("缺少置换"));
}

// Rows within the reports' 100 columns: Hugging Face's long names shortened in their middle, each still its own
// (q and k apart); --wide and --json give them whole.
TEST_F(CmdWeights, LongNamesFitTheColumns) {
  const std::vector<std::string> args = {"weights", weights_cli_path("llama-f16.gguf"), weights_cli_path("llama-hf")};
  const Result r = rope_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(columns(line), 100u) << line;
  EXPECT_THAT(r.out, HasSubstr("model.layers.0.s…tn.q_proj.weight"));
  EXPECT_THAT(r.out, HasSubstr("model.layers.0.s…tn.k_proj.weight"));
  EXPECT_THAT(r.out, Not(HasSubstr("model.layers.0.self_attn.q_proj.weight")));
  std::vector<std::string> wide_args = args;
  wide_args.push_back("--wide");
  const Result wide = rope_cli(wide_args);
  EXPECT_EQ(wide.code, 0);
  EXPECT_THAT(wide.out, HasSubstr("model.layers.0.self_attn.q_proj.weight  gguf-to-hf"));
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  const auto j = nlohmann::json::parse(rope_cli(json_args).out);
  EXPECT_EQ(j["tensors"][0]["name"], "model.layers.0.self_attn.q_proj.weight");
}

}  // namespace
}  // namespace rope
