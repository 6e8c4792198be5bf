// The option helpers of apps/rope/cli: values that stay empty unless typed (options.hpp), words parsed into
// enums when the command line is read (choice_option.hpp), resolve() from --dim/--base and the scaling
// options to the frequencies (scaling_options.hpp), and the library's errors that name a quantity, which
// the command line rewords to name the option (rope/core/invalid_quantity.hpp).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <optional>
#include <string>
#include <vector>

#include "rope/analysis/calculators/bench.hpp"
#include "rope/analysis/teaching/explain.hpp"
#include "rope/cli/lang.hpp"
#include "rope/cli/options.hpp"
#include "rope/cli/scaling_options.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/invalid_quantity.hpp"
#include "support/cli_harness.hpp"

namespace rope {
namespace {

using test::rope_cli;
using ::testing::HasSubstr;
using ::testing::Not;

/// Parses `args` (without the program name) with `app`.
void parse(CLI::App& app, std::vector<std::string> args) {
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  app.parse(args);
}

TEST(Options, AnOptionalValueStaysEmptyUnlessTyped) {
  std::optional<int> dim;
  std::optional<double> base;
  CLI::App app;
  cli::add_dim_option(app, dim, 64);
  cli::add_base_option(app, base);
  parse(app, {});
  EXPECT_FALSE(dim.has_value());
  EXPECT_FALSE(base.has_value());
  // The default is shown in --help, not stored: a typed value equal to the default is still "typed".
  EXPECT_THAT(app.help(), HasSubstr("64"));
  CLI::App again;
  cli::add_dim_option(again, dim, 64);
  cli::add_base_option(again, base);
  parse(again, {"--dim", "64", "--base", "500000"});
  ASSERT_TRUE(dim.has_value());
  EXPECT_EQ(*dim, 64);
  ASSERT_TRUE(base.has_value());
  EXPECT_EQ(*base, 500000.0);
}

TEST(Options, AnOptionalValueKeepsTheMessagesOfItsKind) {
  std::optional<int> dim;
  CLI::App app;
  cli::add_dim_option(app, dim, 64);
  EXPECT_THAT(
      [&] {
        parse(app, {"--dim", "128abc"});
      },
      ::testing::ThrowsMessage<InvalidArgument>(HasSubstr("--dim must be a decimal integer (got '128abc')")));
}

TEST(Options, WordsAreParsedIntoTheEnumWithTheirAliases) {
  Layout layout = Layout::Interleaved;
  CLI::App app;
  cli::add_layout_option(app, layout);
  parse(app, {"--layout", "neox"});
  EXPECT_EQ(layout, Layout::Half);
  Lang lang = Lang::En;
  CLI::App other;
  cli::add_lang_option(other, lang);
  parse(other, {"--lang", "zh"});
  EXPECT_EQ(lang, Lang::Zh);
}

TEST(Options, AWordOutsideTheListHasTheMessageOfDocsErrors) {
  Layout layout = Layout::Interleaved;
  CLI::App app;
  cli::add_layout_option(app, layout);
  EXPECT_THAT(
      [&] {
        parse(app, {"--layout", "bogus"});
      },
      ::testing::ThrowsMessage<InvalidArgument>("layout must be 'interleaved' or 'half' (got 'bogus')"));
  // The number CLI11 stores for the enum is not a word of the list.
  EXPECT_THAT(
      [&] {
        parse(app, {"--layout", "1"});
      },
      ::testing::ThrowsMessage<InvalidArgument>("layout must be 'interleaved' or 'half' (got '1')"));
  EXPECT_EQ(layout, Layout::Interleaved);
  const auto r = rope_cli({"decay", "--kind", "bogus"});
  test::expect_one_line_error(r, 2, "--kind must be 'bound', 'ones' or 'random' (got 'bogus')");
  EXPECT_EQ(r.err, "rope: --kind must be 'bound', 'ones' or 'random' (got 'bogus')\n");
}

TEST(Resolve, PlainRopeIsTheTypedOrDefaultDimensionAndBase) {
  const cli::ScalingOptions none;
  const ModelRope plain =
      cli::resolve(none, {std::nullopt, 8, std::nullopt, 10000.0, std::nullopt, Layout::Interleaved});
  EXPECT_TRUE(plain.plain);
  EXPECT_EQ(plain.spec.rotary_dim, 8);
  EXPECT_EQ(plain.spec.config.base, 10000.0);
  EXPECT_EQ(plain.spec.layout, Layout::Interleaved);
  EXPECT_TRUE(plain.spec.params.inv_freq.isApprox(frequencies(8, 10000.0), 0.0));
  EXPECT_TRUE(plain.layers.empty());
  EXPECT_EQ(layout_text(plain, Text()), "interleaved layout");
  const ModelRope typed = cli::resolve(none, {16, 8, 500.0, 10000.0, Layout::Half, Layout::Interleaved});
  EXPECT_EQ(typed.spec.rotary_dim, 16);
  EXPECT_EQ(typed.spec.config.base, 500.0);
  EXPECT_EQ(typed.spec.params.inv_freq[1], std::pow(500.0, -2.0 / 16));
  EXPECT_EQ(typed.spec.layout, Layout::Half);
  EXPECT_EQ(layout_text(typed, Text()), "half layout");
}

TEST(Resolve, PlainRopeChecksDimensionAndBaseAsTheFormulaStatesThem) {
  const cli::ScalingOptions none;
  try {
    cli::resolve(none, {7, 8, std::nullopt, 10000.0, std::nullopt, Layout::Interleaved});
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "dimension d must be even and between 2 and 65536 (got 7)");
  }
}

TEST(Resolve, APresetGivesItsDimensionUnlessDimIsTyped) {
  cli::ScalingOptions preset;
  preset.source.preset = "llama-2-7b";
  const ModelRope rope =
      cli::resolve(preset, {std::nullopt, 8, std::nullopt, 10000.0, std::nullopt, Layout::Interleaved});
  ASSERT_FALSE(rope.plain);
  EXPECT_EQ(rope.spec.rotary_dim, 128);  // the preset's head_dim, not the command's default 8
  EXPECT_EQ(rope.spec.config.base, 10000.0);
  EXPECT_TRUE(rope.spec.params.inv_freq.isApprox(frequencies(128, 10000.0), 0.0));
  for (const Message& line : rope.spec.origin) EXPECT_THAT(line.en, Not(HasSubstr("command line")));

  const ModelRope typed = cli::resolve(preset, {64, 8, 500000.0, 10000.0, std::nullopt, Layout::Interleaved});
  EXPECT_EQ(typed.spec.rotary_dim, 64);
  EXPECT_EQ(typed.spec.config.base, 500000.0);
  std::vector<std::string> origin;
  for (const Message& line : typed.spec.origin) origin.push_back(line.en);
  EXPECT_THAT(origin, ::testing::Contains("dim: --dim 64 (command line)"));
  EXPECT_THAT(origin, ::testing::Contains("base: --base 500000 (command line)"));
}

TEST(InvalidQuantity, TheLibraryNamesTheQuantityNotAnOption) {
  BenchSettings s;
  s.seq = 0;
  try {
    run_bench(s);
    ADD_FAILURE() << "no error";
  } catch (const InvalidQuantity& e) {
    EXPECT_EQ(e.quantity(), "sequence length");
    EXPECT_EQ(e.rule(), "must be between 1 and 4096 (got 0)");
    EXPECT_STREQ(e.what(), "sequence length must be between 1 and 4096 (got 0)");
  }
  explain::Setup setup;
  setup.theta = 7.0;
  try {
    explain::explain(setup);
    ADD_FAILURE() << "no error";
  } catch (const InvalidQuantity& e) {
    EXPECT_EQ(e.quantity(), "θ");
    EXPECT_THAT(e.what(), Not(HasSubstr("--")));
  }
}

TEST(InvalidQuantity, TheCommandLineNamesTheOption) {
  EXPECT_THAT(
      [] {
        cli::rethrow_naming_option(InvalidQuantity("sequence length", "must be 1"), {{"sequence length", "--seq"}});
      },
      ::testing::ThrowsMessage<InvalidArgument>("--seq must be 1"));
  EXPECT_THAT(
      [] {
        cli::rethrow_naming_option(InvalidQuantity("position M", "must be 1"), {{"sequence length", "--seq"}});
      },
      ::testing::ThrowsMessage<InvalidArgument>("position M must be 1"));
  EXPECT_EQ(rope_cli({"bench", "--seq", "0"}).err, "rope: --seq must be between 1 and 4096 (got 0)\n");
  EXPECT_EQ(rope_cli({"explain", "--q", "0,0"}).err,
            "rope: --q must not be the zero vector: it has no direction to rotate\n");
  const auto theta = rope_cli({"explain", "--theta", "7"});
  EXPECT_EQ(theta.code, 2);
  EXPECT_THAT(theta.err, ::testing::StartsWith("rope: --theta must be > 0 and at most 2π"));
}

}  // namespace
}  // namespace rope
