// Error messages in Chinese (apps/rope/cli/error_zh.hpp): every message of docs/errors.md (the
// hardening sweep's corpus: what rope prints for every bad value of every option) has a Chinese template,
// and the Chinese keeps the values, paths and option names of the English.
#include <fmt/args.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>

#include "rope/cli/error_zh.hpp"
#include "support/cli_harness.hpp"

namespace rope::test {
namespace {

using ::testing::HasSubstr;

/// The messages of docs/errors.md's tables: the last cell of each row that starts "rope: ", without
/// "rope: " and the Markdown escape of '|'.
std::vector<std::string> documented_messages() {
  std::ifstream in(std::string(ROPE_REFERENCE_DIR) + "/../../docs/errors.md");
  std::vector<std::string> messages;
  for (std::string line; std::getline(in, line);) {
    const std::size_t at = line.rfind("| rope: ");
    if (line.rfind("| ", 0) != 0 || at == std::string::npos || line.size() < at + 10) continue;
    std::string message = line.substr(at + 8, line.size() - at - 8 - 2);  // drop " |"
    for (std::size_t p = message.find("\\|"); p != std::string::npos; p = message.find("\\|", p + 1)) {
      message.erase(p, 1);
    }
    messages.push_back(message);
  }
  return messages;
}

/// English left in a translated message: three words of letters in a row, once quoted values
/// ('...'), option names (--dim) and identifiers are taken out.
std::string english_left(const std::string& message) {
  // no std::regex: messages hold values of 100 000 characters, too long for its recursion
  std::string text;
  bool quoted = false;
  for (char c : message) {
    if (c == '\'') {
      quoted = !quoted;
      text += ' ';
    } else if (!quoted) {
      text += c;
    }
  }
  std::istringstream words(text);
  int run = 0;
  std::string phrase;
  for (std::string w; words >> w;) {
    while (!w.empty() && std::string("(,;:.)").find(w.back()) != std::string::npos) w.pop_back();
    if (!w.empty() && w.front() == '(') w.erase(w.begin());
    const bool word = w.size() >= 2 && std::all_of(w.begin(), w.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    });
    run = word ? run + 1 : 0;
    phrase = word ? phrase + " " + w : "";
    if (run >= 3) return phrase;
  }
  return "";
}

TEST(ErrorZh, TheDetectorFindsEnglish) {
  EXPECT_NE(english_left("--dim must be a decimal integer (got 'x')"), "");
  EXPECT_EQ(english_left("--dim 必须是十进制整数（实际为 'not a number at all'）"), "");
}

TEST(ErrorZh, EveryDocumentedMessageHasItsChinese) {
  const std::vector<std::string> messages = documented_messages();
  ASSERT_GT(messages.size(), 600u);  // the page was found and read
  std::vector<std::string> missing;
  for (const std::string& english : messages) {
    const std::optional<std::string> zh = cli::error_zh_exact(english);
    if (!zh || !english_left(*zh).empty()) {
      if (std::find(missing.begin(), missing.end(), english) == missing.end()) missing.push_back(english);
    }
  }
  std::string list;
  for (const std::string& m : missing) list += "  " + m + "\n";
  EXPECT_TRUE(missing.empty()) << missing.size()
                               << " messages of docs/errors.md have no Chinese (or keep English words): add a "
                                  "template to apps/rope/cli/error_zh_messages.cpp, e.g. {\"{} must be ... (got "
                                  "{})\", \"{0} 必须…（实际为 {1}）\"}:\n"
                               << list;
}

TEST(ErrorZh, TheChineseKeepsTheValuesAndNestsTheReason) {
  EXPECT_EQ(cli::error_zh("--dim must be a decimal integer (got '1?]0;x')"), "--dim 必须是十进制整数（实际为 '1?]0;x'）");
  EXPECT_EQ(cli::error_zh("cannot read 'a b.json': No such file or directory"), "无法读取 'a b.json'：没有这个文件或目录");
  // An unknown reason stays as the system wrote it; an unknown message stays English.
  EXPECT_EQ(cli::error_zh("cannot read 'x': Stale file handle"), "无法读取 'x'：Stale file handle");
  EXPECT_EQ(cli::error_zh("something new happened"), "something new happened");
  // The template with the most fixed text wins over a more general one.
  EXPECT_EQ(cli::error_zh("layout must be 'interleaved' or 'half' (got 'x')"),
            "layout 必须是 'interleaved' 或 'half'（实际为 'x'）");
}

TEST(ErrorZh, AHostileMessageEndsQuickly) {
  // thousands of the separators the templates search for: the work bound stops the search (kMaxSteps)
  std::string value;
  for (int i = 0; i < 20000; ++i) value += "', '";
  const std::string english = "--layout must be '" + value + "' (got '" + value + "')";
  const std::string zh = cli::error_zh(english);  // Chinese or English; it returns
  EXPECT_GE(zh.size(), value.size());
}

TEST(ErrorZh, EveryChineseTemplateFormats) {
  for (const auto& t : cli::detail::error_templates()) {
    SCOPED_TRACE(t.en);
    const std::string en = t.en;
    std::size_t holes = 0;
    for (std::size_t p = en.find('{'); p != std::string::npos; p = en.find('{', p + 1)) {
      if (en.compare(p, 2, "{}") == 0 || en.compare(p, 3, "{m}") == 0) ++holes;
    }
    fmt::dynamic_format_arg_store<fmt::format_context> args;
    for (std::size_t i = 0; i < holes; ++i) args.push_back(std::string("V"));
    EXPECT_NO_THROW((void)fmt::vformat(t.zh, args));
  }
}

TEST(ErrorZh, LangZhPrintsTheErrorInChineseWithTheSameExitCode) {
  expect_one_line_error(rope_cli({"frequencies", "--dim", "3", "--lang", "zh"}), 2,
                        "维度 d 必须是偶数，且在 2 到 65536 之间（实际为 3）");
  expect_one_line_error(rope_cli({"frequencies", "--dim", "x", "--lang", "zh"}), 2, "--dim 必须是十进制整数");
  expect_one_line_error(rope_cli({"frequencies", "--bogus", "--lang=zh"}), 2, "多余的参数：--bogus（见 'rope frequencies --help'）");
  expect_one_line_error(rope_cli({"inspect", "/nonexistent/c.json", "--lang", "zh"}), 3, "无法读取");
  expect_one_line_error(rope_cli({"--lang", "zh"}), 2, "多余的参数");
  // English unless asked.
  expect_one_line_error(rope_cli({"frequencies", "--dim", "3"}), 2, "dimension d must be even");
}

}  // namespace
}  // namespace rope::test
