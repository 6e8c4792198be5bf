// The CLI in-process, across commands: --help and --version, exit codes, one-line messages on stderr,
// the figure options, no partial files. Each command has its own tests/cli/test_cmd_<name>.cpp.
#include "rope/cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <map>
#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "rope/cli/commands.hpp"
#include "rope/cli/help_pages.hpp"
#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"
#include "support/scoped_env.hpp"
#include "rope/core/frequencies.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::expect_plotted_data_equals_csv;
using test::png_size;
using test::Result;
using test::rope_cli;

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class Cli : public test::TempDirTest {};

TEST_F(Cli, HelpAndVersionSucceed) {
  EXPECT_EQ(rope_cli({"--help"}).code, 0);
  const Result v = rope_cli({"--version"});
  EXPECT_EQ(v.code, 0);
  EXPECT_THAT(v.out, StartsWith("rope "));
  for (const char* cmd : {"frequencies", "freqs", "matrix", "apply", "verify", "decay"}) {
    const Result r = rope_cli({cmd, "--help"});
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_THAT(r.out, HasSubstr("Example:")) << cmd;
  }
}

TEST_F(Cli, CommandTableNamesWhatEachCommandRegisters) {
  // `rope COMMAND ...` builds that command alone, found by name in commands.hpp's table before anything is built:
  // the table must name what each add function registers, in the order of `rope --help`.
  std::vector<std::pair<std::string, std::string>> built;
  cli::visit_commands([&](const std::vector<const CLI::App*>& apps) {
    for (const CLI::App* app : apps) {
      const std::vector<std::string> aliases = app->get_aliases();
      EXPECT_LE(aliases.size(), 1u) << app->get_name();
      built.emplace_back(app->get_name(), aliases.empty() ? std::string() : aliases.front());
    }
  });
  // One file per command, cmd_<name>.cpp, and one row per file: a command's file without its row would be
  // compiled and never run.
  const fs::path commands = fs::path(ROPE_REFERENCE_DIR) / "../../apps/rope/cli/commands";
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(commands)) {
    const std::string file = entry.path().filename().string();
    files += file.rfind("cmd_", 0) == 0 && entry.path().extension() == ".cpp";
  }
  ASSERT_EQ(built.size(), files);
  for (const auto& command : built) {
    EXPECT_TRUE(fs::exists(commands / ("cmd_" + command.first + ".cpp"))) << command.first;
  }
  EXPECT_EQ(cli::command_table(), built);
  for (const auto& [name, alias] : built) {
    for (const std::string& word : {name, alias}) {
      if (word.empty()) continue;
      const Result r = rope_cli({word, "--help"});
      EXPECT_EQ(r.code, 0) << word << ": " << r.err;
      EXPECT_THAT(r.out, HasSubstr("rope " + name)) << word;
    }
  }
  // A first word that is no command still builds them all: the overview, and "did you mean".
  EXPECT_THAT(rope_cli({"--help"}).out, HasSubstr("lesson"));
  EXPECT_THAT(rope_cli({"freqencies"}).err, HasSubstr("did you mean frequencies?"));
}

// A command is one row of kCommands (commands.hpp): its group in `rope --help` and its example (the base command line
// of the malformed-input sweep, tests/hardening/cases.py) are there, and a row without them fails here: the example
// starts with `rope NAME` and names only options the command registers.
class CommandRow : public ::testing::TestWithParam<cli::CommandEntry> {};

TEST_P(CommandRow, HasItsGroupAndAnExampleOfItsOwnOptions) {
  const cli::CommandEntry& row = GetParam();
  EXPECT_STREQ(cli::command_group(row.name), row.group == cli::HelpGroup::Learn        ? "Learn"
                                             : row.group == cli::HelpGroup::Compute    ? "Compute"
                                             : row.group == cli::HelpGroup::CheckModel ? "Check a model"
                                                                                       : "Figures");
  const std::string example = row.example;
  ASSERT_THAT(example + " ", StartsWith("rope " + std::string(row.name) + " ")) << "its row gives no example";
  CLI::App app;
  const cli::Command command = row.add(app);
  std::istringstream words(example.substr(5 + std::string(row.name).size()));
  for (std::string word; words >> word;) {
    if (word.rfind("--", 0) == 0) EXPECT_NE(command.app->get_option_no_throw(word), nullptr) << word;
  }
}
INSTANTIATE_TEST_SUITE_P(Commands, CommandRow,
                         ::testing::ValuesIn(std::begin(cli::kCommands), std::end(cli::kCommands)),
                         [](const ::testing::TestParamInfo<cli::CommandEntry>& info) {
                           return std::string(info.param.name);
                         });

// An option's rule (CLI11's needs/excludes) is a sentence of its description, not CLI11's "Excludes:" badge
// beside the option's name, and "M N" is not followed by "x 2" (issue 51).
struct HelpRule {
  std::vector<std::string> args;
  std::string shown;
  std::string not_shown;
};

class HelpRules : public ::testing::TestWithParam<HelpRule> {};

TEST_P(HelpRules, AreSentencesOfTheDescription) {
  const Result r = rope_cli(GetParam().args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(GetParam().shown));
  EXPECT_THAT(r.out, Not(HasSubstr(GetParam().not_shown)));
}

INSTANTIATE_TEST_SUITE_P(
    Cli, HelpRules,
    ::testing::Values(HelpRule{{"matrix", "--help"}, "multimodal sections (not with --relative)", "Excludes:"},
                      HelpRule{{"matrix", "--help"}, "(not with --csv, --position)", "M N x 2"},
                      HelpRule{
                          {"matrix", "--help", "--lang", "zh"}, "（不能与 --csv、--position 同用）", "不能与之同用："},
                      HelpRule{{"apply", "--help"}, "(needs --xpos)", "Needs:"}));

TEST_F(Cli, HelpShowsNoDefaultForRequiredOptionsAndListsRepeatedDefaults) {
  const Result apply = rope_cli({"apply", "--help"});
  EXPECT_THAT(apply.out, HasSubstr("-m,--position POS REQUIRED"));  // m, or t,h,w (docs/multi-axis.md)
  EXPECT_THAT(apply.out, Not(HasSubstr("NUM=0 REQUIRED")));
  EXPECT_THAT(apply.out, HasSubstr("-b,--base NUM=10000"));
  const Result layouts = rope_cli({"layouts", "--help"});
  EXPECT_THAT(layouts.out, HasSubstr("--position NUM ... (default: 5 12)"));
  EXPECT_THAT(layouts.out, Not(HasSubstr("NUM=5 12")));
  // Options that are optional without a default value show none (they showed "=0", a value never used).
  EXPECT_THAT(rope_cli({"matrix", "--help"}).out, HasSubstr("-m,--position POS           position m"));
  EXPECT_THAT(rope_cli({"frequencies", "--help"}).out, Not(HasSubstr("--position NUM=0")));
  EXPECT_THAT(rope_cli({"bound", "--help"}).out, Not(HasSubstr("--per-decade INT=0")));
  EXPECT_THAT(rope_cli({"attention", "--help"}).out, Not(HasSubstr("--shift INT=0")));
  EXPECT_THAT(rope_cli({"explain", "--help"}).out, Not(HasSubstr("--pair INT=0")));
}

TEST_F(Cli, UnexpectedWordsAreListedInTheOrderTyped) {
  // CLI11 lists them last first ("zh --lang"); an option before the command says where it belongs.
  expect_one_line_error(rope_cli({"--lang", "en"}), 2,
                        "these arguments were not expected: --lang en; --lang is an option of each command");
  // --lang zh anywhere, even before the command, makes the message Chinese (lang.hpp detect_lang)
  expect_one_line_error(rope_cli({"--lang", "zh"}), 2, "多余的参数：--lang zh；--lang 是各个命令的选项");
  expect_one_line_error(rope_cli({"frequencies", "a", "b"}), 2, "these arguments were not expected: a b");
}

TEST_F(Cli, UsageErrorsExitTwoWithOneLine) {
  expect_one_line_error(rope_cli({"--lang", "en"}), 2, "--lang is an option of each command");  // a bare rope: help
  expect_one_line_error(rope_cli({"transmogrify"}), 2, "transmogrify");
  expect_one_line_error(rope_cli({"verify", "--frobnicate"}), 2, "--frobnicate");
  expect_one_line_error(rope_cli({"apply", "--position", "1"}), 2, "--vector");
}

TEST_F(Cli, BadNumbersExitTwoNamingTheValueAndRule) {
  expect_one_line_error(rope_cli({"frequencies", "--dim", "7"}), 2,
                        "dimension d must be even and between 2 and 65536 (got 7)");
  expect_one_line_error(rope_cli({"frequencies", "--dim", "1"}), 2, "(got 1)");
  expect_one_line_error(rope_cli({"frequencies", "--dim", "131072"}), 2, "(got 131072)");
  expect_one_line_error(rope_cli({"frequencies", "--dim", "128abc"}), 2,
                        "--dim must be a decimal integer (got '128abc')");
  expect_one_line_error(rope_cli({"frequencies", "--base", "1"}), 2, "base must be a finite number > 1 (got 1)");
  expect_one_line_error(rope_cli({"frequencies", "--base", "nan"}), 2, "--base must be a finite number (got 'nan')");
  expect_one_line_error(rope_cli({"frequencies", "--base", "-5"}), 2, "(got -5)");
  expect_one_line_error(rope_cli({"verify", "--trials", "0"}), 2, "--trials must be between 1 and 1000000000 (got 0)");
  expect_one_line_error(rope_cli({"verify", "--max-position", "0"}), 2,
                        "--max-position must be an integer between 1 and 1e+12 (got 0)");
  expect_one_line_error(rope_cli({"verify", "--trials", "-3"}), 2, "(got -3)");
  expect_one_line_error(rope_cli({"decay", "--points", "0"}), 2, "--points must be between 1 and");
  expect_one_line_error(rope_cli({"decay", "--max-distance", "-1"}), 2, "--max-distance must be between 0 and");
  expect_one_line_error(rope_cli({"matrix", "--dim", "6", "--position", "inf"}), 2,
                        "--position must be a finite number");
  expect_one_line_error(rope_cli({"matrix", "--dim", "6"}), 2, "give exactly one of --position M or --relative M N");
}

TEST_F(Cli, UnwritableOutputExitsThreeAndLeavesNoFile) {
  const std::string target = path("missing-dir/decay.csv");
  expect_one_line_error(rope_cli({"decay", "--csv", target}), 3, "cannot write");
  EXPECT_FALSE(fs::exists(dir_ / "missing-dir"));
  expect_one_line_error(rope_cli({"frequencies", "--csv", dir_.string()}), 3, "Is a directory");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(Cli, FigureOptionsAreChecked) {
  expect_one_line_error(rope_cli({"decay", "--png", path("d.png"), "--lang", "fr"}), 2,
                        "--lang must be 'en' or 'zh' (got 'fr')");
  expect_one_line_error(rope_cli({"decay", "--png", path("d.png"), "--width", "10"}), 2,
                        "--width must be between 200 and 8000 pixels (got 10)");
  expect_one_line_error(rope_cli({"decay", "--output", path("d.bmp")}), 2, "d.bmp");
  expect_one_line_error(rope_cli({"decay", "--keep-script", path("d.gp")}), 2, "--keep-script needs a figure");
  expect_one_line_error(rope_cli({"decay", "--title", "x"}), 2, "--title needs a figure");
  expect_one_line_error(rope_cli({"wavelengths", "--width", "800"}), 2, "--width needs a figure");
  expect_one_line_error(rope_cli({"frequencies", "--max-position", "5"}), 2, "--max-position sets the figure");
  expect_one_line_error(rope_cli({"decay", "--samples", "50"}), 2, "--samples and --seed apply to --kind random only");
  expect_one_line_error(rope_cli({"matrix", "--relative", "1", "2", "--png", path("m.png")}), 2,
                        "use it with --position");
  for (const char* option : {"--png", "--svg", "--pdf", "--output", "--keep-script"}) {  // was a file named '-'
    expect_one_line_error(rope_cli({"wavelengths", option, "-"}), 2,
                          std::string(option) + " needs a file name, not '-'");
  }
  expect_one_line_error(rope_cli({"explain", "--gif", "-"}), 2, "--gif needs a file name, not '-'");
  // not "--csv and --png both write to standard output": a figure has no standard-output form to clash with
  expect_one_line_error(rope_cli({"wavelengths", "--png", "-", "--csv", "-"}), 2, "--png needs a file name, not '-'");
  EXPECT_FALSE(fs::exists("-"));
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(Cli, FiguresHaveTheRequestedSizeAndSameBytesEveryRun) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"decay", "--base", "10000", "--base", "500000"},
        std::vector<std::string>{"wavelengths", "--context", "4096"},
        std::vector<std::string>{"matrix", "--dim", "16", "--position", "3"},
        std::vector<std::string>{"frequencies", "--dim", "16", "--max-position", "40"}}) {
    for (const std::string name : {"a", "b"}) {
      std::vector<std::string> run = args;
      for (const std::string& extra : std::vector<std::string>{
               "--png", path(name + ".png"), "--svg", path(name + ".svg"), "--width", "640", "--height", "480"}) {
        run.push_back(extra);
      }
      const Result r = rope_cli(run);
      ASSERT_EQ(r.code, 0) << args[0] << ": " << r.err;
    }
    EXPECT_EQ(png_size(read(path("a.png"))), (std::pair<std::uint32_t, std::uint32_t>{640, 480})) << args[0];
    EXPECT_EQ(read(path("a.png")), read(path("b.png"))) << args[0];
    EXPECT_EQ(read(path("a.svg")), read(path("b.svg"))) << args[0];
    EXPECT_THAT(read(path("a.svg")), HasSubstr("<svg")) << args[0];
  }
}

TEST_F(Cli, FigureToAnUnwritablePlaceExitsThreeAndLeavesNothing) {
  expect_one_line_error(rope_cli({"decay", "--png", path("missing/d.png")}), 3, "d.png");
  expect_one_line_error(rope_cli({"matrix", "--dim", "4", "--position", "1", "--png", dir_.string()}), 3,
                        "Is a directory");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(Cli, MissingGnuplotExitsThreeWithTheInstallHint) {
  const test::ScopedEnv env("ROPE_GNUPLOT", "/nonexistent/gnuplot");
  expect_one_line_error(rope_cli({"decay", "--png", path("d.png")}), 3, "gnuplot not found (install gnuplot-nox)");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(Cli, TitleCannotInjectGnuplotCommands) {
  // Each title would run `touch` if it reached gnuplot unquoted, in double quotes, or after a newline.
  const fs::path old = fs::current_path();
  fs::current_path(dir_);
  const std::string titles[] = {"'; system(\"touch PWNED1\") #", "x\nsystem('touch PWNED2')", "`touch PWNED3` @x \\n"};
  int k = 0;
  for (const std::string& title : titles) {
    const Result r =
        rope_cli({"decay", "--points", "10", "--title", title, "--svg", path(fmt::format("t{}.svg", k++))});
    EXPECT_EQ(r.code, 0) << r.err;
  }
  fs::current_path(old);
  for (const char* f : {"PWNED1", "PWNED2", "PWNED3"}) EXPECT_FALSE(fs::exists(dir_ / f)) << f;
  EXPECT_THAT(read(path("t0.svg")), HasSubstr("<text>'; system(\"touch PWNED1\") #</text>"));  // drawn as typed
}

TEST_F(Cli, ChineseWithoutAChineseFontExitsThreeNamingThePackage) {
  fs::create_directories(dir_ / "fonts");
  std::ofstream(dir_ / "fonts.conf")
      << "<?xml version=\"1.0\"?><!DOCTYPE fontconfig SYSTEM \"fonts.dtd\"><fontconfig><dir>"
      << (dir_ / "fonts").string() << "</dir><cachedir>" << (dir_ / "fonts").string() << "</cachedir></fontconfig>";
  const test::ScopedEnv env("FONTCONFIG_FILE", (dir_ / "fonts.conf").c_str());
  expect_one_line_error(rope_cli({"decay", "--lang", "zh", "--png", path("zh.png")}), 3, "fonts-wqy-microhei");
  EXPECT_FALSE(fs::exists(dir_ / "zh.png"));
  // No font at all: an English PNG would come out with blank texts, so it is an error too (issue 18);
  // an SVG names its font and the viewer draws it.
  expect_one_line_error(rope_cli({"decay", "--png", path("en.png")}), 3,
                        "no font found by fontconfig for the figure's text (font 'Sans'; fc-list is empty): install "
                        "fonts-dejavu-core (and fontconfig)");
  EXPECT_FALSE(fs::exists(dir_ / "en.png"));
  EXPECT_EQ(rope_cli({"decay", "--svg", path("en.svg")}).code, 0);
}

// ---------------------------------------------------------------------------------------------
// Scaling methods and model presets through the command line (the library: test_scaling.cpp,
// test_model_config.cpp).

TEST_F(Cli, ScalingErrorsExitTwoNamingTheParameter) {
  expect_one_line_error(rope_cli({"frequencies", "--scaling", "llama3", "--factor", "8"}), 2,
                        "original_max_position_embeddings");
  expect_one_line_error(rope_cli({"frequencies", "--scaling", "linear", "--factor", "-2"}), 2, "factor");
  expect_one_line_error(rope_cli({"frequencies", "--scaling", "warp"}), 2, "warp");
  expect_one_line_error(rope_cli({"frequencies", "--model", "no-such-model"}), 2, "no-such-model");
  expect_one_line_error(rope_cli({"frequencies", "--model", "llama-2-7b", "--config", path("c.json")}), 2, "not both");
  expect_one_line_error(rope_cli({"decay", "--model", "llama-2-7b", "--base", "1e4", "--base", "1e5"}), 2,
                        "give one --base");
  expect_one_line_error(rope_cli({"apply", "--model", "llama-2-7b", "--position", "1", "--vector", "1,0,0,1"}), 2,
                        "--vector has 4 numbers but llama-2-7b rotates d = 128");
  expect_one_line_error(rope_cli({"inspect"}), 2, "needs a config.json FILE");
  expect_one_line_error(rope_cli({"frequencies", "--config", path("missing.json")}), 3, "missing.json");
  std::ofstream(path("bad.json")) << "{\"rope_theta\": \"ten thousand\", \"head_dim\": 128}";
  expect_one_line_error(rope_cli({"inspect", path("bad.json")}), 2, "rope_theta");
}

}  // namespace
}  // namespace rope
