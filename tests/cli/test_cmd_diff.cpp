// rope diff on the example dumps of data/dumps/ (tests/reference/make_dumps.py, NumPy): two outputs of q.npy
// against the reference and each other: both right (exit 0), one in the other layout (exit 1, named), both wrong
// in different ways, the JSON, and one-line errors for outputs of another shape and a missing file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_harness.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::rope_cli;
using ::testing::HasSubstr;
using ::testing::Not;

using test::kDumps;

test::Result diff(const std::string& a, const std::string& b, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"diff",      "--before", kDumps + "q.npy", "--after-a", kDumps + a,
                                   "--after-b", kDumps + b, "--positions",    "0:128"};
  args.insert(args.end(), extra.begin(), extra.end());
  return rope_cli(args);
}

TEST(CmdDiff, BothRightPassAndAgree) {
  const auto r = diff("q_rope.npy", "q_rope.npy");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("between (D1)        agree within twice the tolerance"));
  EXPECT_THAT(r.out, HasSubstr("positions 0–127     both right"));
  EXPECT_THAT(r.out, HasSubstr("verdict             PASS"));
}

TEST(CmdDiff, TheOneInTheOtherLayoutIsNamed) {
  const auto r = diff("q_rope.npy", "q_rope_interleaved.npy", {"--name-a", "trainer", "--name-b", "rollout"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("trainer             PASS"));
  EXPECT_THAT(r.out, HasSubstr("positions 0         both right"));  // position 0 rotates nothing
  EXPECT_THAT(
      r.out,
      HasSubstr(
          "positions 1–127     trainer right, rollout wrong: matches the interleaved layout; the spec implies half"));
  EXPECT_THAT(r.out, HasSubstr("verdict             FAIL: rollout is wrong"));
}

TEST(CmdDiff, BothWrongDifferently) {
  const auto r = diff("q_rope_off_by_one.npy", "q_rope_interleaved.npy");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("positions 0         B right, A wrong: matches positions shifted by +1"));
  EXPECT_THAT(
      r.out, HasSubstr("positions 1–127     both wrong, differently; A: matches positions shifted by +1: positions off "
                       "by one; B: matches the interleaved layout"));
  EXPECT_THAT(r.out, HasSubstr("verdict             FAIL: both are wrong"));
  const auto zh = diff("q_rope_off_by_one.npy", "q_rope_interleaved.npy", {"--lang", "zh"});
  EXPECT_THAT(zh.out, HasSubstr("两者都错，错法不同"));
}

TEST(CmdDiff, JsonNamesEachSideAndEveryRange) {
  const auto r = diff("q_rope.npy", "q_rope_interleaved.npy", {"--json"});
  EXPECT_EQ(r.code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["passed"].get<bool>());
  EXPECT_TRUE(j["a"]["passed"].get<bool>());
  EXPECT_EQ(j["b"]["diagnosis"]["matches"], "layout-swapped");
  EXPECT_FALSE(j["between"]["agree"].get<bool>());
  ASSERT_EQ(j["ranges"].size(), 2u);
  EXPECT_EQ(j["ranges"][1]["start"], 1);
  EXPECT_EQ(j["ranges"][1]["length"], 127);
  EXPECT_EQ(j["ranges"][1]["positions"], "1–127");
  EXPECT_TRUE(j["ranges"][1]["a_right"].get<bool>());
  EXPECT_FALSE(j["ranges"][1]["b_right"].get<bool>());
}

TEST(CmdDiff, PerBatchRowOfADecodeBatch) {
  // The decode batch of data/dumps (tests/reference/make_dumps.py): 4 rows at positions 57, 12, 300, 4095; one
  // output right, the other rotated at the first row's offset for every row (one offset for the whole batch).
  const auto run = [](std::vector<std::string> extra) {
    std::vector<std::string> args = {"diff",
                                     "--before",
                                     kDumps + "decode_q.npy",
                                     "--after-a",
                                     kDumps + "decode_q_rope.npy",
                                     "--after-b",
                                     kDumps + "decode_q_rope_shared_offset.npy",
                                     "--positions",
                                     kDumps + "decode_positions.npy",
                                     "--name-a",
                                     "hf",
                                     "--name-b",
                                     "kernel"};
    args.insert(args.end(), extra.begin(), extra.end());
    return rope_cli(args);
  };
  auto r = run({});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  batch row 0         positions 57: both right\n"));
  EXPECT_THAT(
      r.out,
      HasSubstr(
          "  batch row 3         positions 4095: hf right, kernel wrong: rotated at the first row's positions (from 57)\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("no known variant")));
  EXPECT_THAT(r.out, HasSubstr("verdict             FAIL: kernel is wrong"));
  r = run({"--json"});
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["segments"].size(), 4u);
  EXPECT_EQ(j["segments"][1]["kind"], "batch_row");
  EXPECT_EQ(j["segments"][1]["positions"], "12");
  EXPECT_TRUE(j["segments"][1]["a"]["passed"].get<bool>());
  EXPECT_FALSE(j["segments"][1]["b"]["passed"].get<bool>());
  EXPECT_FALSE(j["segments"][1]["agree"].get<bool>());
  EXPECT_TRUE(j["segments"][0]["agree"].get<bool>());
  EXPECT_THAT(j["segments"][2]["b"]["diagnosis"].get<std::string>(),
              HasSubstr("rotated at the first row's positions (from 57)"));
  ASSERT_EQ(j["ranges"].size(), 4u);  // a run never crosses a row's start
}

TEST(CmdDiff, PerPackedSequence) {
  // Two packed sequences of 128 restarting at 0; B the input as it was (RoPE never applied).
  const auto r = rope_cli({"diff", "--before", kDumps + "packed_q.npy", "--after-a", kDumps + "packed_q_rope.npy",
                           "--after-b", kDumps + "packed_q.npy", "--sequence-starts", "0,128"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  sequence 1          indices 128–255, positions 0–127: A right, B wrong"));
  EXPECT_THAT(
      r.out,
      HasSubstr("  sequence 1, positions 1–127 A right, B wrong: the dump after RoPE equals the dump before it"));
}

class CmdDiffFiles : public test::TempDirTest {};

TEST_F(CmdDiffFiles, TheLineAfterTheListedSequencesSaysWhatTheOthersAre) {
  // Issue 52 (6): 40 packed sequences (starts 0, 1, …, 39), both outputs right at 0 … 127, the positions given for
  // 1 … 20 off by one: 20 sequences fail, 16 listed; the line after them said "… and 24 more that pass".
  std::string starts = "0";
  for (int s = 1; s < 40; ++s) starts += "," + std::to_string(s);
  {
    std::ofstream out(path("pos.txt"));
    for (int s = 0; s < 128; ++s) out << (s >= 1 && s <= 20 ? s + 1 : s) << '\n';
  }
  const auto r = rope_cli({"diff", "--before", kDumps + "q.npy", "--after-a", kDumps + "q_rope.npy", "--after-b",
                           kDumps + "q_rope.npy", "--positions", path("pos.txt"), "--sequence-starts", starts});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  … and 24 more: 20 pass, 4 fail\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("more that pass")));
}

TEST(CmdDiff, ReportEscapesTheNamesAndNamesTheScaling) {
  const auto r =
      diff("q_rope.npy", "q_rope_interleaved.npy", {"--name-a", "tr\nainer\x1b[31m", "--name-b", "roll\tout"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rope diff: tr\\nainer\\e[31m ("));
  EXPECT_THAT(r.out, HasSubstr("tr\\nainer\\e[31m right, roll\\tout wrong"));
  EXPECT_THAT(r.out, Not(HasSubstr("\x1b")));
  EXPECT_THAT(r.out, Not(HasSubstr("tr\nainer")));
  EXPECT_THAT(r.out, HasSubstr("scaling             none (default RoPE)\n"));
  const auto j = nlohmann::json::parse(diff("q_rope.npy", "q_rope.npy", {"--name-a", "a\nb", "--json"}).out);
  EXPECT_EQ(j["a"]["name"], "a\nb");  // JSON escapes its own strings: the name as given
}

TEST(CmdDiff, ALayerWithoutRope) {
  // SmolLM3's NoPE layers (3 and 7 of 8): the unchanged output is right, the one rotated as the other layers wrong.
  const std::string config = ::testing::TempDir() + "rope_diff_smollm3.json";
  std::ofstream(config) << R"({"model_type": "smollm3", "head_dim": 64, "num_hidden_layers": 8, "rope_theta": 10000})";
  const auto r = diff("q.npy", "q_rope.npy", {"--config", config, "--layer-type", "nope", "--name-b", "port"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  expected            unchanged: layers 3, 7 (nope) of " + config + " have no RoPE\n"));
  EXPECT_THAT(r.out, HasSubstr("  scaling             no RoPE on this layer\n"));
  EXPECT_THAT(r.out, HasSubstr("  A                   PASS"));
  EXPECT_THAT(
      r.out, HasSubstr("but the dump is rotated: it matches the RoPE of the model's layers that have one (half layout, "
                       "rotary dim 64, base 10000), which this layer's code must not apply"));
  // The run says what port does there, as the other diagnoses do.
  EXPECT_THAT(r.out,
              HasSubstr("positions 1–127     A right, port wrong: this layer has no RoPE in " + config +
                        " (layer type nope: layers 3, 7), but the dump is rotated: it matches the RoPE of the model's "
                        "layers that have one (half layout, rotary dim 64, base 10000), which this layer's code must "
                        "not apply\n"));
  EXPECT_THAT(r.out, HasSubstr("verdict             FAIL: port is wrong"));
  const auto j =
      nlohmann::json::parse(diff("q.npy", "q_rope.npy", {"--config", config, "--layer-type", "3", "--json"}).out);
  EXPECT_EQ(j["b"]["diagnosis"]["no_rope_rotated"]["rope_matches"], "expected");
  EXPECT_EQ(j["expected"]["no_rope"]["layers"], nlohmann::json::array({3, 7}));
}

TEST(CmdDiff, ALayerWithoutRopeRotatedOnPartOfTheRange) {
  // port leaves positions 0–63 unchanged and rotates 64–127 in the interleaved layout (q_rope_interleaved.npy's
  // vectors there, spliced into q.npy: both float32 [128, 1, 64], one header): each run gets its own diagnosis.
  const std::string config = ::testing::TempDir() + "rope_diff_smollm3_part.json";
  std::ofstream(config) << R"({"model_type": "smollm3", "head_dim": 64, "num_hidden_layers": 8, "rope_theta": 10000})";
  const auto bytes = [](const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::string mixed = bytes(kDumps + "q.npy");
  const std::string rotated = bytes(kDumps + "q_rope_interleaved.npy");
  ASSERT_EQ(mixed.size(), rotated.size());
  const std::size_t half = 64 * 64 * 4, data = mixed.size() - 2 * half;
  mixed.replace(data + half, half, rotated.substr(data + half));
  const std::string path = ::testing::TempDir() + "rope_diff_nope_part.npy";
  std::ofstream(path, std::ios::binary) << mixed;
  const auto r = rope_cli({"diff", "--before", kDumps + "q.npy", "--after-a", kDumps + "q.npy", "--after-b", path,
                           "--positions", "0:128", "--config", config, "--layer-type", "nope", "--name-b", "port"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  positions 0–63      both right\n"));
  EXPECT_THAT(r.out,
              HasSubstr("  positions 64–127    A right, port wrong: this layer has no RoPE in " + config +
                        " (layer type nope: layers 3, 7), but the dump is rotated, as the model's layers with RoPE "
                        "rotate theirs but for one difference: matches the interleaved layout; the spec implies half; "
                        "this layer's code must not apply RoPE at all\n"));
  const auto j = nlohmann::json::parse(
      rope_cli({"diff", "--before", kDumps + "q.npy", "--after-a", kDumps + "q.npy", "--after-b", path, "--positions",
                "0:128", "--config", config, "--layer-type", "nope", "--json"})
          .out);
  ASSERT_EQ(j["ranges"].size(), 2u);
  EXPECT_THAT(j["ranges"][1]["b_diagnosis"].get<std::string>(),
              HasSubstr("but for one difference: matches the interleaved layout"));
  EXPECT_EQ(j["ranges"][1]["a_diagnosis"], "");
}

TEST(CmdDiff, BadInputIsOneLineAndNoResult) {
  auto r = rope_cli(
      {"diff", "--before", kDumps + "q.npy", "--after-a", kDumps + "q_rope.npy", "--after-b", kDumps + "mrope_q.npy"});
  expect_one_line_error(r, 2, "--after-b '");
  EXPECT_THAT(r.err, HasSubstr("has shape (24, 1, 128), --after-a '"));
  r = rope_cli(
      {"diff", "--before", kDumps + "q.npy", "--after-a", kDumps + "q_rope.npy", "--after-b", kDumps + "missing.npy"});
  expect_one_line_error(r, 3, "missing.npy");
  r = rope_cli({"diff", "--before", kDumps + "q.npy", "--after-a", kDumps + "q_rope.npy"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace rope
