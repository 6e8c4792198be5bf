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
