#include "rope/core/parse.hpp"

#include <charconv>
#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/core/error.hpp"

namespace rope {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(Parse, IntegersAreDecimal) {
  EXPECT_EQ(parse_integer("128", "--dim"), 128);
  EXPECT_EQ(parse_integer("+8", "--dim"), 8);
  EXPECT_EQ(parse_integer("-3", "--dim"), -3);
  EXPECT_EQ(parse_integer("010", "--dim"), 10);  // not octal 8
}

TEST(Parse, IntegersRejectJunkAndOverflow) {
  EXPECT_THAT([] { parse_integer("128abc", "--dim"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("--dim must be a decimal integer (got '128abc')")));
  EXPECT_THAT([] { parse_integer("99999999999999999999", "--trials"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("--trials is out of range")));
}

TEST(Parse, RealsAcceptDecimalAndExponentForms) {
  EXPECT_EQ(parse_real("10000", "--base"), 1e4);
  EXPECT_EQ(parse_real("1e4", "--base"), 1e4);
  EXPECT_EQ(parse_real("+5e5", "--base"), 5e5);
  EXPECT_EQ(parse_real("-0.5", "--position"), -0.5);
  EXPECT_EQ(parse_real("0.1", "x"), 0.1);  // correctly rounded, as from_chars guarantees
}

TEST(Parse, RealsRejectNanAndOverflow) {
  EXPECT_THAT([] { parse_real("nan", "--base"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("--base must be a finite number (got 'nan')")));
  EXPECT_THAT([] { parse_real("1e400", "--base"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("out of the range of a double")));
}

// A text that is no number, named by what is wrong with it.
struct ParseBadText {
  const char* name;
  const char* text;
};

class ParseIntegerRejects : public ::testing::TestWithParam<ParseBadText> {};

TEST_P(ParseIntegerRejects, TheText) {
  EXPECT_THROW(parse_integer(GetParam().text, "--dim"), InvalidArgument) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(Texts, ParseIntegerRejects,
                         ::testing::Values(ParseBadText{"empty", ""}, ParseBadText{"hex_0x80", "0x80"},
                                           ParseBadText{"exponent_1e3", "1e3"}, ParseBadText{"fraction_12_5", "12.5"},
                                           ParseBadText{"leading_space", " 12"}, ParseBadText{"minus_alone", "-"},
                                           ParseBadText{"plus_alone", "+"}),
                         [](const auto& info) { return std::string(info.param.name); });

class ParseRealRejects : public ::testing::TestWithParam<ParseBadText> {};

TEST_P(ParseRealRejects, TheText) {
  EXPECT_THROW(parse_real(GetParam().text, "--base"), InvalidArgument) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(Texts, ParseRealRejects,
                         ::testing::Values(ParseBadText{"inf", "inf"}, ParseBadText{"minus_inf", "-inf"},
                                           ParseBadText{"hex_0x10", "0x10"}, ParseBadText{"decimal_comma", "1,5"},
                                           ParseBadText{"empty", ""}, ParseBadText{"trailing_junk", "1e4x"},
                                           ParseBadText{"no_mantissa", "e4"}, ParseBadText{"trailing_space", "1 "}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Parse, ListsSplitOnCommasAndTrimSpaces) {
  EXPECT_EQ(parse_real_list("1,0, 0 ,1", "--vector"), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(parse_real_list("-2.5", "--vector"), (std::vector<double>{-2.5}));
}

TEST(Parse, ListsNameTheBadItem) {
  EXPECT_THAT([] { parse_real_list("1,2,x", "--vector"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("--vector item 3 must be a decimal number (got 'x')")));
  EXPECT_THAT([] { parse_real_list("1,,2", "--vector"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("--vector item 2 is empty")));
  EXPECT_THAT([] { parse_real_list("", "--vector"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("comma-separated list")));
  EXPECT_THROW(parse_real_list("1,2,", "--vector"), InvalidArgument);
}

TEST(Parse, ListsHaveALengthLimit) {
  std::string many = "0";
  for (std::size_t i = 0; i < kMaxListItems; ++i) many += ",0";
  EXPECT_THAT([&] { parse_real_list(many, "--vector"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("more than 65536 items")));
}

TEST(Parse, MessagesStayOnOneLine) {
  EXPECT_THAT([] { parse_real("1\nsystem('x')", "--base"); },
              ThrowsMessage<InvalidArgument>(::testing::Not(HasSubstr("\n"))));
}

}  // namespace
}  // namespace rope

namespace rope {
namespace {

TEST(ParseHardening, OneSignAtMost) {
  for (const char* text : {"+-1", "++1", "-+1", "--1", "+-0"}) {
    EXPECT_THROW(parse_integer(text, "--n"), InvalidArgument) << text;
    EXPECT_THROW(parse_real(text, "--x"), InvalidArgument) << text;
  }
  EXPECT_EQ(parse_integer("+1", "--n"), 1);
  EXPECT_EQ(parse_real("-1", "--x"), -1.0);
}

}  // namespace
}  // namespace rope

// The strtod fallback of parse_real (the WebAssembly build's libc++ has no floating-point from_chars) reads
// what std::from_chars reads: the same end, error and value, on every form from_chars knows and on the
// ones it stops at.
TEST(Parse, StrtodFallbackAgreesWithFromChars) {
  const char* texts[] = {"0",
                         "-0",
                         "1",
                         "10000",
                         "1e4",
                         "1E+4",
                         "-2.5e-3",
                         ".5",
                         "5.",
                         ".",
                         "-",
                         "-.",
                         "1e",
                         "1e+",
                         "1e-",
                         "1.5e3x",
                         "0x10",
                         "007",
                         "1e400",
                         "-1e400",
                         "1e-400",
                         "4e-320",
                         "2.2250738585072011e-308",
                         "1.7976931348623157e308",
                         "1.7976931348623159e308",
                         "0.1",
                         "3.141592653589793238462643383",
                         "123456789012345678901234567890",
                         "inf",
                         "-INF",
                         "Infinity",
                         "infinit",
                         "nan",
                         "NaN(abc_1)",
                         "nan(",
                         "nan(a b)",
                         " 1",
                         "",
                         "e5",
                         "+1",
                         "1..2",
                         "9007199254740993",
                         "4.9406564584124654e-324",
                         "2.4703282292062327e-324",
                         "2.4703282292062328e-324"};
  for (const char* text : texts) {
    const std::string_view s(text);
    double expected = -7.0, got = -7.0;
    const auto a = std::from_chars(s.data(), s.data() + s.size(), expected, std::chars_format::general);
    const auto b = rope::detail::from_chars_strtod(s.data(), s.data() + s.size(), got);
    EXPECT_EQ(a.ptr - s.data(), b.ptr - s.data()) << "'" << text << "'";
    EXPECT_EQ(a.ec, b.ec) << "'" << text << "'";
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(got)) << "'" << text << "'";
    } else {
      EXPECT_EQ(std::signbit(expected), std::signbit(got)) << "'" << text << "'";
      EXPECT_EQ(expected, got) << "'" << text << "'";
    }
  }
}
