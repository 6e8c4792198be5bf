// rope positions: HF's get_rope_index for text + image + video sequences against the NumPy port
// tests/reference/positions.py, the table, CSV, figure, Chinese and bad input.
#include "rope/cli/cli.hpp"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <map>
#include <sstream>

#include "rope/core/error.hpp"
#include "rope/models/mrope_positions.hpp"
#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::Result;
using test::rope_cli;
using ::testing::HasSubstr;

class CmdPositions : public test::TempDirTest {};

/// The CSV rows "token,t,h,w" of one case of tests/reference/positions_cases.csv.
std::string reference_case(const std::string& name) {
  const test::ReferenceCsv ref = test::read_reference("positions_cases.csv");
  std::string out;
  for (const auto& row : ref.rows) {
    if (row.at(0) == name) out += row.at(1) + "," + row.at(2) + "," + row.at(3) + "," + row.at(4) + "\n";
  }
  return out;
}

/// Columns token,t,h,w of rope's CSV (token,segment,kind,t,h,w).
std::string token_thw(const std::string& csv) {
  std::istringstream in(csv);
  std::string line, out;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    const auto c = test::split(line, ',');
    out += c.at(0) + "," + c.at(3) + "," + c.at(4) + "," + c.at(5) + "\n";
  }
  return out;
}

TEST_F(CmdPositions, EveryCaseEqualsTheNumpyPortOfGetRopeIndex) {
  // Exact integers: (Q1)-(Q4) and HF's arange/expand/flatten give the same ids.
  const std::map<std::string, std::vector<std::string>> cases{
      {"text5-image1x4x6-text3", {"--text", "5", "--image", "1x4x6", "--text", "3"}},
      {"text2-video3x4x2-text1", {"--text", "2", "--video", "3x4x2", "--text", "1"}},
      {"qwen2.5-text2-video4x2x4-tps2-spg0.5",
       {"--text", "2", "--video", "4x2x4", "--text", "2", "--tokens-per-second", "2", "--second-per-grid", "0.5"}},
      {"qwen2.5-text1-image1x4x4-video2x2x2-tps4",
       {"--text", "1", "--image", "1x4x4", "--video", "2x2x2", "--text", "1", "--tokens-per-second", "4"}},
      {"image2x6x2-merge1", {"--image", "2x6x2", "--merge-size", "1"}},
  };
  for (const auto& [name, args] : cases) {
    std::vector<std::string> a{"positions"};
    a.insert(a.end(), args.begin(), args.end());
    a.insert(a.end(), {"--csv", "-"});
    const Result r = rope_cli(a);
    ASSERT_EQ(r.code, 0) << name << r.err;
    const std::string want = reference_case(name);
    ASSERT_FALSE(want.empty()) << name;
    EXPECT_EQ(token_thw(r.out), want) << name;
  }
}

TEST_F(CmdPositions, TheWorkedExampleByHand) {
  // 5 text tokens 0 … 4; the image 1x4x6 is 1×2×3 merged tokens starting at 5: t = 5, h = 5 … 6,
  // w = 5 … 7; the text after it resumes at max + 1 = 8 (Q4).
  const Result r = rope_cli({"positions", "--text", "5", "--image", "1x4x6", "--text", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("sequence: text 5, image 1x4x6 → 1×2×3 tokens, text 3; 14 tokens"));
  EXPECT_THAT(r.out, HasSubstr("spatial merge size 2 (the value of every Qwen2-VL, Qwen2.5-VL and Qwen3-VL config)"));
  EXPECT_THAT(r.out, HasSubstr("     10        1  image          5         6         7\n"));
  EXPECT_THAT(r.out, HasSubstr("     11        2  text           8         8         8\n"));
  EXPECT_THAT(r.out, HasSubstr("the next token would start at 11"));
  const Result zh = rope_cli({"positions", "--text", "5", "--image", "1x4x6", "--text", "3", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("序列:文本 5, 图像 1x4x6 → 1×2×3 个词元, 文本 3;共 14 个词元"));
  EXPECT_THAT(zh.out, HasSubstr("下一个词元将从 11 开始"));
}

TEST_F(CmdPositions, DrawsTheIdsAndWritesTheCsv) {
  const Result r = rope_cli({"positions", "--text", "5", "--image", "1x4x6", "--text", "3", "--png", path("p.png"),
                             "--csv", path("p.csv"), "--keep-script", path("p.gp")});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream png(path("p.png"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(png)), std::istreambuf_iterator<char>());
  EXPECT_EQ(test::png_size(bytes), (std::pair<std::uint32_t, std::uint32_t>{1200, 800}));
  std::ifstream csv(path("p.csv"));
  const std::string text((std::istreambuf_iterator<char>(csv)), std::istreambuf_iterator<char>());
  EXPECT_EQ(token_thw(text), reference_case("text5-image1x4x6-text3"));
}

TEST_F(CmdPositions, BadInputIsOneLine) {
  expect_one_line_error(rope_cli({"positions", "--image", "1x3x4"}), 2,
                        "image grid 1x3x4: height 3 is not divisible by the spatial merge size 2");
  expect_one_line_error(rope_cli({"positions", "--image", "1x4"}), 2,
                        "--image must be a grid TxHxW of three whole numbers, e.g. 1x4x6 (got '1x4')");
  expect_one_line_error(rope_cli({"positions", "--image", "0x4x4"}), 2, "--image: every side of the grid must be between 1 and 65536 (got 0)");
  expect_one_line_error(rope_cli({"positions", "--text", "0"}), 2, "--text must be between 1 and 1000000 tokens (got 0)");
  expect_one_line_error(rope_cli({"positions"}), 2, "the sequence is empty");
  expect_one_line_error(rope_cli({"positions", "--image", "1000x1000x1000"}), 2, "the sequence has more than 1000000 tokens");
  expect_one_line_error(rope_cli({"positions", "--text", "3", "--second-per-grid", "2"}), 2,
                        "--second-per-grid scales video time (Qwen2.5-VL): give it with --tokens-per-second");
  expect_one_line_error(rope_cli({"positions", "--text", "3", "--second-per-grid", "-2"}), 2,
                        "--second-per-grid must be between 0 and 1e+06 (got -2)");
  expect_one_line_error(rope_cli({"positions", "--video", "4x2x2", "--tokens-per-second", "1e308"}), 2,
                        "tokens per second must be between 0 and 1e+06 (got 1e+308)");
  expect_one_line_error(rope_cli({"positions", "--text", "3", "--merge-size", "0"}), 2,
                        "the spatial merge size must be between 1 and 64 (got 0)");
  expect_one_line_error(rope_cli({"positions", "--text", "3", "--tokens-per-second", "-1"}), 2,
                        "tokens per second must be between 0 and 1e+06 (got -1)");
  EXPECT_THAT([] { parse_grid("1x\x01x2", "--image"); }, ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("--image")));
}

}  // namespace
}  // namespace rope
