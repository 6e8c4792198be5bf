// rope identify on the example dumps of data/dumps/ (tests/reference/make_dumps.py, NumPy): the text, the
// JSON, the figure, and one-line errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_harness.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using test::expect_one_line_error;
using test::rope_cli;

const std::string kDumps = std::string(ROPE_REFERENCE_DIR) + "/../../data/dumps/";

class CmdIdentify : public test::TempDirTest {};

TEST_F(CmdIdentify, FindsHalfLayoutAndBase10000) {
  const auto r = rope_cli({"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("pair layout         half: pairs (j, j + 32)"));
  EXPECT_THAT(r.out, HasSubstr("family              default: base 10000 "));
}

TEST_F(CmdIdentify, JsonOfYarnDump) {
  const auto r = rope_cli({"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope_yarn.npy", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["layout"], "half");
  EXPECT_EQ(j["rotary_dim"], 64);
  // float32 dump of 128 positions: the factor to 1e-5, the ramp ends (HF: pairs 8 and 21) to half a pair.
  EXPECT_NEAR(j["attention_factor"].get<double>(), 1.1386294361119891, 1e-5);
  EXPECT_EQ(j["family"]["family"], "yarn");
  EXPECT_NEAR(j["family"]["factor"].get<double>(), 4.0, 4e-3);
  EXPECT_NEAR(j["family"]["ramp_low"].get<double>(), 8.0, 0.5);
  EXPECT_NEAR(j["family"]["ramp_high"].get<double>(), 21.0, 0.5);
}

TEST_F(CmdIdentify, DrawsTheFigure) {
  const auto r = rope_cli({"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope_yarn.npy", "--png",
                           path("theta.png"), "--width", "640", "--height", "400"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(test::png_size(read(path("theta.png"))), (std::pair<std::uint32_t, std::uint32_t>{640, 400}));
}

TEST_F(CmdIdentify, BadInputsGiveOneLine) {
  expect_one_line_error(rope_cli({"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q.npy", "--positions", "0:1:200"}),
                        2, "--positions: the number of positions, 1, is not the length of the dump's sequence axis");
  expect_one_line_error(rope_cli({"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy", "--axes", "x"}), 2,
                        "--axes must be");
  std::ofstream(path("empty.txt")).flush();  // an empty list file (a regular one: /dev/null is refused, docs/errors.md)
  expect_one_line_error(rope_cli({"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy", "--png", path("x.png"),
                                  "--positions", "@" + path("empty.txt")}),
                        2, "--positions");
  EXPECT_FALSE(std::filesystem::exists(path("x.png")));
}

}  // namespace
}  // namespace rope
