// rope::Message (core/message.hpp): an id with numbered fields and its values; the English formatted at
// once, a translation through the translator a front end installs (here a test's own, then the command
// line's catalog again), nested messages translated too, and settings named by the front end.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "rope/cli/catalog.hpp"
#include "rope/core/error.hpp"
#include "rope/core/dtype.hpp"
#include "rope/core/message.hpp"

namespace rope::test {
namespace {

const std::string* toy_translation(std::string_view id, std::string_view /*context*/) {
  static const std::map<std::string, std::string, std::less<>> kToy = {
      {"factor {0} < 1 compresses the context ({1})", "factor {0} < 1 压缩上下文({1})"},
      {"explicit", "显式"},
      {"{1} before {0}", "{0} 在 {1} 之后"},
  };
  const auto it = kToy.find(id);
  return it != kToy.end() ? &it->second : nullptr;
}

const std::string* catalog_translation(std::string_view id, std::string_view context) {
  return cli::catalog_zh(id, context);
}

/// Installs the toy translator for one test and puts the command line's catalog back afterwards.
class MessageTest : public ::testing::Test {
 protected:
  void SetUp() override { Message::set_translator(&toy_translation); }
  void TearDown() override { Message::set_translator(&catalog_translation); }
};

TEST_F(MessageTest, FormatsTheEnglishWithNumbersAsFmtDoes) {
  const Message m = msg("a {0}, b {1:.3f}, c {2}, d {3}, e {4}", 0.1, 2.0, 7, std::size_t{3}, 0.1f);
  EXPECT_EQ(m.en, "a 0.1, b 2.000, c 7, d 3, e 0.1");
  EXPECT_EQ(m.id, "a {0}, b {1:.3f}, c {2}, d {3}, e {4}");
  EXPECT_EQ(m.in(Lang::En), m.en);
}

TEST_F(MessageTest, TranslatesTheIdAndNestedMessagesWithTheSameValues) {
  const Message m = msg("factor {0} < 1 compresses the context ({1})", 0.5, msg("explicit"));
  EXPECT_EQ(m.en, "factor 0.5 < 1 compresses the context (explicit)");
  EXPECT_EQ(m.in(Lang::Zh), "factor 0.5 < 1 压缩上下文(显式)");
  // the translation orders the values its own way
  EXPECT_EQ(msg("{1} before {0}", "b", "a").in(Lang::Zh), "b 在 a 之后");
}

TEST_F(MessageTest, WithoutATranslationTheEnglishShowsAndNestedOnesAreStillTranslated) {
  const Message m = msg("unknown to the catalog: {0}", msg("explicit"));
  EXPECT_EQ(m.in(Lang::Zh), "unknown to the catalog: 显式");
  EXPECT_EQ(Message::same("R_{n-m}").in(Lang::Zh), "R_{n-m}");  // verbatim: never formatted or translated
  EXPECT_TRUE(Message().empty());
  EXPECT_EQ(Message().in(Lang::Zh), "");
}

TEST_F(MessageTest, AnIdWhoseFieldsDoNotMatchItsValuesIsABug) {
  EXPECT_THROW((void)msg("two fields {0} {1}", 1), std::logic_error);
}

TEST(MessageCatalog, TheCommandLineInstallsItsCatalogAndItsOptionNames) {
  EXPECT_EQ(msg("llama3 does not scale attention").in(Lang::Zh), *cli::catalog_zh("llama3 does not scale attention"));
  EXPECT_EQ(option_name("float32"), "--float32");
  EXPECT_EQ(option_name("bf16_bits"), "--bf16-bits");
  EXPECT_EQ(option_name("positions_csv"), "rope positions --csv");
  EXPECT_EQ(option_name("scaling_methods"), "rope --scaling");
  // "command.name": another command's option (issue 61 item 8)
  EXPECT_EQ(option_name("inspect.list"), "rope inspect --list");
  EXPECT_EQ(option_name("frequencies.position"), "rope frequencies --position");
  EXPECT_EQ(option_name("apply.query"), "rope apply --query");
  // a setting whose option is shorter than its config key
  EXPECT_EQ(option_name("original_max_position_embeddings"), "--original-max-position");
}

TEST(MessageCatalog, ALibraryErrorCarriesItsMessageInTheErrorContext) {
  // The library states its rule as an error message: an id of the catalog's "error" context and its values,
  // so the command line shows it from the catalog (and `make pot` extracts its id).
  try {
    static_cast<void>(parse_dtype("f8"));
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    ASSERT_NE(e.message(), nullptr);
    EXPECT_EQ(e.message()->context, "error");
    EXPECT_EQ(e.message()->en, e.what());
    EXPECT_EQ(e.message()->id, "dtype must be f64, f32, f16 or bf16 (got '{0}')");
    EXPECT_EQ(e.message()->in(Lang::Zh), "dtype 必须是 f64、f32、f16 或 bf16（实际为 'f8'）");
  }
  EXPECT_EQ(InvalidArgument("finished text").message(), nullptr);
}

}  // namespace
}  // namespace rope::test
