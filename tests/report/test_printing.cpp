// The one matrix printer of the command line (apps/rope/report/printing.hpp), and the text helpers beside it.
#include "rope/report/printing.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>

namespace rope {
namespace {

using rope::MatrixFormat;

TEST(Printing, EntriesAreRightAlignedAndAnExactZeroIsPlain) {
  Eigen::MatrixXd m(2, 2);
  m << 1.0, 0.0, -0.5, 0.25;
  EXPECT_EQ(rope::matrix_lines(m), (std::vector<std::string>{" 1.000000         0", "-0.500000  0.250000"}));
  MatrixFormat two;
  two.digits = 2;
  std::ostringstream out;
  rope::print_matrix(out, m, two, "  ");
  EXPECT_EQ(out.str(), "   1.00     0\n  -0.50  0.25\n");
}

TEST(Printing, BracketsIndicesAndTheShortestForm) {
  Eigen::MatrixXd m(2, 2);
  m << 0.0, -0.5, -1.0, 0.0;
  MatrixFormat brackets;
  brackets.brackets = true;
  EXPECT_EQ(rope::matrix_lines(m, brackets)[0], "[         0 -0.500000 ]");
  MatrixFormat table{6, true, false, 3, "  ", false, true};
  EXPECT_EQ(rope::matrix_lines(m, table),
            (std::vector<std::string>{" i\\j     0     1", "   0     0  -0.5", "   1    -1     0"}));
  table.shortest = false;  // 6 decimals when asked, or when an entry has no short exact form
  EXPECT_EQ(rope::matrix_lines(m, table)[1], "   0          0  -0.500000");
}

TEST(Printing, ATinyNegativeEntryIsMinusZeroUnlessAsked) {
  Eigen::MatrixXd m(1, 2);
  m << -1e-17, 1.0;
  EXPECT_EQ(rope::matrix_lines(m)[0], "-0.000000  1.000000");
  MatrixFormat plain;
  plain.no_negative_zero = true;
  EXPECT_EQ(rope::matrix_lines(m, plain)[0], "0.000000 1.000000");  // the column is as wide as the entries printed
}

TEST(Printing, ColumnsCountWideCharactersTwice) {
  EXPECT_EQ(rope::columns("abc"), 3u);
  EXPECT_EQ(rope::columns("通道"), 4u);
  EXPECT_EQ(rope::columns("z̄"), 1u);  // a combining mark takes no column
  EXPECT_EQ(rope::pad("通道", 6), "通道  ");
  EXPECT_EQ(rope::fx(-0.41614683654714241), "-0.416147");
  EXPECT_EQ(rope::fx(0.5), "0.5");
  EXPECT_EQ(rope::fx(-1e-9), "0");
}

TEST(Printing, WrappedListBreaksAfterACommaUnderTheBracket) {
  const std::vector<std::string> items{"10", "11", "12", "13"};
  // "ab [10, 11," is 11 columns; "12," would make it 15 > 12.
  EXPECT_EQ(rope::wrapped_list("ab ", items, 12), (std::vector<std::string>{"ab [10, 11,", "    12, 13]"}));
  EXPECT_EQ(rope::wrapped_list("ab ", items), (std::vector<std::string>{"ab [10, 11, 12, 13]"}));
  EXPECT_EQ(rope::wrapped_list("通道 ", {"1", "2"}, 9),
            (std::vector<std::string>{"通道 [1,", "      2]"}));  // CJK: 2 columns
  EXPECT_EQ(rope::wrapped_list("x ", {}), (std::vector<std::string>{"x []"}));
}

TEST(Printing, WrapLinesBreaksLongLinesUnderTheirLastColumn) {
  EXPECT_EQ(rope::wrap_lines("short\nlines stay\n", 10), "short\nlines stay\n");
  // A table row: the rest goes under the text after the last two spaces.
  EXPECT_EQ(rope::wrap_lines("  a  one two three", 12), "  a  one two\n     three");
  // Prose: two columns right of the indentation.
  EXPECT_EQ(rope::wrap_lines(" one two three four", 10), " one two\n   three\n   four");
  // A word wider than the line stays whole; CJK counts 2 columns.
  EXPECT_EQ(rope::wrap_lines("abcdefghijkl", 5), "abcdefghijkl");
  EXPECT_EQ(rope::wrap_lines("通道 通道 通道", 10), "通道 通道\n  通道");
}

}  // namespace
}  // namespace rope

// shorten_middle: a name that fits stays; a longer one keeps its start and its end around "…" in exactly the width
// asked for (terminal columns: a Chinese character counts 2 and is never cut in half).
struct ShortenCase {
  const char* text;
  std::size_t width;
  const char* shortened;
};

class ShortenMiddle : public ::testing::TestWithParam<ShortenCase> {};

TEST_P(ShortenMiddle, KeepsBothEndsInTheWidth) {
  const ShortenCase& c = GetParam();
  const std::string got = rope::shorten_middle(c.text, c.width);
  EXPECT_EQ(got, c.shortened);
  EXPECT_LE(rope::columns(got), c.width);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, ShortenMiddle,
    ::testing::Values(ShortenCase{"blk.0.attn_q.weight", 19, "blk.0.attn_q.weight"},
                      ShortenCase{"model.layers.0.self_attn.q_proj.weight", 33, "model.layers.0.s…tn.q_proj.weight"},
                      ShortenCase{"model.layers.0.self_attn.k_proj.weight", 16, "model.la….weight"},
                      ShortenCase{"abcdef", 1, "…"}, ShortenCase{"abcdef", 0, ""},
                      ShortenCase{"查询投影权重张量", 9, "查询…张量"}));
