// `rope permute` in-process: what it prints against the library (test_permutation.cpp checks the library
// against NumPy's reshape), its model sources (GGUF, config.json), CSV, figure, Chinese, and its errors.
#include "rope/cli/cli.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_harness.hpp"
#include "rope/analysis/weights/permutation.hpp"
#include "rope/models/resolve.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::png_size;
using test::Result;
using test::rope_cli;
using ::testing::HasSubstr;
using ::testing::Not;

class CmdPermute : public test::TempDirTest {};

std::string gguf(const std::string& name) { return std::string(ROPE_GGUF_DIR) + "/" + name; }

TEST_F(CmdPermute, ToyHeadsRowMapProofAndBug) {
  const Result r = rope_cli({"permute"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("head_dim 8, 4 query heads, 2 KV heads"));
  EXPECT_THAT(r.out, HasSubstr("permute(k, n_head_kv = 2):   [0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15]"));
  EXPECT_THAT(r.out, HasSubstr("k_proj permuted with n_head = 4 (the bug): [0, 2, 1, 3, 4, 6, 5, 7,"));
  const PermuteDemo d = permute_demo(PermuteSettings());
  EXPECT_THAT(r.out,
              HasSubstr(fmt::format("max |(b) − (a)| = 0 (tolerance 2·γ_hd·Σ|terms| = {:.3g}): equal bit for bit  PASS",
                                    d.tolerance)));
  EXPECT_THAT(r.out, HasSubstr(fmt::format(
                         "|(c) − (a)| up to {:.6g}, {:.6g} on average; the scores themselves have size (rms) {:.6g}",
                         d.max_bug_difference, d.mean_bug_difference, d.score_rms)));
}

TEST_F(CmdPermute, ModelFromGgufAndFromConfigJson) {
  const Result g = rope_cli({"permute", "--config", gguf("llama-3.1-8b.gguf"), "--max-distance", "2"});
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_THAT(g.out, HasSubstr("(GGUF, architecture llama):\n  head_dim 128, 32 query heads, 8 KV heads"));
  EXPECT_THAT(g.out, HasSubstr("[0, 64, 1, 65, 2, 66, 3, 67, 4, 68, 5, 69, 6, 70, 7, 71, …] (4096 rows)"));
  EXPECT_THAT(g.out, HasSubstr("equal bit for bit  PASS"));
  const Result j =
      rope_cli({"permute", "--config", std::string(ROPE_REFERENCE_DIR) + "/../../data/models/llama-2-7b.json",
                "--max-distance", "2"});
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_THAT(j.out, HasSubstr("head_dim 128, 32 query heads, 32 KV heads"));
  EXPECT_THAT(j.out, HasSubstr("no GQA (n_head = n_head_kv)"));
}

// --config FILE: the model's RoPE as every command resolves it (models/resolve.hpp). A typed --base is the model's
// rope_theta with its scaling kept, as `rope frequencies --config FILE --base B` has it, not plain RoPE of B.
TEST_F(CmdPermute, AConfigsRopeIsTheResolvedModelsTypedValuesIncluded) {
  const std::string file = gguf("llama-3.1-8b.gguf");
  const Result typed = rope_cli({"permute", "--config", file, "--base", "10000", "--max-distance", "3", "--csv", "-"});
  ASSERT_EQ(typed.code, 0) << typed.err;
  RopeOverrides o;
  o.base = 10000.0;
  const ModelRope model = resolve_model_rope({"", file}, o);
  PermuteSettings s;
  s.head_dim = model.spec.rotary_dim;
  s.n_head = 32;
  s.n_head_kv = 8;
  s.base = 10000.0;
  s.inv_freq = model.spec.params.inv_freq;  // llama3 scaling of base 10000
  s.max_distance = 3;
  const PermuteDemo d = permute_demo(s);
  std::istringstream rows(typed.out);
  std::string row;
  std::getline(rows, row);  // the header
  for (Eigen::Index k = 0; k < d.score_hf.size(); ++k) {
    ASSERT_TRUE(std::getline(rows, row));
    const std::size_t a = row.find(','), b = row.find(',', a + 1);
    EXPECT_EQ(std::stod(row.substr(a + 1, b - a - 1)), d.score_hf[k]) << row;  // every digit (CSV)
  }
  // Not plain RoPE of base 10000 (llama3's scaling changes the scores), nor the file's own base 500000.
  const Result plain = rope_cli({"permute", "--head-dim", "128", "--heads", "32", "--kv-heads", "8", "--base", "10000",
                                 "--max-distance", "3", "--csv", "-"});
  const Result own = rope_cli({"permute", "--config", file, "--max-distance", "3", "--csv", "-"});
  EXPECT_NE(typed.out, plain.out);
  EXPECT_NE(typed.out, own.out);
}

// Gemma 4's default layer type is its full layers' proportional RoPE (S14): it pairs the whole head of 512 rows, θ = 0
// on the pairs it does not turn. The rows per head are those its frequencies pair, not int(512 × 0.25) = 128 (which
// refused the file: "256 frequencies for a head of 128 rows").
TEST_F(CmdPermute, ProportionalRopePairsTheWholeHead) {
  const Result r =
      rope_cli({"permute", "--config", std::string(ROPE_REFERENCE_DIR) + "/../../data/models/gemma-4-26b-a4b.json",
                "--max-distance", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("head_dim 512, 16 query heads, 16 KV heads"));
  EXPECT_THAT(r.out, HasSubstr("equal bit for bit  PASS"));
}

// --layer-type: Gemma 4's layer types differ in head size (sliding 256, full 512 with proportional RoPE): each is
// permuted with its own rows per head, the header names the layer type, and both prove NORM = rotate_half.
struct PermuteLayerTypeCase {
  std::string layer_type;
  std::string head;    ///< the header's head line
  std::string layers;  ///< the header's layer type and its layers
};

class CmdPermuteLayerType : public ::testing::TestWithParam<PermuteLayerTypeCase> {};

TEST_P(CmdPermuteLayerType, EachLayerTypeHasItsOwnRowsPerHead) {
  const auto& [layer_type, head, layers] = GetParam();
  const std::string file = std::string(ROPE_REFERENCE_DIR) + "/../../data/models/gemma-4-26b-a4b.json";
  const Result r = rope_cli({"permute", "--config", file, "--layer-type", layer_type, "--max-distance", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(head));
  EXPECT_THAT(r.out, HasSubstr(layers));
  EXPECT_THAT(r.out, HasSubstr("equal bit for bit  PASS"));
}

INSTANTIATE_TEST_SUITE_P(Gemma4, CmdPermuteLayerType,
                         ::testing::Values(PermuteLayerTypeCase{"sliding_attention", "head_dim 256, 16 query heads",
                                                                "layer type sliding_attention (layers 0–4"},
                                           PermuteLayerTypeCase{"0", "head_dim 256, 16 query heads",
                                                                "layer type sliding_attention (layers 0–4"},
                                           PermuteLayerTypeCase{"full_attention", "head_dim 512, 16 query heads",
                                                                "layer type full_attention (layers 5, 11"},
                                           PermuteLayerTypeCase{"29", "head_dim 512, 16 query heads",
                                                                "layer type full_attention (layers 5, 11"}),
                         [](const auto& info) { return "layer_type_" + test::case_name(info.param.layer_type); });

TEST_F(CmdPermute, LayerTypeErrors) {
  const std::string file = std::string(ROPE_REFERENCE_DIR) + "/../../data/models/gemma-4-26b-a4b.json";
  expect_one_line_error(rope_cli({"permute", "--config", file, "--layer-type", "nope"}), 2,
                        "layer type 'nope' is not one of");
  expect_one_line_error(rope_cli({"permute", "--layer-type", "sliding_attention"}), 2, "--config");
  // Issue 62: the layers offered in Chinese too ("or a layer 0 … 29" stayed English).
  const Result zh = rope_cli({"permute", "--config", file, "--layer-type", "nope", "--lang", "zh"});
  EXPECT_EQ(zh.code, 2);
  EXPECT_THAT(zh.err, HasSubstr("或第 0 … 29 层之一"));
  EXPECT_THAT(zh.err, Not(HasSubstr("or a layer")));
}

TEST_F(CmdPermute, TooManyHeadsOfAConfigNameItsFileAndKey) {
  // Issue 62: "100000 heads × 64 rows is over the limit" named neither the file nor num_attention_heads.
  const std::string c = path("heads.json");
  std::ofstream(c) << R"({"model_type": "llama", "hidden_size": 6400000, "num_attention_heads": 100000,
                          "num_key_value_heads": 100000, "head_dim": 64})";
  expect_one_line_error(rope_cli({"permute", "--config", c}), 2,
                        c + ": num_attention_heads 100000 × 64 rows per head is over the limit of");
  expect_one_line_error(rope_cli({"permute", "--config", c, "--heads", "200000", "--kv-heads", "100000"}), 2,
                        "200000 heads × 64 rows is over the limit of");
}

TEST_F(CmdPermute, CsvFigureAndChinese) {
  const Result c = rope_cli({"permute", "--csv", "-", "--max-distance", "3"});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(c.out.substr(0, c.out.find('\n')), "distance,score_hf,score_gguf,score_bug");
  EXPECT_EQ(std::count(c.out.begin(), c.out.end(), '\n'), 5);
  const Result p = rope_cli({"permute", "--png", path("p.png"), "--max-distance", "3"});
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_EQ(png_size(read(path("p.png"))), (std::pair<std::uint32_t, std::uint32_t>{1200, 800}));
  const Result z = rope_cli({"permute", "--lang", "zh", "--max-distance", "3"});
  ASSERT_EQ(z.code, 0) << z.err;
  EXPECT_THAT(z.out, HasSubstr("行映射"));
  EXPECT_THAT(z.out, HasSubstr("逐位相等"));
  EXPECT_THAT(z.out, Not(HasSubstr("the row map")));
}

TEST_F(CmdPermute, Errors) {
  expect_one_line_error(rope_cli({"permute", "--heads", "6", "--kv-heads", "4"}), 2, "multiple of the KV heads");
  expect_one_line_error(rope_cli({"permute", "--head-dim", "7"}), 2, "head dimension 7 must be even");
  expect_one_line_error(rope_cli({"permute", "--config", path("missing.gguf")}), 3, "cannot read");
  expect_one_line_error(rope_cli({"permute", "--config", gguf("truncated.gguf")}), 2, "truncated.gguf: offset ");
  expect_one_line_error(rope_cli({"permute", "--max-distance", "10001"}), 2, "max distance 10001 must be in 0 … 10000");
}

TEST_F(CmdPermute, InspectAndConfigReadGguf) {
  const Result r = rope_cli({"inspect", gguf("llama-3.1-8b.gguf")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rope_theta: 500000 (llama.rope.freq_base)"));
  EXPECT_THAT(r.out, HasSubstr("layout: interleaved (llama.cpp rope type NORM of architecture llama)"));
  const Result f = rope_cli({"frequencies", "--config", gguf("qwen2.5-7b.gguf"), "--csv", "-"});
  ASSERT_EQ(f.code, 0) << f.err;
  expect_one_line_error(rope_cli({"inspect", gguf("deep-nesting.gguf")}), 2, "arrays nested deeper than 8 levels");
}

// On the report layer (report/permute_report.hpp): --json holds the library's numbers, the row maps and the verdict.
TEST_F(CmdPermute, JsonIsTheLibrarysReport) {
  const Result r = rope_cli({"permute", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const PermuteDemo d = permute_demo(PermuteSettings());
  EXPECT_EQ(j["k_order"].get<std::vector<long>>(), d.k_order);
  EXPECT_EQ(j["q_order"].get<std::vector<long>>(), d.q_order);
  EXPECT_EQ(j["k_order_bug"].get<std::vector<long>>(), *d.k_order_bug);
  EXPECT_EQ(j["tolerance"].get<double>(), d.tolerance);
  EXPECT_EQ(j["max_bug_difference"].get<double>(), d.max_bug_difference);
  EXPECT_TRUE(j["passed"].get<bool>());
  EXPECT_TRUE(j["source"].is_null());
  const Result g = rope_cli({"permute", "--config", gguf("llama-3.1-8b.gguf"), "--json", "--max-distance", "2"});
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_EQ(nlohmann::json::parse(g.out)["n_head_kv"], 8);
}

}  // namespace
}  // namespace rope
