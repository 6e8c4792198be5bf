// The option tables of docs/cli.md generated from CLI11 definitions (apps/rope/cli/option_tables.hpp).
#include <CLI/CLI.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/cli/cli.hpp"
#include "rope/cli/help_formatter.hpp"
#include "rope/cli/option_tables.hpp"
#include "rope/core/error.hpp"

namespace rope::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

/// A small `rope` with two commands: `one` has its own options and two of the group "Figure"; `two`
/// has the same --png and a --title whose help differs from `one`'s.
struct Fixture {
  CLI::App app{"test", "rope"};
  CLI::App* one = nullptr;
  CLI::App* two = nullptr;
  int dim = 128;
  std::vector<double> at{7, 1000};
  std::string png, title, name;
  bool flag = false;

  Fixture() {
    app.formatter(cli::make_help_formatter());
    one = app.add_subcommand("one", "first");
    one->add_option("-d,--dim", dim, "rotary dimension d")->type_name("INT")->capture_default_str();
    one->add_option("--at", at, "positions | of the table, 1 <= m < 9")->type_name("NUM")->capture_default_str();
    CLI::Option* required = one->add_option("--name", name, "the <name>")->type_name("TEXT")->required();
    one->add_flag("--flag", flag, "a flag")->excludes(required);
    one->add_option("--png", png, "draw a PNG")->type_name("FILE")->group("Figure");
    one->add_option("--title", title, "the title")->type_name("TEXT")->group("Figure");
    two = app.add_subcommand("two", "second");
    two->add_option("--png", png, "draw a PNG")->type_name("FILE")->group("Figure");
    two->add_option("--title", title, "the figure's title, two's own")->type_name("TEXT")->group("Figure");
  }
  std::vector<const CLI::App*> commands() const { return {one, two}; }
};

TEST(OptionTables, RowsCarryNamesTypesDefaultsRequiredAndExclusions) {
  Fixture f;
  const std::vector<cli::OptionRow> rows = cli::option_rows(*f.one);
  ASSERT_EQ(rows.size(), 6u);  // --help left out
  EXPECT_EQ(rows[0].names, "`-d`, `--dim INT`");
  EXPECT_EQ(rows[0].fallback, "128");
  EXPECT_EQ(rows[0].meaning, "rotary dimension d");
  EXPECT_EQ(rows[0].flags, (std::vector<std::string>{"-d", "--dim"}));
  EXPECT_EQ(rows[1].names, "`--at NUM …`");  // repeatable
  EXPECT_EQ(rows[2].fallback, "required");
  EXPECT_EQ(rows[3].names, "`--flag`");
  EXPECT_EQ(rows[3].fallback, "");
  EXPECT_EQ(rows[3].meaning, "a flag. Excludes: `--name`.");
  EXPECT_EQ(rows[4].group, "Figure");
}

TEST(OptionTables, TheTableEscapesCells) {
  Fixture f;
  const std::string table = cli::option_table(cli::option_rows(*f.one));
  EXPECT_THAT(
      table,
      HasSubstr("| option | default | meaning |\n|---|---|---|\n| `-d`, `--dim INT` | 128 | rotary dimension d |\n"));
  EXPECT_THAT(table, HasSubstr("positions \\| of the table, 1 <= m < 9"));  // no tag: kept
  EXPECT_THAT(table, HasSubstr("the \\<name>"));
}

TEST(OptionTables, HeadingAnchorsAreGitHubs) {
  EXPECT_EQ(cli::heading_anchor("## Context extension: `--scaling`, `--config`, `--model`"),
            "context-extension---scaling---config---model");
  EXPECT_EQ(cli::heading_anchor("### Animations (`--gif`)"), "animations---gif");
  EXPECT_EQ(cli::heading_anchor("## Figures"), "figures");
}

constexpr const char* kPage =
    "# Page\n\n## one\n\nOptions:\n\n<!-- rope_docgen: options of rope one -->\nstale\n<!-- rope_docgen: end -->\n\n"
    "## two\n\n<!-- rope_docgen: options of rope two -->\n<!-- rope_docgen: end -->\n\n"
    "## The figure options\n\n```console\n$ rope one\n# not a heading\n```\n"
    "<!-- rope_docgen: group Figure -->\n<!-- rope_docgen: end -->\nafter\n";

TEST(OptionTables, BlocksAreRewrittenAndSharedGroupsLinked) {
  Fixture f;
  const std::string page = cli::update_option_tables(kPage, f.commands());
  EXPECT_THAT(page, Not(HasSubstr("stale")));
  EXPECT_THAT(page, HasSubstr("<!-- rope_docgen: options of rope one -->\n\n| option | default | meaning |\n"));
  // --png is the same in both commands: the group's table has it, each command's table links it.
  EXPECT_THAT(page,
              HasSubstr("| `--title TEXT` |  | the title |\n"
                        "| `--png` |  | the [Figure options](#the-figure-options) |\n\n<!-- rope_docgen: end -->"));
  // --title differs between the two: each command lists its own.
  EXPECT_THAT(page, HasSubstr("| `--title TEXT` |  | the figure's title, two's own |\n"
                              "| `--png` |  | the [Figure options](#the-figure-options) |\n"));
  EXPECT_THAT(page, HasSubstr("<!-- rope_docgen: group Figure -->\n\n| option | default | meaning |\n|---|---|---|\n"
                              "| `--png FILE` |  | draw a PNG |\n\n<!-- rope_docgen: end -->\nafter\n"));
  EXPECT_EQ(cli::update_option_tables(page, f.commands()), page);  // generating twice changes nothing
}

TEST(OptionTables, AMissingCommandBlockOrEndOrUnknownNameIsAnError) {
  Fixture f;
  const std::string page = kPage;
  const auto without = [&](const std::string& text) {
    std::string p = page;
    p.erase(p.find(text), text.size());
    return p;
  };
  EXPECT_THROW(cli::update_option_tables(without("<!-- rope_docgen: options of rope two -->\n"), f.commands()),
               InvalidArgument);  // two has no block
  EXPECT_THROW(cli::update_option_tables(without("stale\n<!-- rope_docgen: end -->\n"), f.commands()),
               InvalidArgument);  // one's block has no end
  EXPECT_THROW(cli::update_option_tables(
                   page + "<!-- rope_docgen: options of rope three -->\n<!-- rope_docgen: end -->\n", f.commands()),
               InvalidArgument);
  EXPECT_THROW(cli::update_option_tables(page + "<!-- rope_docgen: group Nothing -->\n<!-- rope_docgen: end -->\n",
                                         f.commands()),
               InvalidArgument);
}

TEST(OptionTables, RopesCommandsAllHaveRowsAndTheListNamesEveryOption) {
  std::string list;
  std::size_t commands = 0;
  cli::visit_commands([&](const std::vector<const CLI::App*>& apps) {
    commands = apps.size();
    for (const CLI::App* app : apps) EXPECT_FALSE(cli::option_rows(*app).empty()) << app->get_name();
    list = cli::option_list(apps);
  });
  EXPECT_EQ(commands, cli::command_table().size());  // every command of the table, each with its rows
  EXPECT_THAT(list, HasSubstr("rope frequencies\t-d --dim\tOptions\n"));
  EXPECT_THAT(list, HasSubstr("rope matrix\t--png\tFigure\n"));
  EXPECT_THAT(list, HasSubstr("rope verify\t--scaling\tScaling\n"));
}

}  // namespace
}  // namespace rope::test
