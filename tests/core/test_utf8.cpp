// rope/core/utf8.hpp: strict decoding (RFC 3629), validity, cutting at a character boundary, the one escape.
#include "rope/core/utf8.hpp"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace rope {
namespace {

/// Every decode_utf8 result over `text`, invalid bytes as U+FFFD, with the positions it stopped at.
std::vector<char32_t> decode_all(std::string_view text, std::vector<std::size_t>* stops = nullptr) {
  std::vector<char32_t> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto cp = decode_utf8(text, i);
    out.push_back(cp ? *cp : U'\uFFFD');
    if (stops != nullptr) stops->push_back(i);
  }
  return out;
}

TEST(Utf8, DecodesOneToFourByteSequences) {
  std::vector<std::size_t> stops;
  EXPECT_EQ(decode_all("a\xCE\xB8\xE9\x95\xBF\xF0\x9F\x98\x80", &stops),
            (std::vector<char32_t>{U'a', U'\u03B8', U'\u957F', U'\U0001F600'}));  // a θ 长 😀
  EXPECT_EQ(stops, (std::vector<std::size_t>{1, 3, 6, 10}));
}

TEST(Utf8, DecodesTheLimitsOfEachLength) {
  EXPECT_EQ(decode_all("\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF\xF0\x90\x80\x80\xF4\x8F\xBF\xBF"),
            (std::vector<char32_t>{0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF}));
}

TEST(Utf8, RejectsOverlongFormsSurrogatesAndValuesAboveTheRange) {
  for (const std::string bad : {"\xC0\x80", "\xE0\x80\x80", "\xF0\x80\x80\x80",  // overlong
                                "\xED\xA0\x80", "\xED\xBF\xBF",                  // surrogates
                                "\xF4\x90\x80\x80", "\xF8\x88\x80\x80\x80"}) {   // above U+10FFFF
    std::size_t i = 0;
    EXPECT_FALSE(decode_utf8(bad, i).has_value()) << bad.size();
    EXPECT_EQ(i, 1u) << "an invalid sequence advances by one byte";
    EXPECT_FALSE(is_valid_utf8(bad));
  }
}

TEST(Utf8, RejectsTruncatedSequencesAndStrayContinuationBytes) {
  std::size_t i = 0;
  EXPECT_FALSE(decode_utf8("\xE7\x9B", i).has_value());  // 3-byte lead, 2 bytes left
  EXPECT_EQ(i, 1u);
  EXPECT_EQ(decode_all("\xE7\x9B"), (std::vector<char32_t>{U'\uFFFD', U'\uFFFD'}));
  EXPECT_EQ(decode_all("\x80x"), (std::vector<char32_t>{U'\uFFFD', U'x'}));
  EXPECT_EQ(decode_all("\xE9\x95x"), (std::vector<char32_t>{U'\uFFFD', U'\uFFFD', U'x'}));  // cut by a new char
}

TEST(Utf8, ValidityOfWholeTexts) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ASCII"));
  EXPECT_TRUE(is_valid_utf8("相对距离 θ_i ≤ 2π"));
  EXPECT_FALSE(is_valid_utf8("ok \xFF"));
  EXPECT_FALSE(is_valid_utf8("\xE7\x9B"));
}

TEST(Utf8, BoundarySkipsContinuationBytesOnly) {
  const std::string text =
      "a\xE9\x95\xBF"
      "b";  // a 长 b
  EXPECT_EQ(utf8_boundary_at_or_after(text, 0), 0u);
  EXPECT_EQ(utf8_boundary_at_or_after(text, 1), 1u);  // the lead byte is a boundary
  EXPECT_EQ(utf8_boundary_at_or_after(text, 2), 4u);
  EXPECT_EQ(utf8_boundary_at_or_after(text, 3), 4u);
  EXPECT_EQ(utf8_boundary_at_or_after(text, 4), 4u);
  EXPECT_EQ(utf8_boundary_at_or_after(text, 5), 5u);
  EXPECT_EQ(utf8_boundary_at_or_after(text, 99), 5u);
  EXPECT_EQ(utf8_boundary_at_or_after("\x80\x80", 0), 2u);  // only continuation bytes: the end
}

TEST(Utf8, DisplayWidthCountsWideCharactersTwiceAndCombiningMarksNot) {
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("底数 β"), 6u);    // two Han characters, a space, a Greek letter
  EXPECT_EQ(display_width("（对照）"), 8u);  // full-width parentheses
  EXPECT_EQ(display_width("z\u0304"), 1u);   // z̄: a combining macron takes no column
  EXPECT_EQ(display_width("\xff"), 1u);      // an invalid byte: one replacement character
}

// The one escape of messages and output: every control of C0, C1 and Unicode's Bidi_Control shown by its escape,
// whatever the bound; newline and tab kept only when asked.
TEST(Utf8, EscapesEveryControlWhateverTheBound) {
  for (const std::size_t bound : {kWholeText, kQuotedBytes}) {
    EXPECT_EQ(escape_controls("a\nb\tc\rd\x1b[2J", bound), "a\\nb\\tc\\rd\\e[2J");
    EXPECT_EQ(escape_controls(std::string("\0\x07\x7f", 3), bound), "\\x00\\x07\\x7f");
    EXPECT_EQ(escape_controls("x\xc2\x85\xc2\x9b"
                              "31m",
                              bound),
              "x\\u0085\\u009b31m");
    EXPECT_EQ(escape_controls("llama\u202eamall\u202c\u2066", bound), "llama\\u202eamall\\u202c\\u2066");
    EXPECT_EQ(escape_controls("\xff\xc3", bound), "\\xff\\xc3");  // not UTF-8: each byte
    EXPECT_EQ(escape_controls("θ 长度 \u2065", bound), "θ 长度 \u2065");
  }
  EXPECT_EQ(escape_controls("a\nb\tc\r", kWholeText, Lines::Kept), "a\nb\tc\\r");
}

// A text whose escape is longer than the bound ends after the last whole character or escape that fits, then "…":
// never inside a UTF-8 sequence or an escape. At the bound exactly, nothing is cut.
TEST(Utf8, BoundCutsAtACharacterOrAnEscape) {
  EXPECT_EQ(escape_controls(std::string(kQuotedBytes, 'a'), kQuotedBytes), std::string(kQuotedBytes, 'a'));
  EXPECT_EQ(escape_controls(std::string(kQuotedBytes + 1, 'a'), kQuotedBytes), std::string(kQuotedBytes, 'a') + "…");
  EXPECT_EQ(escape_controls("abcd", 3), "abc…");
  EXPECT_EQ(escape_controls("ab长", 4), "ab…");    // 长 is 3 bytes: 5 > 4
  EXPECT_EQ(escape_controls("ab\x1b", 3), "ab…");  // \e is 2 bytes
  EXPECT_EQ(escape_controls("ab\x01", 5), "ab…");  // \x01 is 4 bytes
  EXPECT_EQ(escape_controls("ab\x01", 6), "ab\\x01");
  EXPECT_EQ(escape_controls("", 0), "");
  EXPECT_EQ(escape_controls("a", 0), "…");
  const std::string cut =
      escape_controls(std::string(kQuotedBytes, 'a').replace(kQuotedBytes - 2, 2, "长"), kQuotedBytes);
  EXPECT_TRUE(is_valid_utf8(cut));
  EXPECT_EQ(cut, std::string(kQuotedBytes - 2, 'a') + "…");
}

}  // namespace
}  // namespace rope
