// rope identify on the example dumps of data/dumps/ (tests/reference/make_dumps.py, NumPy): the text, the
// JSON, the figure, and one-line errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>

#include "rope/analysis/check/expectation.hpp"
#include "support/cli_harness.hpp"
#include "support/expectation.hpp"
#include "support/shared.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::rope_cli;
using ::testing::HasSubstr;

using test::kDumps;

class CmdIdentify : public test::TempDirTest {};

TEST_F(CmdIdentify, FindsHalfLayoutAndBase10000) {
  const auto r = rope_cli({"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("pair layout         half: pairs (j, j + 32)"));
  EXPECT_THAT(r.out, HasSubstr("family              default: base 10000 "));
}

TEST_F(CmdIdentify, DtypeStatesTheRounding) {
  // --dtype: the type the dump was computed in (tests/analysis/identify/test_identify.cpp StatedDtypeSetsTheRounding
  // shows what it changes); the report's dump row names it beside the file's storage.
  const auto r =
      rope_cli({"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy", "--dtype", "f16"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("dump                [seq,heads,d] = (128, 1, 64), f16 (<f4)"));
  EXPECT_THAT(r.out, HasSubstr("family              default: base 10000 "));
  const auto j = rope_cli(
      {"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy", "--dtype", "bf16", "--json"});
  EXPECT_EQ(nlohmann::json::parse(j.out)["dtype"], "bf16");
  expect_one_line_error(
      rope_cli({"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy", "--dtype", "f8"}), 2, "f8");
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

TEST_F(CmdIdentify, MropeSectionsFromAxisPositions) {
  // Qwen2-VL's layout of positions (8 text tokens, a 16 × 16 image at t = 8, 8 text tokens after it) and M-RoPE
  // [4, 2, 2] interleaved (A3) over d = 16, half layout, base 10000, rotated here in float64 and written as CSV.
  const std::vector<AxisPosition> p = test::text_image_positions(8, 16, 8);
  DumpVectors x;
  x.seq = static_cast<long>(p.size()), x.d = 16;
  for (std::size_t k = 0; k < p.size() * 16; ++k)
    x.values.push_back(std::sin(0.37 * static_cast<double>(k) + 1.0) + 0.1);
  RopeExpectation e = test::expect_half(16);
  e.rope.axes = make_axis_map({{4, 2, 2}, SectionOrder::Interleaved}, 8);
  const DumpVectors y = expected_dump(x, p, e);
  {
    std::ofstream b(path("before.csv")), a(path("after.csv")), pos(path("thw.csv"));
    for (long s = 0; s < x.seq; ++s) {
      for (int c = 0; c < 16; ++c) {
        b << fmt::format("{}{:.17g}", c ? "," : "", x.value(s, 0, c));
        a << fmt::format("{}{:.17g}", c ? "," : "", y.value(s, 0, c));
      }
      b << "\n", a << "\n";
      pos << fmt::format("{:g},{:g},{:g}\n", p[static_cast<std::size_t>(s)][0], p[static_cast<std::size_t>(s)][1],
                         p[static_cast<std::size_t>(s)][2]);
    }
  }
  const std::vector<std::string> args = {"identify",        "--before",         path("before.csv"), "--after",
                                         path("after.csv"), "--axis-positions", path("thw.csv")};
  auto r = rope_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(
      r.out,
      HasSubstr("  M-RoPE              mrope_section [4, 2, 2], interleaved (docs/multi-axis.md (A3)): pair j turns "
                "by θ_j·p_a(j)\n"));
  EXPECT_THAT(r.out, HasSubstr("family              default: base 10000 "));
  std::vector<std::string> json = args;
  json.push_back("--json");
  r = rope_cli(json);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mrope"]["sections"], nlohmann::json::array({4, 2, 2}));
  EXPECT_EQ(j["mrope"]["order"], "interleaved");
  EXPECT_EQ(j["mrope"]["pair_axis"], nlohmann::json::array({0, 1, 2, 0, 1, 2, 0, 0}));
  std::vector<std::string> zh = args;
  zh.insert(zh.end(), {"--lang", "zh"});
  EXPECT_THAT(rope_cli(zh).out, HasSubstr("第 j 对转 θ_j·p_a(j)"));
}

TEST_F(CmdIdentify, AnOptionOfCheckSaysWhatIdentifyInfers) {
  const std::vector<std::string> dumps{"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = dumps;
    args.insert(args.end(), extra.begin(), extra.end());
    return rope_cli(args);
  };
  expect_one_line_error(with({"--layout", "half"}), 2,
                        "rope identify infers the layout from the dumps: leave out --layout (rope check --layout "
                        "checks a dump against the layout you give)");
  expect_one_line_error(with({"--model=llama-3-8b"}), 2,
                        "rope identify infers the RoPE from the dumps, with no model: "
                        "leave out --model");
  expect_one_line_error(with({"--base", "500000"}), 2, "leave out --base (rope check --base checks a dump");
  expect_one_line_error(with({"--layout", "half", "--lang", "zh"}), 2,
                        "rope identify 从转储推断配对排列：请去掉 --layout");
  // A word identify does not know at all keeps CLI11's sentence.
  expect_one_line_error(with({"--bogus"}), 2, "not expected: --bogus");
}

TEST_F(CmdIdentify, BadInputsGiveOneLine) {
  expect_one_line_error(
      rope_cli({"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q.npy", "--positions", "0:1:200"}), 2,
      "--positions: the number of positions, 1, is not the length of the dump's sequence axis");
  expect_one_line_error(
      rope_cli({"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy", "--axes", "x"}), 2,
      "--axes must be");
  std::ofstream(path("empty.txt")).flush();  // an empty list file (a regular one: /dev/null is refused, docs/errors.md)
  expect_one_line_error(rope_cli({"identify", "--before", kDumps + "q.npy", "--after", kDumps + "q_rope.npy", "--png",
                                  path("x.png"), "--positions", "@" + path("empty.txt")}),
                        2, "--positions");
  EXPECT_FALSE(std::filesystem::exists(path("x.png")));
}

}  // namespace
}  // namespace rope
