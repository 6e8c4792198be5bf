// The help a new user reads (apps/rope/cli/help_pages.hpp, issue 36): the short help of every command in
// both languages (at most 25 lines of at most 100 columns), the long help within 100 columns with the
// shared groups one line each, `rope help`, the overview of a bare `rope`, and "did you mean" for a typo of
// every command, option and preset.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>

#include "rope/cli/cli.hpp"
#include "rope/cli/help_pages.hpp"
#include "rope/report/printing.hpp"
#include "rope/core/suggest.hpp"
#include "rope/models/presets.hpp"
#include "support/cli_harness.hpp"

namespace rope::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

/// Every command's name, from the commands themselves.
std::vector<std::string> command_names() {
  std::vector<std::string> names;
  cli::visit_commands([&](const std::vector<const CLI::App*>& apps) {
    for (const CLI::App* app : apps) names.push_back(app->get_name());
  });
  return names;
}

/// The long option names of `command` ("--dim"), without --help and --help-all.
std::vector<std::string> long_options(const std::string& command) {
  std::vector<std::string> names;
  cli::visit_commands([&](const std::vector<const CLI::App*>& apps) {
    for (const CLI::App* app : apps) {
      if (app->get_name() != command) continue;
      for (const CLI::Option* option : app->get_options()) {
        for (const std::string& name : option->get_lnames()) {
          if (name != "help" && name != "help-all") names.push_back("--" + name);
        }
      }
    }
  });
  return names;
}

/// The line count and widest line (terminal columns) of `text`.
std::pair<std::size_t, std::size_t> size_of(const std::string& text) {
  std::istringstream lines(text);
  std::size_t count = 0, widest = 0;
  for (std::string line; std::getline(lines, line);) {
    ++count;
    widest = std::max(widest, rope::columns(line));
  }
  return {count, widest};
}

/// A typo of `word` after its first `keep` characters: two neighbouring letters swapped, or (when they are
/// the same) one letter doubled.
std::string typo(const std::string& word, std::size_t keep) {
  std::string t = word;
  for (std::size_t i = keep; i + 1 < t.size(); ++i) {
    if (t[i] != t[i + 1] && t[i] != '-' && t[i + 1] != '-') {
      std::swap(t[i], t[i + 1]);
      return t;
    }
  }
  return word + word.back();
}

class HelpPages : public ::testing::Test {
 protected:
  // The help is broken at 100 columns unless COLUMNS says otherwise: the tests measure the default.
  void SetUp() override {
    if (const char* c = std::getenv("COLUMNS")) saved_ = c;
    unsetenv("COLUMNS");
  }
  void TearDown() override {
    if (!saved_.empty()) setenv("COLUMNS", saved_.c_str(), 1);
  }

 private:
  std::string saved_;
};

TEST_F(HelpPages, ShortHelpOfEveryCommandFitsTwentyFiveLinesOfHundredColumnsInBothLanguages) {
  const std::vector<std::string> commands = command_names();
  ASSERT_GE(commands.size(), 20u);
  for (const std::string& command : commands) {
    for (const char* lang : {"en", "zh"}) {
      const Result r = rope_cli({command, "-h", "--lang", lang});
      ASSERT_EQ(r.code, 0) << command << ' ' << r.err;
      const auto [lines, widest] = size_of(r.out);
      EXPECT_LE(lines, 25u) << command << ' ' << lang << '\n' << r.out;
      EXPECT_LE(widest, 100u) << command << ' ' << lang << '\n' << r.out;
      EXPECT_THAT(r.out, HasSubstr("  rope ")) << command << ": the example";  // one example
      EXPECT_THAT(r.out, HasSubstr("rope " + command + " --help")) << command;
      EXPECT_THAT(r.out, Not(HasSubstr("--beta-fast"))) << command << ": the shared options are not listed";
    }
  }
  // The short help is the command's own options, in the language asked.
  const Result freqs = rope_cli({"frequencies", "-h"});
  EXPECT_THAT(freqs.out, StartsWith("Table of the rotation frequencies"));
  EXPECT_THAT(freqs.out, HasSubstr("Usage: rope frequencies [OPTIONS]"));
  EXPECT_THAT(freqs.out, HasSubstr("-d,--dim INT=128"));
  EXPECT_THAT(freqs.out, HasSubstr("Example:\n  rope frequencies --dim 8 --base 10000\n"));
  EXPECT_THAT(rope_cli({"frequencies", "-h", "--lang", "zh"}).out, HasSubstr("用法：rope frequencies [选项]"));
}

TEST_F(HelpPages, LongHelpOfEveryCommandFitsHundredColumnsAndSummarisesTheSharedGroups) {
  for (const std::string& command : command_names()) {
    for (const char* lang : {"en", "zh"}) {
      for (const char* flag : {"--help", "--help-all"}) {
        const Result r = rope_cli({command, flag, "--lang", lang});
        ASSERT_EQ(r.code, 0) << command << ' ' << flag << ' ' << r.err;
        EXPECT_LE(size_of(r.out).second, 100u) << command << ' ' << flag << ' ' << lang << '\n' << r.out;
      }
    }
  }
  const Result help = rope_cli({"decay", "--help"});
  EXPECT_THAT(help.out, Not(HasSubstr("--beta-fast")));
  EXPECT_THAT(help.out, Not(HasSubstr("--keep-script")));
  EXPECT_THAT(help.out, HasSubstr("Shared options:"));
  EXPECT_THAT(help.out, HasSubstr("rope help scaling"));
  EXPECT_THAT(help.out, HasSubstr("rope help figures"));
  EXPECT_THAT(help.out, HasSubstr("--gif FILE"));       // the command's own animation stays
  EXPECT_LE(size_of(help.out).first, 50u) << help.out;  // 71 lines before the shared groups were summarised
  const Result all = rope_cli({"decay", "--help-all"});
  EXPECT_THAT(all.out, HasSubstr("--beta-fast NUM"));
  EXPECT_THAT(all.out, HasSubstr("--keep-script FILE"));
  // rope help COMMAND is the command's --help; the topics list the shared options in full.
  EXPECT_EQ(rope_cli({"help", "decay"}).out, help.out);
  const Result scaling = rope_cli({"help", "scaling"});
  EXPECT_EQ(scaling.code, 0);
  EXPECT_THAT(scaling.out, HasSubstr("--beta-fast NUM"));
  EXPECT_THAT(scaling.out, HasSubstr("--float32"));
  EXPECT_THAT(rope_cli({"help", "figures"}).out, HasSubstr("--keep-script FILE"));
  const Result language = rope_cli({"help", "language", "--lang", "zh"});
  EXPECT_THAT(language.out, HasSubstr("语言"));
  for (const char* topic : {"scaling", "figures", "language"}) {
    for (const char* lang : {"en", "zh"}) {
      EXPECT_LE(size_of(rope_cli({"help", topic, "--lang", lang}).out).second, 100u) << topic << ' ' << lang;
    }
  }
  expect_one_line_error(rope_cli({"help", "scalng"}), 2, "did you mean scaling?");
  expect_one_line_error(rope_cli({"help", "nothing-like-it"}), 2, "unknown command or help topic 'nothing-like-it'");
}

TEST_F(HelpPages, BareRopeAndHelpShowTheCommandsInFourGroups) {
  const Result bare = rope_cli({});
  EXPECT_EQ(bare.code, 0) << bare.err;
  EXPECT_EQ(bare.err, "");
  for (const char* group : {"\nLearn:\n", "\nCompute:\n", "\nCheck a model:\n", "\nFigures:\n"}) {
    EXPECT_THAT(bare.out, HasSubstr(group));
  }
  for (const std::string& command : command_names()) {
    EXPECT_THAT(bare.out, HasSubstr("\n  " + command)) << command;
    EXPECT_NE(std::string(cli::command_group(command)), "") << command;
  }
  EXPECT_LE(size_of(bare.out).second, 100u) << bare.out;
  // The four that are easy to confuse differ in their first words.
  const auto entry = [](const std::string& name, const std::string& text) {
    return "\n  " + name + std::string(20 - name.size(), ' ') + text;  // descriptions start at column 22
  };
  EXPECT_THAT(bare.out, HasSubstr(entry("verify", "RoPE's mathematics on random vectors")));
  EXPECT_THAT(bare.out, HasSubstr(entry("check", "YOUR implementation, from dumped tensors")));
  EXPECT_THAT(bare.out, HasSubstr(entry("inspect", "A model's RoPE, from its config.json")));
  EXPECT_THAT(bare.out, HasSubstr(entry("identify", "Which RoPE produced these tensors")));
  const Result help = rope_cli({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("Exit codes"));
  EXPECT_EQ(rope_cli({"help"}).out, help.out);
  EXPECT_EQ(rope_cli({"-h"}).out, help.out);
  // `rope -h decay` and `rope --help decay` ask for decay's help, as `rope decay -h` and `--help` (issue 51).
  EXPECT_EQ(rope_cli({"-h", "decay"}).out, rope_cli({"decay", "-h"}).out);
  EXPECT_EQ(rope_cli({"--help", "decay"}).out, rope_cli({"decay", "--help"}).out);
  EXPECT_EQ(rope_cli({"-h", "--lang", "zh", "decay"}).out, rope_cli({"decay", "-h", "--lang", "zh"}).out);
  const Result zh = rope_cli({"help", "--lang", "zh"});
  EXPECT_THAT(zh.out, HasSubstr("\n学习：\n"));
  EXPECT_THAT(zh.out, HasSubstr("\n检查模型：\n"));
  EXPECT_LE(size_of(zh.out).second, 100u) << zh.out;
}

TEST_F(HelpPages, AWordThatIsNoCommandIsRefusedEvenWithHelp) {
  // It printed the top-level help with exit 0.
  expect_one_line_error(rope_cli({"compare", "--help"}), 2, "unknown command 'compare' (see 'rope --help')");
  expect_one_line_error(rope_cli({"compare", "--help", "--lang", "zh"}), 2, "未知的命令 'compare'");
}

TEST_F(HelpPages, WidthFollowsColumns) {
  setenv("COLUMNS", "60", 1);
  EXPECT_LE(size_of(rope_cli({"decay", "--help"}).out).second, 60u);
  setenv("COLUMNS", "100000", 1);  // what tests/hardening/sweep.py reads: one line per option
  EXPECT_THAT(
      rope_cli({"frequencies", "--help-all"}).out,
      HasSubstr("--vision KIND               a vision tower's 2-D RoPE of --dim and --base: qwen2-vl, llama.cpp, "
                "pixtral, llama4, axial or gemma4 (docs/multi-axis.md §6)\n"));
  unsetenv("COLUMNS");
  // Chinese breaks between characters, within the width.
  for (const std::string& line :
       cli::wrap_text("在终端里画图：auto（终端能显示 sixel 就用 sixel，否则用文字）、sixel 或 text", 20)) {
    EXPECT_LE(rope::columns(line), 20u) << line;
    EXPECT_NE(line.rfind("，", 0), 0u) << line;  // no line starts with a closing mark
  }
  EXPECT_EQ(cli::wrap_text("aaaa bbbb cccc", 9), (std::vector<std::string>{"aaaa bbbb", "cccc"}));
}

TEST_F(HelpPages, EveryCommandTypoGetsItsName) {
  for (const std::string& command : command_names()) {
    const std::string typed = typo(command, 1);
    for (const char* lang : {"en", "zh"}) {
      const Result r = rope_cli({typed, "--lang", lang});
      EXPECT_EQ(r.code, 2) << typed;
      EXPECT_THAT(r.err,
                  HasSubstr(std::string(lang) == "en" ? "did you mean " + command + "?" : "是否应为 " + command + "？"))
          << typed << ' ' << r.err;
    }
  }
  EXPECT_THAT(rope_cli({"frequencie", "--dim", "8"}).err,
              HasSubstr("unknown command 'frequencie'; did you mean frequencies?"));
  EXPECT_THAT(rope_cli({"freq"}).err, HasSubstr("did you mean freqs?"));
}

TEST_F(HelpPages, EveryOptionTypoGetsTheClosestOption) {
  std::size_t checked = 0;
  for (const std::string& command : command_names()) {
    const std::vector<std::string> options = long_options(command);
    for (const std::string& option : options) {
      const std::string typed = typo(option, 3);  // "--dmi"
      // Chinese for the first option of each command: the sentence is the same for every option.
      for (const bool zh : {false, true}) {
        if (zh && option != options.front()) continue;
        const Result r = zh ? rope_cli({command, typed, "1", "--lang", "zh"}) : rope_cli({command, typed, "1"});
        EXPECT_EQ(r.code, 2) << command << ' ' << typed;
        const std::string marker = zh ? "是否应为 " : "did you mean ", end = zh ? "？" : "?";
        const std::size_t at = r.err.find(marker);
        ASSERT_NE(at, std::string::npos) << command << ' ' << typed << ": " << r.err;
        const std::string suggested = r.err.substr(at + marker.size(), r.err.find(end, at) - at - marker.size());
        // The intended option, or one as close to the typo.
        EXPECT_LE(edit_distance(typed, suggested), edit_distance(typed, option))
            << command << ' ' << typed << ' ' << suggested;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 300u);
  expect_one_line_error(rope_cli({"frequencies", "--dmi", "8"}), 2,
                        "these arguments were not expected: --dmi 8; did you mean --dim?");
  // A typo of a required option names it, not only "--vector is required".
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vectr", "1,0"}), 2, "did you mean --vector?");
  expect_one_line_error(rope_cli({"frequencies", "--dmi", "8", "--lang", "zh"}), 2,
                        "多余的参数：--dmi 8；是否应为 --dim？");
}

TEST_F(HelpPages, EveryPresetTypoGetsItsName) {
  const std::vector<PresetInfo> presets = list_presets();
  ASSERT_GE(presets.size(), 20u);
  for (const PresetInfo& preset : presets) {
    const std::string typed = typo(preset.name, 2);
    const Result r = rope_cli({"inspect", "--model", typed});
    EXPECT_EQ(r.code, 2) << typed;
    EXPECT_THAT(r.err, HasSubstr("did you mean " + preset.name + "?")) << typed << ": " << r.err;
    const Result zh = rope_cli({"inspect", "--model", typed, "--lang", "zh"});
    EXPECT_EQ(zh.code, 2) << typed;
    EXPECT_THAT(zh.err, HasSubstr("是否应为 " + preset.name + "？")) << typed << ": " << zh.err;
  }
  // The example of issue 36, in both languages; a name far from every preset still lists them all.
  expect_one_line_error(rope_cli({"inspect", "--model", "llama3.1-8b"}), 2,
                        "unknown model preset 'llama3.1-8b'; did you mean llama-3.1-8b? (rope inspect --list)");
  expect_one_line_error(rope_cli({"inspect", "--model", "llama3.1-8b", "--lang", "zh"}), 2, "是否应为 llama-3.1-8b？");
  expect_one_line_error(rope_cli({"inspect", "--model", "bert"}), 2, "(known: chatglm3-6b, ");
}

TEST_F(HelpPages, LayerTypesAndChoicesGetSuggestions) {
  expect_one_line_error(rope_cli({"inspect", "--model", "gemma-3-27b", "--layer-type", "full_atention"}), 2,
                        "did you mean full_attention?");
  expect_one_line_error(rope_cli({"matrix", "--dim", "4", "--position", "1", "--layout", "interleavd"}), 2,
                        "layout must be 'interleaved' or 'half' (got 'interleavd'); did you mean interleaved?");
  expect_one_line_error(rope_cli({"matrix", "--dim", "4", "--position", "1", "--layout", "interleavd", "--lang", "zh"}),
                        2, "；是否应为 interleaved？");
  expect_one_line_error(rope_cli({"decay", "--png", "x.png", "--lang", "zhh"}), 2, "did you mean zh?");
}

TEST_F(HelpPages, TermWithoutAModeIsAuto) {
  // Not a terminal here: auto draws text, where an explicit mode would be needed before.
  const Result r = rope_cli({"explain", "--step", "5", "--term"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, rope_cli({"explain", "--step", "5", "--term", "auto"}).out);
  // an empty value is still refused, as for every option
  expect_one_line_error(rope_cli({"layouts", "--term", ""}), 2,
                        "--term: the value is empty (see 'rope layouts --help')");
}

TEST_F(HelpPages, FrequenciesHelpNamesTheColumnsEachCsvHas) {
  // Issue 36: --help listed the plain columns only, and --config writes others. Each header the command
  // writes, plain, scaled and per axis, is named in --help.
  std::string help = rope_cli({"frequencies", "--help"}).out;
  std::string flat;  // the help's words, its line breaks and indentation read as one space
  for (std::size_t i = 0; i < help.size(); ++i) {
    if (help[i] == '\n') {
      while (i + 1 < help.size() && help[i + 1] == ' ') ++i;
      if (!flat.empty() && flat.back() != ',') flat += ' ';
      continue;
    }
    flat += help[i];
  }
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"frequencies", "--dim", "8", "--csv", "-"},
                                             {"frequencies", "--model", "llama-3.1-8b", "--csv", "-"},
                                             {"frequencies", "--model", "qwen3-vl-8b", "--csv", "-"}}) {
    const Result r = rope_cli(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string header = r.out.substr(0, r.out.find('\n'));
    std::string named = header;
    if (header.rfind(",axis") == header.size() - 5) named = header.substr(0, header.size() - 5) + "[,axis]";
    EXPECT_THAT(flat, HasSubstr(named)) << header << "\n" << help;
  }
}

TEST_F(HelpPages, VerifyWithAConfigPointsToCheck) {
  const std::string config = std::string(ROPE_REFERENCE_DIR) + "/../../data/models/qwen2.5-7b.json";
  const Result r = rope_cli({"verify", "--config", config, "--trials", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("identities passed\nthis checks the mathematics of the config's RoPE, not an implementation of "
                        "it: to test your code,\ndump its tensors and run rope check (docs/check.md)\n"));
  EXPECT_THAT(rope_cli({"verify", "--trials", "5"}).out,
              Not(HasSubstr("rope check")));  // without --config: no such line
  EXPECT_THAT(rope_cli({"verify", "--config", config, "--trials", "5", "--lang", "zh"}).out,
              HasSubstr("rope check（docs/check.md）"));
}

TEST(Suggest, EditDistanceAndClosestMatch) {
  EXPECT_EQ(edit_distance("dmi", "dim"), 1u);  // a transposition is one edit
  EXPECT_EQ(edit_distance("frequencie", "frequencies"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(closest_match("--dmi", {"--dim", "--base"}), "--dim");
  EXPECT_EQ(closest_match("llama3.1-8b", {"llama-3.1-8b", "llama-3-8b"}), "llama-3.1-8b");
  EXPECT_EQ(closest_match("xyz", {"--dim", "verify"}), "");
  EXPECT_EQ(closest_match("dim", {"dim", "dmi"}), "");  // the word itself is no typo
}

}  // namespace
}  // namespace rope::test
