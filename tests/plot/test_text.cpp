// rope/plot/text.hpp: quote(), the one way user text enters a gnuplot script, and squash().
#include "rope/plot/text.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plot/helpers.hpp"
#include "rope/core/error.hpp"

namespace rope::plot {
namespace {

using ::testing::Not;
using namespace plot_test;

TEST(Plot, QuoteDoublesEmbeddedSingleQuotes) {
  // gnuplot manual, "quote marks": inside single quotes '' stands for one '.
  EXPECT_EQ(quote("it's"), "'it''s'");
  EXPECT_EQ(quote("x'"), "'x'''");
  EXPECT_EQ(quote("a'b'c"), "'a''b''c'");
  EXPECT_EQ(quote(""), "''");
}

TEST(Plot, QuoteSpellsQuotesGnuplotCannotDoubleAsASubstring) {
  // gnuplot 5.4.4 (scanner.c) ends a literal at '' right after its opening quote or right after
  // another doubled quote: `print '''x'` and `print 'a''''b'` are syntax errors. Those quotes are cut
  // from a double-quoted string holding twice as many: `print "''"[1:1] . 'x'` prints 'x.
  EXPECT_EQ(quote("'"), R"("''"[1:1])");
  EXPECT_EQ(quote(R"('; system("x"))"), R"("''"[1:1] . '; system("x")')");
  EXPECT_EQ(quote("a''b"), R"('a' . "''''"[1:2] . 'b')");
  EXPECT_EQ(quote("''@x"), R"("''''"[1:2] . '@x')");
  EXPECT_EQ(quote("it's '@x'"), R"('it''s ''@x''')");  // each ' follows another character: doubled
}

TEST(Plot, QuoteReplacesControlCharactersWithSpaces) {
  // A raw newline would end the string and make the rest of the line a command.
  EXPECT_EQ(quote("a\nb\rc\td\x1b"
                  "e\x7f"
                  "f"),
            "'a b c d e f'");
  EXPECT_EQ(quote(std::string("nul\0byte", 8)), "'nul byte'");
}

TEST(Plot, QuoteKeepsBackquotesMacrosAndCommandsInsideOneLiteral) {
  const std::string text = "`touch x` @macro system(\"touch x\") \\ $d";
  const std::string q = quote(text);
  EXPECT_EQ(q, "'" + text + "'");
  // One literal: the only single quotes are the delimiters.
  EXPECT_EQ(q.find('\'', 1), q.size() - 1);
}

TEST(Plot, QuoteLeavesUtf8AloneAndReplacesBytesThatAreNotUtf8) {
  EXPECT_EQ(quote("θ_i ≤ 2π, 相对距离"), "'θ_i ≤ 2π, 相对距离'");
  // U+FFFD (EF BF BD) for a lone 0xFF and for a truncated 3-byte sequence (E7 9B).
  EXPECT_EQ(quote("a\xff"
                  "b"),
            "'a\xEF\xBF\xBD"
            "b'");
  EXPECT_EQ(quote("\xE7\x9B"), "'\xEF\xBF\xBD\xEF\xBF\xBD'");
}

TEST(Plot, SquashPutsAMessageOnOneLine) {
  EXPECT_EQ(squash("  line 1\n\tline 2 \r\n"), "line 1 line 2");
  EXPECT_EQ(squash(""), "");
  EXPECT_EQ(squash(" \n "), "");
}

TEST(Plot, SquashKeepsTheLastBytesCutAtACharacterBoundary) {
  const std::string head(1000, 'a');
  EXPECT_EQ(squash(head + " the end"), "..." + std::string(kMaxMessage - 8, 'a') + " the end");
  // 长 is 3 bytes: a cut inside it moves on to the next whole character.
  std::string text = "x";
  for (int i = 0; i < 200; ++i) text += "\xE9\x95\xBF";
  const std::string out = squash(text);
  ASSERT_EQ(out.rfind("...", 0), 0u);
  EXPECT_LE(out.size() - 3, kMaxMessage);
  EXPECT_EQ((out.size() - 3) % 3, 0u);
  EXPECT_EQ(out.substr(3, 3), "\xE9\x95\xBF");
}

TEST(Plot, ControlCharactersAreFound) {
  EXPECT_TRUE(has_control_character("a\nb"));
  EXPECT_TRUE(has_control_character("\x7F"));
  EXPECT_TRUE(has_control_character(std::string("a\0b", 3)));
  EXPECT_FALSE(has_control_character("plain, 长度 and θ"));
}

}  // namespace
}  // namespace rope::plot
