// rope sections: chunked (A2) next to interleaved (A3), against tests/reference/mrope.py's ownership.
#include "rope/cli/cli.hpp"

#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>

#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::Result;
using test::rope_cli;
using ::testing::HasSubstr;

class CmdSections : public test::TempDirTest {};

TEST_F(CmdSections, TheCsvEqualsTheNumpyPortOfBothOrders) {
  // mrope_ownership.csv: HF's split into mrope_section * 2 chunks and HF's slice assignment, [16, 24, 24].
  const test::ReferenceCsv ref = test::read_reference("mrope_ownership.csv");
  const char* letters = "thwe";
  std::string chunked, interleaved;
  for (const auto& row : ref.rows) {
    if (row.at(1) != "16 24 24") continue;
    (row.at(0) == "chunked" ? chunked : interleaved) += letters[std::stoi(row.at(3))];
  }
  const Result r = rope_cli({"sections", "--model", "qwen2-vl-7b", "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const test::ReferenceCsv got = test::parse_reference(r.out);
  ASSERT_EQ(got.header, (std::vector<std::string>{"pair", "theta", "wavelength", "chunked", "interleaved"}));
  std::string c, i;
  for (const auto& row : got.rows) {
    c += row.at(3);
    i += row.at(4);
  }
  EXPECT_EQ(c, chunked);
  EXPECT_EQ(i, interleaved);
  EXPECT_EQ(got.rows.at(15).at(2), "160.1142068523735");  // λ_15 = 2π·1e6^(30/128) (M2)
}

TEST_F(CmdSections, TableFigureAndChinese) {
  const Result r = rope_cli({"sections", "--png", path("s.png")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("M-RoPE sections [24, 20, 20] (Qwen3-VL's default) over 64 pairs, d = 128, base = 5000000"));
  EXPECT_THAT(r.out, HasSubstr("  w (width)         20  44 … 63                 253350 … 2.46876e+07\n"));
  EXPECT_THAT(r.out, HasSubstr("  w (width)         20  2, 5, …, 59             10.1747 … 9.4144e+06\n"));
  std::ifstream png(path("s.png"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(png)), std::istreambuf_iterator<char>());
  EXPECT_EQ(test::png_size(bytes), (std::pair<std::uint32_t, std::uint32_t>{1200, 800}));
  const Result zh = rope_cli({"sections", "--sections", "16,24,24", "--base", "1000000", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("交错:THW·THW"));
  EXPECT_THAT(zh.out, HasSubstr("w (宽度)          24  40 … 63"));
}

TEST_F(CmdSections, BadSectionsAreOneLine) {
  expect_one_line_error(rope_cli({"sections", "--sections", "16,24"}), 2, "--sections needs 3 numbers t,h,w (got 2)");
  expect_one_line_error(rope_cli({"sections", "--sections", "16,24,23"}), 2,
                        "mrope_section [16, 24, 23] adds up to 63, not rotary_dim / 2 = 64");
  expect_one_line_error(rope_cli({"sections", "--sections", "16,24.5,23.5"}), 2,
                        "--sections: every section is a whole number in 0 … 65536 (got 24.5)");
}

}  // namespace
}  // namespace rope
