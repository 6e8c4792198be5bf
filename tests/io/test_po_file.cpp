// The PO reader (src/rope/io/po_file.hpp) on texts written as GNU gettext writes them, and on the
// malformed ones it must refuse with the line and the rule.
#include <gtest/gtest.h>

#include "rope/core/error.hpp"
#include "rope/io/po_file.hpp"

namespace rope::test {
namespace {

TEST(PoFile, ReadsHeaderContextsFlagsCommentsAndContinuations) {
  const std::string text =
      "# translator comment\n"
      "msgid \"\"\n"
      "msgstr \"\"\n"
      "\"Content-Type: text/plain; charset=UTF-8\\n\"\n"
      "\n"
      "#. nested: {1}\n"
      "#: src/a.cpp:12\n"
      "#, python-brace-format, no-wrap\n"
      "msgctxt \"error\"\n"
      "msgid \"cannot read '{0}': {1}\"\n"
      "msgstr \"无法读取 '{0}'：{1}\"\n"
      "\n"
      "msgid \"\"\n"
      "\"two\\n\"\n"
      "\"lines \\\"quoted\\\" \\\\ \\t\\101\"\n"
      "msgstr \"两行\"\n";
  const std::vector<PoEntry> entries = parse_po(text, "t.po");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].id, "");
  EXPECT_EQ(entries[0].str, "Content-Type: text/plain; charset=UTF-8\n");
  EXPECT_FALSE(entries[0].has_context);
  const PoEntry& e = entries[1];
  EXPECT_TRUE(e.has_context);
  EXPECT_EQ(e.context, "error");
  EXPECT_EQ(e.id, "cannot read '{0}': {1}");
  EXPECT_EQ(e.str, "无法读取 '{0}'：{1}");
  EXPECT_TRUE(e.has_flag("python-brace-format"));
  EXPECT_TRUE(e.has_flag("no-wrap"));
  EXPECT_FALSE(e.has_flag("fuzzy"));
  EXPECT_EQ(e.extracted, std::vector<std::string>{"nested: {1}"});
  EXPECT_EQ(e.line, 10u);
  EXPECT_EQ(entries[2].id, "two\nlines \"quoted\" \\ \tA");
  EXPECT_EQ(entries[2].str, "两行");
}

TEST(PoFile, KeepsObsoleteAndFuzzyEntriesMarked) {
  const std::vector<PoEntry> entries =
      parse_po("#, fuzzy\nmsgid \"a\"\nmsgstr \"甲\"\n\n#~ msgid \"old\"\n#~ msgstr \"旧\"\n", "t.po");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_TRUE(entries[0].has_flag("fuzzy"));
  EXPECT_FALSE(entries[0].obsolete);
  EXPECT_TRUE(entries[1].obsolete);
  EXPECT_EQ(entries[1].id, "old");
}

TEST(PoFile, AcceptsCrlfAndAByteOrderMark) {
  const std::vector<PoEntry> entries = parse_po("\xEF\xBB\xBFmsgid \"a\"\r\nmsgstr \"b\"\r\n", "t.po");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].str, "b");
}

void expect_refused(const std::string& text, const std::string& message) {
  try {
    (void)parse_po(text, "t.po");
    ADD_FAILURE() << "accepted: " << text;
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(PoFile, RefusesMalformedTextNamingTheLineAndTheRule) {
  expect_refused("msgid \"a\"\n", "t.po:1: an entry must end with a msgstr");
  expect_refused("msgstr \"a\"\n", "t.po:1: msgstr must follow msgid");
  expect_refused("msgid \"a\"\nmsgid \"b\"\n", "t.po:2: msgid given twice in one entry");
  expect_refused("msgid a\nmsgstr \"\"\n", "t.po:1: a string must be enclosed in '\"'");
  expect_refused("msgid \"a\"b\"\nmsgstr \"\"\n", "t.po:1: a '\"' inside a string must be written \\\"");
  expect_refused("msgid \"a\\q\"\nmsgstr \"\"\n", "t.po:1: unknown escape '\\q' in a string");
  expect_refused("\"a\"\n", "t.po:1: a continuation string must follow msgctxt, msgid or msgstr");
  expect_refused("msgid \"a\"\nmsgid_plural \"b\"\n",
                 "t.po:2: plural forms are not supported (rope's catalog has none)");
  expect_refused("msgid \"a\"\n# c\nmsgstr \"b\"\n", "t.po:2: a comment cannot stand inside an entry");
  expect_refused("msgid \"a\"\nmsgstr \"b\"\nmsgword \"c\"\n",
                 "t.po:3: expected msgctxt, msgid, msgstr or a string (got 'msgword')");
  expect_refused("msgid \"\\777\"\nmsgstr \"\"\n", "t.po:1: an octal escape must be at most \\377");
}

TEST(PoFile, RefusesATextOverTheLimit) {
  EXPECT_THROW((void)parse_po(std::string(kMaxPoBytes + 1, '#'), "t.po"), InvalidArgument);
}

}  // namespace
}  // namespace rope::test
