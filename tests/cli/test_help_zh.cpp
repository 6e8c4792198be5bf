// --help in Chinese (apps/rope/cli/help_zh.hpp, help_formatter.hpp): every text of every command's help
// has its Chinese in the catalog, and `--lang zh` or a Chinese locale shows it.
#include <cstdlib>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/cli/help_zh.hpp"
#include "support/cli_harness.hpp"

namespace rope::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(HelpZh, EveryHelpTextHasItsChinese) {
  const std::vector<std::string> missing = cli::help_texts_without_chinese();
  std::string list;
  for (const std::string& text : missing) list += "msgid \"" + text + "\"\nmsgstr \"…\"\n\n";
  EXPECT_TRUE(missing.empty()) << missing.size()
                               << " help texts have no Chinese: add each to po/zh_CN.po (no context), English "
                                  "exactly as below (C escapes as in the source):\n"
                               << list;
}

TEST(HelpZh, LangZhTranslatesHeadingsDescriptionsAndFooters) {
  const Result zh = rope_cli({"verify", "--help", "--lang", "zh"});
  ASSERT_EQ(zh.code, 0) << zh.err;
  EXPECT_THAT(zh.out, HasSubstr("用法：rope verify [选项]"));
  EXPECT_THAT(zh.out, HasSubstr("\n选项：\n"));  // every heading's colon full-width, as after 用法
  EXPECT_THAT(zh.out, Not(HasSubstr("选项:")));
  EXPECT_THAT(rope_cli({"verify", "--help-all", "--lang", "zh"}).out, Not(::testing::ContainsRegex("[^ -~]:\n")));
  EXPECT_THAT(zh.out, HasSubstr("示例：\n  rope verify\n"));
  EXPECT_THAT(zh.out, HasSubstr("-d,--dim INT=128"));  // option names, types and defaults as typed
  EXPECT_THAT(zh.out, Not(HasSubstr("Print this help message")));
  const Result top = rope_cli({"--help", "--lang=zh"});
  EXPECT_THAT(top.out, HasSubstr("学习："));  // the overview's groups (help_pages.hpp), full-width colon
  EXPECT_THAT(top.out, Not(HasSubstr("Learn:")));
  // English stays the default, and an explicit --lang en wins over a Chinese locale.
  EXPECT_THAT(rope_cli({"verify", "--help"}).out, HasSubstr("Usage: rope verify [OPTIONS]"));
}

TEST(HelpZh, TheLocaleChoosesTheLanguageAndLangWins) {
  const char* saved = std::getenv("LC_ALL");
  const std::string old = saved != nullptr ? saved : "";
  ::setenv("LC_ALL", "zh_CN.UTF-8", 1);
  const Result zh = rope_cli({"frequencies", "--help"});
  const Result en = rope_cli({"frequencies", "--help", "--lang", "en"});
  const Result table = rope_cli({"frequencies", "--dim", "4"});
  const Result error = rope_cli({"frequencies", "--dim", "3"});
  if (saved != nullptr) {
    ::setenv("LC_ALL", old.c_str(), 1);
  } else {
    ::unsetenv("LC_ALL");
  }
  EXPECT_THAT(zh.out, HasSubstr("用法："));
  EXPECT_THAT(en.out, HasSubstr("Usage:"));
  EXPECT_THAT(table.out, HasSubstr("RoPE 频率"));
  EXPECT_EQ(error.code, 2);
  EXPECT_THAT(error.err, HasSubstr("维度 d"));
  EXPECT_THAT(rope_cli({"frequencies", "--help"}).out, HasSubstr("Usage:"));  // the locale restored
}

TEST(HelpZh, ALocaleWhoseCharsetCannotHoldChineseFallsBackToEnglish) {
  // Under zh_TW.Big5 rope wrote its Chinese in UTF-8 regardless (issue 37, item 10).
  const char* saved = std::getenv("LC_ALL");
  const std::string old = saved != nullptr ? saved : "";
  std::vector<std::pair<std::string, std::string>> seen;
  for (const char* locale : {"zh_TW.Big5", "zh_CN.GB18030", "zh_CN.gbk@euro", "zh_CN.utf8", "zh_TW.UTF-8@x", "zh_CN"}) {
    ::setenv("LC_ALL", locale, 1);
    seen.emplace_back(locale, rope_cli({"frequencies", "--dim", "4"}).out);
  }
  if (saved != nullptr) {
    ::setenv("LC_ALL", old.c_str(), 1);
  } else {
    ::unsetenv("LC_ALL");
  }
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_THAT(seen[i].second, HasSubstr(i < 3 ? "RoPE frequencies" : "RoPE 频率")) << seen[i].first;
  }
}

}  // namespace
}  // namespace rope::test
