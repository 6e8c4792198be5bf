// rope check --k-before --k-after (issue 78 item 2) on tests/reference/qk_pairs.py's NumPy dumps (8 query heads, 2
// key-value heads, positions to 131 071): the exit codes of the three verdicts, the JSON's q keys unchanged beside `k`
// and `pair`, the text's three parts (in Chinese too), torch.save tensors by name, and bad inputs refused in one line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "support/cli_harness.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::rope_cli;
using ::testing::HasSubstr;

const std::string kQk = std::string(ROPE_REFERENCE_DIR) + "/qk_pairs/";
constexpr const char* kPositions = "0,1,7,4095,4096,32768,65535,131071";

test::Result check_qk(const std::string& q_after, const std::string& k_before, const std::string& k_after,
                      std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"check",
                                   "--before",
                                   kQk + "q.npy",
                                   "--after",
                                   kQk + q_after + ".npy",
                                   "--k-before",
                                   kQk + k_before + ".npy",
                                   "--k-after",
                                   kQk + k_after + ".npy",
                                   "--positions",
                                   kPositions,
                                   "--layout",
                                   "half"};
  args.insert(args.end(), extra.begin(), extra.end());
  return rope_cli(args);
}

TEST(CmdCheckQk, ACorrectPairPassesWithThreeVerdicts) {
  const auto r = check_qk("q_half", "k", "k_half");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  const std::string out = test::unwrapped(r.out);
  EXPECT_THAT(out, HasSubstr("q_half.npy against RoPE("));
  EXPECT_THAT(out, HasSubstr("k_half.npy against RoPE("));
  EXPECT_THAT(out, HasSubstr("rope check: q and k together, ⟨R_m q, R_n k⟩ = qᵀ R_(n−m) k"));
  EXPECT_THAT(out, HasSubstr("sample              8 sequence indices, 64 (m, n) pairs, 512 scores; q head h reads k "
                             "head h/4 (8 q heads, 2 k heads)"));
  // three verdicts, q's, k's and the pair's
  std::size_t verdicts = 0;
  for (std::size_t at = out.find("verdict             PASS"); at != std::string::npos;
       at = out.find("verdict             PASS", at + 1))
    ++verdicts;
  EXPECT_EQ(verdicts, 3U) << out;
}

TEST(CmdCheckQk, JsonKeepsQsKeysAndAddsKAndPair) {
  const auto one = nlohmann::json::parse(rope_cli({"check", "--before", kQk + "q.npy", "--after", kQk + "q_half.npy",
                                                   "--positions", kPositions, "--layout", "half", "--json"})
                                             .out);
  const auto r = check_qk("q_half", "k", "k_half", {"--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& [key, value] : one.items()) EXPECT_TRUE(j.contains(key)) << key;
  ASSERT_TRUE(j.contains("k"));
  for (const auto& [key, value] : one.items()) EXPECT_TRUE(j["k"].contains(key)) << "k." << key;
  const auto& p = j["pair"];
  EXPECT_EQ(p["passed"], true);
  EXPECT_EQ(p["pairs_sampled"], 64);
  EXPECT_LE(p["max_score_error"].get<double>(), p["tolerance"].get<double>());
  EXPECT_TRUE(p["matches"].is_null());
  EXPECT_EQ(j["k"]["total"], 8 * 2 * 64);  // k's own elements: 8 positions, 2 heads, d = 64
  EXPECT_EQ(j["total"], 8 * 8 * 64);
}

TEST(CmdCheckQk, CrossedKernelFailsNamedInBothAndThePair) {
  const auto r = check_qk("q_crossed", "k", "k_crossed", {"--json"});
  EXPECT_EQ(r.code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["diagnosis"]["matches"], "qk-crossed");
  EXPECT_EQ(j["k"]["diagnosis"]["matches"], "qk-crossed");
  EXPECT_EQ(j["pair"]["passed"], false);
  EXPECT_EQ(j["pair"]["matches"], "qk-crossed");
  const auto text = check_qk("q_crossed", "k", "k_crossed");
  EXPECT_THAT(test::unwrapped(text.out), HasSubstr("matches q and k crossed: the second element of each of q's rotated "
                                                   "pairs is k's pair rotated"));
  EXPECT_THAT(test::unwrapped(text.out), HasSubstr("the scores depart from the relative-position identity: q and k "
                                                   "crossed in a fused kernel"));
  const auto zh = check_qk("q_crossed", "k", "k_crossed", {"--lang", "zh"});
  EXPECT_THAT(test::unwrapped(zh.out), HasSubstr("符合 q 与 k 交叉"));
  EXPECT_THAT(test::unwrapped(zh.out), HasSubstr("得分偏离了相对位置恒等式"));
}

TEST(CmdCheckQk, KWithQueryHeadsFailsWithQPassing) {
  const auto r = check_qk("q_half", "k", "k_query_heads", {"--json"});
  EXPECT_EQ(r.code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["passed"], true);  // q's own verdict, as a check of q alone gives it
  EXPECT_EQ(j["k"]["passed"], false);
  EXPECT_EQ(j["k"]["diagnosis"]["matches"], "k-with-query-heads");
  EXPECT_EQ(j["k"]["diagnosis"]["found"]["q_heads"], 8);
  EXPECT_EQ(j["k"]["diagnosis"]["found"]["k_heads"], 2);
}

TEST(CmdCheckQk, TorchSaveTensorsByName) {
  const std::string pt = kQk + "qk_half.pt";
  const auto r = rope_cli({"check",    "--before",
                           pt,         "--after",
                           pt,         "--before-tensor",
                           "q",        "--after-tensor",
                           "q_rope",   "--k-before",
                           pt,         "--k-after",
                           pt,         "--k-before-tensor",
                           "k",        "--k-after-tensor",
                           "k_rope",   "--positions",
                           kPositions, "--layout",
                           "half",     "--json"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["pair"]["passed"], true);
  EXPECT_EQ(j["k"]["total"], 8 * 2 * 64);
}

/// check on qk_layers.pt's two layers, q and k named by patterns, with `extra` arguments.
test::Result check_layers(const std::string& k_before_tensor, const std::string& k_after_tensor,
                          std::vector<std::string> extra = {}) {
  const std::string pt = kQk + "qk_layers.pt";
  std::vector<std::string> args = {"check",
                                   "--before",
                                   pt,
                                   "--after",
                                   pt,
                                   "--before-tensor",
                                   "layers.*.q",
                                   "--after-tensor",
                                   "layers.*.q_rope",
                                   "--k-before",
                                   pt,
                                   "--k-after",
                                   pt,
                                   "--k-before-tensor",
                                   k_before_tensor,
                                   "--k-after-tensor",
                                   k_after_tensor,
                                   "--positions",
                                   kPositions,
                                   "--layout",
                                   "half"};
  args.insert(args.end(), extra.begin(), extra.end());
  return rope_cli(args);
}

// The tensor patterns apply to q and k alike (issue 78 item 2): each layer's k named by k's patterns filled with the
// runs of its q's '*', each layer q and k together; layer 1's k, walked with q's head count, fails named while its q
// and layer 0 pass, the worst first.
TEST(CmdCheckQk, EveryLayersQAndKTogether) {
  const auto r = check_layers("layers.*.k", "layers.*.k_rope", {"--json"});
  ASSERT_EQ(r.code, 1) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["layers"].size(), 2U);
  EXPECT_EQ(j["passed"], false);
  const auto& worst = j["layers"][0];
  EXPECT_EQ(worst["before_tensor"], "layers.1.q");
  EXPECT_EQ(worst["passed"], true);  // q's verdict; k's is its own
  EXPECT_EQ(worst["k"]["passed"], false);
  EXPECT_EQ(worst["k"]["diagnosis"]["matches"], "k-with-query-heads");
  EXPECT_EQ(j["layers"][1]["before_tensor"], "layers.0.q");
  EXPECT_EQ(j["layers"][1]["k"]["passed"], true);
  EXPECT_EQ(j["layers"][1]["pair"]["passed"], true);
  const auto text = check_layers("layers.*.k", "layers.*.k_rope");
  EXPECT_THAT(text.out, HasSubstr("2 layers"));
  EXPECT_THAT(text.out, HasSubstr("1 pass, 1 fail"));
  EXPECT_THAT(text.out, HasSubstr("the worst layer, layers.1.q, in full:"));
  // Each tensor's row in its own names, verdict and ratio: layer 1's q passes, its k fails; the JSON alike.
  EXPECT_THAT(text.out, HasSubstr("  PASS  layers.1.q → layers.1.q_rope  max |Δ|/tolerance " +
                                  fmt::format("{:.4g}", worst["max_ratio"].get<double>())));
  EXPECT_THAT(text.out, HasSubstr("  FAIL  layers.1.k → layers.1.k_rope  max |Δ|/tolerance " +
                                  fmt::format("{:.4g}", worst["k"]["max_ratio"].get<double>())));
  EXPECT_EQ(worst["k_before_tensor"], "layers.1.k");
  EXPECT_EQ(worst["all_passed"], false);
  // k's names without q's '*': one k for every layer is refused
  expect_one_line_error(check_layers("k", "k_rope"), 2,
                        "--k-before-tensor 'k' and --k-after-tensor 'k_rope': each layer's k is named by the runs of "
                        "q's '*', so k's tensor names need the same number of '*' as 'layers.*.q' (1)");
}

// FoPE's --coefficients apply to q and k alike, each by its own heads (issue 78 item 2): tests/reference/fope.py's
// vLLM dumps, 16 query heads on 4 key-value heads with a matrix per key-value head, q head h turned by its group's
// matrix and k head g by its own; both pass, and the identity (Q1), which FoPE's mixed pairs do not keep, is not
// measured.
TEST(CmdCheckQk, FopeCoefficientsTurnEachTensorByItsOwnHeads) {
  const std::string f = std::string(ROPE_VARIANT_DUMPS) + "_67/fope/";
  const auto r =
      rope_cli({"check", "--config", f + "checkpoint/config.json", "--coefficients", f + "checkpoint", "--before",
                f + "vllm/q.npy", "--after", f + "vllm/q_rope.npy", "--k-before", f + "vllm/k.npy", "--k-after",
                f + "vllm/k_rope.npy", "--positions", "@" + f + "positions.txt", "--angles", "float32", "--json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["passed"], true);
  EXPECT_EQ(j["k"]["passed"], true);
  EXPECT_EQ(j["pair"]["measured"], false);
  // k checked with q's dumps' head count would not divide: the two tensors' heads are their own (16 and 4)
  EXPECT_EQ(j["total"].get<long>(), 4 * j["k"]["total"].get<long>());
}

/// --kv-head H (issue 78 item 2): dumps holding one key-value head's heads alone, as a kernel dumps a head
/// (tests/reference/fope.py's vllm_kv2: k head 2 and q heads 8 … 11 of the vLLM dumps above, 4 key-value heads each
/// with its own matrix): every vector on head 2's coefficients; another head's fail; without it one key head does not
/// divide the model's 4; a head beyond them, and --kv-head without FoPE, are refused.
struct KvHeadCase {
  const char* name;
  std::vector<std::string> args;  // after the config and the coefficients; "D/" the dumps' directory
  int code;
  std::string says;  // a line of the report (exit 0, 1) or the one line on stderr (exit 2)
};

class CmdCheckKvHead : public ::testing::TestWithParam<KvHeadCase> {};

TEST_P(CmdCheckKvHead, OneKeyValueHeadsDumps) {
  const std::string f = std::string(ROPE_VARIANT_DUMPS) + "_67/fope/";
  std::vector<std::string> args = {"check",          "--config",    f + "checkpoint/config.json", "--coefficients",
                                   f + "checkpoint", "--positions", "@" + f + "positions.txt",    "--angles",
                                   "float32"};
  for (const std::string& a : GetParam().args)
    args.push_back(a.rfind("D/", 0) == 0 ? f + "vllm_kv2/" + a.substr(2) : a);
  if (GetParam().name == std::string("plain_rope"))
    args = {"check",       "--before", f + "vllm_kv2/k.npy", "--after", f + "vllm_kv2/k_rope.npy",
            "--positions", "0:13",     "--kv-head",          "0"};
  const auto r = rope_cli(args);
  if (GetParam().code == 2) {
    expect_one_line_error(r, 2, GetParam().says);
    return;
  }
  EXPECT_EQ(r.code, GetParam().code) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr(GetParam().says)) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Heads, CmdCheckKvHead,
    ::testing::Values(
        KvHeadCase{"k_head_2", {"--before", "D/k.npy", "--after", "D/k_rope.npy", "--kv-head", "2"}, 0, "PASS"},
        KvHeadCase{"q_group_2", {"--before", "D/q.npy", "--after", "D/q_rope.npy", "--kv-head", "2"}, 0, "PASS"},
        KvHeadCase{"q_and_k",
                   {"--before", "D/q.npy", "--after", "D/q_rope.npy", "--k-before", "D/k.npy", "--k-after",
                    "D/k_rope.npy", "--kv-head", "2"},
                   0,
                   "PASS"},
        KvHeadCase{"k_head_2_as_head_0",
                   {"--before", "D/k.npy", "--after", "D/k_rope.npy", "--kv-head", "0"},
                   1,
                   "matches key-value head 2's coefficients, not head 0's: the dump holds key-value head 2's heads "
                   "(--kv-head 2)"},
        KvHeadCase{"k_head_2_without",
                   {"--before", "D/k.npy", "--after", "D/k_rope.npy"},
                   2,
                   "FoPE: the dump's 1 heads are not a multiple of the model's 4 key-value heads"},
        KvHeadCase{"beyond_the_heads",
                   {"--before", "D/k.npy", "--after", "D/k_rope.npy", "--kv-head", "4"},
                   2,
                   "--kv-head 4: "},
        KvHeadCase{"plain_rope", {}, 2, "--kv-head chooses FoPE's key-value head: name a model with FoPE"}),
    [](const ::testing::TestParamInfo<KvHeadCase>& info) { return std::string(info.param.name); });

// The JSON says which matrix every vector took (`expected.fope.matrix`; null without --kv-head).
TEST(CmdCheckKvHeadJson, TheMatrixIsInTheReport) {
  const std::string f = std::string(ROPE_VARIANT_DUMPS) + "_67/fope/";
  const auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"check",          "--config",    f + "checkpoint/config.json", "--coefficients",
                                     f + "checkpoint", "--positions", "@" + f + "positions.txt",    "--angles",
                                     "float32",        "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = rope_cli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out)["expected"]["fope"]["matrix"];
  };
  EXPECT_EQ(run({"--before", f + "vllm_kv2/k.npy", "--after", f + "vllm_kv2/k_rope.npy", "--kv-head", "2"}), 2);
  EXPECT_TRUE(run({"--before", f + "vllm/k.npy", "--after", f + "vllm/k_rope.npy"}).is_null());
}

TEST(CmdCheckQk, BadInputsAreOneLine) {
  const std::string q = kQk + "q.npy", qr = kQk + "q_half.npy", k = kQk + "k.npy", kr = kQk + "k_half.npy";
  expect_one_line_error(rope_cli({"check", "--before", q, "--after", qr, "--k-after", kr, "--positions", kPositions}),
                        2, "--k-after needs --k-before: k is checked before and after RoPE, as q is");
  expect_one_line_error(rope_cli({"check", "--before", q, "--after", qr, "--k-before", k, "--positions", kPositions}),
                        2, "--k-before needs --k-after");
  expect_one_line_error(
      rope_cli({"check", "--before", q, "--after", qr, "--k-before-tensor", "k", "--positions", kPositions}), 2,
      "--k-before-tensor names a tensor of --k-before: give --k-before and --k-after");
  // k of 7 positions against q's 8: the same positions for both
  expect_one_line_error(rope_cli({"check", "--before", q, "--after", qr, "--k-before", kQk + "k_short.npy", "--k-after",
                                  kQk + "k_short.npy", "--positions", kPositions}),
                        2, "k has 7 sequence positions and q 8: q and k are checked at the same positions");
  // q's 8 heads read as k: k = q's dumps, q = k's (2 heads): 8 does not divide 2
  expect_one_line_error(
      rope_cli({"check", "--before", k, "--after", kr, "--k-before", q, "--k-after", qr, "--positions", kPositions}), 2,
      "k's 8 heads do not divide q's 2");
  // k's refusals in k's names: k of another shape than its own after dump names --k-after and --k-before
  const auto shapes = rope_cli({"check", "--before", q, "--after", qr, "--k-before", k, "--k-after",
                                kQk + "k_short.npy", "--positions", kPositions});
  EXPECT_EQ(shapes.code, 2) << shapes.err;
  EXPECT_THAT(shapes.err, HasSubstr("--k-after '"));
  EXPECT_THAT(shapes.err, ::testing::Not(HasSubstr("--after '")));
  expect_one_line_error(rope_cli({"check", "--before", q, "--after", qr, "--k-before", k, "--k-after", kr, "--grad",
                                  "--positions", kPositions}),
                        2, "--k-before checks q and k of the forward pass: leave out --grad");
}

}  // namespace
}  // namespace rope
