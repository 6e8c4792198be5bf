#include "rope/core/parse.hpp"

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

TEST(Parse, IntegersRejectJunkHexAndOverflow) {
  EXPECT_THAT([] { parse_integer("128abc", "--dim"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("--dim must be a decimal integer (got '128abc')")));
  for (const char* bad : {"", "0x80", "1e3", "12.5", " 12", "-", "+"}) {
    EXPECT_THROW(parse_integer(bad, "--dim"), InvalidArgument) << bad;
  }
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

TEST(Parse, RealsRejectNonFiniteHexAndJunk) {
  EXPECT_THAT([] { parse_real("nan", "--base"); }, ThrowsMessage<InvalidArgument>(HasSubstr("--base must be a finite number (got 'nan')")));
  EXPECT_THAT([] { parse_real("1e400", "--base"); }, ThrowsMessage<InvalidArgument>(HasSubstr("out of the range of a double")));
  for (const char* bad : {"inf", "-inf", "0x10", "1,5", "", "1e4x", "e4", "1 "}) {
    EXPECT_THROW(parse_real(bad, "--base"), InvalidArgument) << bad;
  }
}

TEST(Parse, ListsSplitOnCommasAndTrimSpaces) {
  EXPECT_EQ(parse_real_list("1,0, 0 ,1", "--vector"), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(parse_real_list("-2.5", "--vector"), (std::vector<double>{-2.5}));
}

TEST(Parse, ListsNameTheBadItem) {
  EXPECT_THAT([] { parse_real_list("1,2,x", "--vector"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("--vector item 3 must be a decimal number (got 'x')")));
  EXPECT_THAT([] { parse_real_list("1,,2", "--vector"); },
              ThrowsMessage<InvalidArgument>(HasSubstr("--vector item 2 is empty")));
  EXPECT_THAT([] { parse_real_list("", "--vector"); }, ThrowsMessage<InvalidArgument>(HasSubstr("comma-separated list")));
  EXPECT_THROW(parse_real_list("1,2,", "--vector"), InvalidArgument);
}

TEST(Parse, ListsHaveALengthLimit) {
  std::string many = "0";
  for (std::size_t i = 0; i < kMaxListItems; ++i) many += ",0";
  EXPECT_THAT([&] { parse_real_list(many, "--vector"); }, ThrowsMessage<InvalidArgument>(HasSubstr("more than 65536 items")));
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
