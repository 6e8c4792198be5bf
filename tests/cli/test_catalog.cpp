// The one message catalog (apps/rope/cli/catalog.hpp, po/zh_CN.po): the program holds the file as it is in
// the source tree, and every entry keeps the catalog's rules, so that "no English left under --lang zh"
// follows from the catalog itself. msgfmt --check runs on the file too (CTest catalog.msgfmt).
#include <fmt/args.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "rope/cli/catalog.hpp"
#include "rope/cli/error_zh.hpp"

namespace rope::test {
namespace {

/// The field numbers {k} of a python-brace-format text ("{{" and "}}" are literal braces), or nullopt
/// when a brace stands alone or a field is not a plain number.
std::optional<std::multiset<int>> fields(const std::string& text) {
  std::multiset<int> out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "{{") == 0 || text.compare(i, 2, "}}") == 0) {
      ++i;
    } else if (text[i] == '}') {
      return std::nullopt;
    } else if (text[i] == '{') {
      const std::size_t close = text.find('}', i);
      if (close == std::string::npos) return std::nullopt;
      const std::string name = text.substr(i + 1, close - i - 1);
      const std::string number = name.substr(0, name.find(':'));  // {0:.3f}
      if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
      out.insert(std::stoi(number));
      i = close;
    }
  }
  return out;
}

TEST(Catalog, TheProgramHoldsThePoFileOfTheSourceTree) {
  std::ifstream in(ROPE_CATALOG_FILE, std::ios::binary);
  ASSERT_TRUE(in) << ROPE_CATALOG_FILE;
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_EQ(std::string(cli::catalog_text()), text.str());
}

TEST(Catalog, EveryEntryIsTranslatedOnceAndNoneIsFuzzyOrObsolete) {
  std::set<std::pair<std::string, std::string>> seen;
  std::size_t count = 0;
  for (const PoEntry& e : cli::catalog_entries()) {
    if (e.id.empty()) continue;  // the header
    SCOPED_TRACE(e.id);
    ++count;
    EXPECT_FALSE(e.obsolete) << "obsolete entries go (msgattrib --no-obsolete)";
    EXPECT_FALSE(e.has_flag("fuzzy")) << "a fuzzy translation is not shown: review it and drop the flag";
    EXPECT_NE(e.str, "") << "untranslated";
    EXPECT_NE(e.str, e.id) << "the Chinese is the English";
    // The contexts: none, errors, the one a printer gives trc (report/text.hpp) for a word translated otherwise
    // elsewhere, and the layouts' glossary names (models/rope_spec.hpp layout_term).
    EXPECT_TRUE(e.context.empty() || e.context == cli::kErrorContext || e.context == "check verdict" ||
                e.context == "layout")
        << "unknown context " << e.context;
    EXPECT_TRUE(seen.emplace(e.context, e.id).second) << "twice in the catalog";
  }
  EXPECT_GT(count, 1400u);
}

TEST(Catalog, ErrorFieldsAreNumberedInOrderAndTheChineseNamesTheSameOnes) {
  for (const PoEntry& e : cli::catalog_entries()) {
    if (e.context != cli::kErrorContext) continue;
    SCOPED_TRACE(e.id);
    const auto en = fields(e.id);
    const auto zh = fields(e.str);
    ASSERT_TRUE(en.has_value()) << "a brace of the English stands alone: write {{ or }}";
    ASSERT_TRUE(zh.has_value()) << "a brace of the Chinese stands alone: " << e.str;
    EXPECT_EQ(std::set<int>(zh->begin(), zh->end()), std::set<int>(en->begin(), en->end()));
    int k = 0;
    for (int f : *en) EXPECT_EQ(f, k++) << "the English names its fields {0}, {1}, … once each";
    EXPECT_EQ(!en->empty() || e.id.find('{') != std::string::npos, e.has_flag("python-brace-format"))
        << "an entry with fields or braces is python-brace-format (msgfmt then checks it)";
    for (int n : cli::nested_fields(e)) EXPECT_TRUE(en->count(n) == 1) << "nested: {" << n << "} is not a field";
    fmt::dynamic_format_arg_store<fmt::format_context> args;
    for (std::size_t i = 0; i < en->size(); ++i) args.push_back(std::string("V"));
    EXPECT_NO_THROW((void)fmt::vformat(e.str, args));
  }
}

TEST(Catalog, TheFieldsOfTheCommandLinesTextAgree) {
  // An entry without a context is a help text or an id of tr()/msg(): with braces it says whether they are
  // fields (python-brace-format: Text::tr formats it with values) or literal text (no-python-brace-format,
  // "e^{iφ}"). The English numbers its fields {0}, {1}, … in order of first use; the Chinese names the same.
  std::size_t formats = 0;
  for (const PoEntry& e : cli::catalog_entries()) {
    if (!e.context.empty() || e.id.empty()) continue;
    SCOPED_TRACE(e.id);
    const bool brace = e.id.find_first_of("{}") != std::string::npos;
    const bool format = e.has_flag("python-brace-format");
    EXPECT_EQ(brace, format || e.has_flag("no-python-brace-format")) << "braces of an id are fields or not, said once";
    if (!format) continue;
    ++formats;
    const auto en = fields(e.id);
    const auto zh = fields(e.str);
    ASSERT_TRUE(en.has_value()) << "a brace of the English stands alone: write {{ or }}";
    ASSERT_TRUE(zh.has_value()) << "a brace of the Chinese stands alone: " << e.str;
    EXPECT_EQ(std::set<int>(zh->begin(), zh->end()), std::set<int>(en->begin(), en->end()));
    // Fields in order of first use, and a value of the type each one's format spec asks for ({0:.3g}: a number).
    std::vector<std::string> specs;
    for (std::size_t i = e.id.find('{'); i != std::string::npos; i = e.id.find('{', i + 2)) {
      if (e.id.compare(i, 2, "{{") == 0) continue;
      const std::string field = e.id.substr(i + 1, e.id.find('}', i) - i - 1);
      const std::size_t k = std::stoul(field);
      EXPECT_LE(k, specs.size()) << "the English numbers its fields in order of first use";
      if (k == specs.size())
        specs.push_back(field.find(':') == std::string::npos ? "" : field.substr(field.find(':') + 1));
    }
    fmt::dynamic_format_arg_store<fmt::format_context> args;
    for (const std::string& spec : specs) {
      if (!spec.empty() && std::string("eEfFgG").find(spec.back()) != std::string::npos) {
        args.push_back(1.5);
      } else {
        args.push_back(std::string("V"));
      }
    }
    EXPECT_NO_THROW((void)fmt::vformat(e.id, args));
    EXPECT_NO_THROW((void)fmt::vformat(e.str, args));
  }
  EXPECT_GT(formats, 250u);
}

TEST(Catalog, AnErrorEntryTranslatesItsOwnEnglish) {
  // Each error id with its fields filled by distinct values comes back in Chinese with the values kept
  // (the matcher of error_zh.hpp finds it, or an entry with more fixed text for the same sentence).
  std::size_t checked = 0;
  for (const PoEntry& e : cli::catalog_entries()) {
    if (e.context != cli::kErrorContext || !cli::nested_fields(e).empty()) continue;
    SCOPED_TRACE(e.id);
    const std::size_t n = fields(e.id)->size();
    fmt::dynamic_format_arg_store<fmt::format_context> args;
    for (std::size_t i = 0; i < n; ++i) args.push_back(fmt::format("V{}x", i));
    const std::string english = fmt::vformat(e.id, args);
    const std::optional<std::string> zh = cli::error_zh_exact(english);
    ASSERT_TRUE(zh.has_value());
    for (std::size_t i = 0; i < n; ++i) EXPECT_NE(zh->find(fmt::format("V{}x", i)), std::string::npos) << *zh;
    ++checked;
  }
  EXPECT_GT(checked, 500u);
}

}  // namespace
}  // namespace rope::test
