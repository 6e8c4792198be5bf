// rope diff on the example dumps of data/dumps/ (tests/reference/make_dumps.py, NumPy): two outputs of q.npy
// against the reference and each other: both right (exit 0), one in the other layout (exit 1, named), both wrong
// in different ways, the JSON, and one-line errors for outputs of another shape and a missing file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_harness.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using test::expect_one_line_error;
using test::rope_cli;

const std::string kDumps = std::string(ROPE_REFERENCE_DIR) + "/../../data/dumps/";

test::Result diff(const std::string& a, const std::string& b, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"diff", "--before", kDumps + "q.npy", "--after-a", kDumps + a, "--after-b", kDumps + b,
                                   "--positions", "0:128"};
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
  EXPECT_THAT(r.out, HasSubstr("positions 1–127     trainer right, rollout wrong: matches the interleaved layout; the spec implies half"));
  EXPECT_THAT(r.out, HasSubstr("verdict             FAIL: rollout is wrong"));
}

TEST(CmdDiff, BothWrongDifferently) {
  const auto r = diff("q_rope_off_by_one.npy", "q_rope_interleaved.npy");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("positions 0         B right, A wrong: matches positions shifted by +1"));
  EXPECT_THAT(r.out, HasSubstr("positions 1–127     both wrong, differently; A: matches positions shifted by +1: positions off "
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

TEST(CmdDiff, BadInputIsOneLineAndNoResult) {
  auto r = rope_cli({"diff", "--before", kDumps + "q.npy", "--after-a", kDumps + "q_rope.npy", "--after-b", kDumps + "mrope_q.npy"});
  expect_one_line_error(r, 2, "--after-b '");
  EXPECT_THAT(r.err, HasSubstr("has shape (24, 1, 128), --after-a '"));
  r = rope_cli({"diff", "--before", kDumps + "q.npy", "--after-a", kDumps + "q_rope.npy", "--after-b", kDumps + "missing.npy"});
  expect_one_line_error(r, 3, "missing.npy");
  r = rope_cli({"diff", "--before", kDumps + "q.npy", "--after-a", kDumps + "q_rope.npy"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace rope
