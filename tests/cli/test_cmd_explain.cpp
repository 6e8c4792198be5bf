// `rope explain` in-process: every number it prints against an independent computation written here
// (explicit cos/sin arithmetic and std::complex), the two languages, --step, the options' rules, the figure.
#include <cmath>
#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "rope/cli/figure_options.hpp"
#include "rope/cli/cli.hpp"
#include "rope/analysis/teaching/explain.hpp"
#include "rope/report/explain_report.hpp"
#include "rope/report/text.hpp"

#include "cli/explain_reference.hpp"
#include "support/cli_harness.hpp"

namespace rope {
namespace {

using test::expect_one_line_error;
using test::png_size;
using test::Result;
using test::rope_cli;

namespace fs = std::filesystem;
using test::explain_reference::args_of;
using test::explain_reference::expect_walkthrough;
using test::explain_reference::Inputs;
using test::explain_reference::kEps;
using test::explain_reference::lines_of;
using test::explain_reference::numbers;
using test::explain_reference::step_lines;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class CmdExplain : public test::TempDirTest {};

TEST_F(CmdExplain, DefaultWalkthroughShowsEightStepsAndPasses) {
  const Result r = rope_cli({"explain"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  for (int k = 1; k <= 8; ++k) EXPECT_THAT(r.out, HasSubstr(fmt::format("\nStep {}: ", k)));
  EXPECT_THAT(r.out, HasSubstr("q = (1, 0.5), M = 2;  k = (0.8, -0.3), N = 5"));
  EXPECT_THAT(
      r.out,
      HasSubstr("θ = 1 rad per position in steps 1–6 (θ_0 = 1, the fastest pair); steps 7–8: d = 8, base = 10000"));
  EXPECT_THAT(r.out, HasSubstr("R(−Mθ)·R(Nθ)"));
  EXPECT_THAT(r.out, HasSubstr("mind the sign: qᵀ R_{M−N} k = -0.742279 is not the score"));
  // R_mᵀ instead of R_m: the turned vectors' score is the slip's, -0.742279, checked against it.
  EXPECT_THAT(r.out, HasSubstr("⟨R_Mᵀ q, R_Nᵀ k⟩ = (0.038502, -1.117371)·(0.514607, 0.682041) = -0.742279   |Δ|"));
  // ✗ only in the legend of the header, ✓ there and on each of the 14 checks.
  const auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = r.out.find(what); at != std::string::npos; at = r.out.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("✗"), 1u);
  EXPECT_EQ(count("✓"), 16u);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 110) << r.out;
  EXPECT_THAT(r.out, testing::EndsWith("\nall 14 checks ✓: the two sides of every identity agree up to rounding\n"));
}

TEST_F(CmdExplain, EveryPrintedNumberMatchesAnIndependentComputation) {
  {
    SCOPED_TRACE("defaults");
    const Result r = rope_cli({"explain"});
    ASSERT_EQ(r.code, 0) << r.err;
    expect_walkthrough(r.out, Inputs{});
  }
  const Inputs others[] = {
      {0.3, -1.2, 2.0, 0.7, -3.0, 4.0, 0.7, -50.0, 6, 500.0},
      {-2.5, 0.25, -0.1, -4.0, 1000.0, 1003.0, 0.1, 12345.0, 16, 1e6},
      {1e3, 1e-3, 3.0, 4.0, 0.5, -0.25, 6.283185307179586, 0.0, 2, 2.0},
  };
  for (const Inputs& in : others) {
    SCOPED_TRACE(fmt::format("{}", fmt::join(args_of(in), " ")));
    const Result r = rope_cli(args_of(in));
    ASSERT_EQ(r.code, 0) << r.err;
    expect_walkthrough(r.out, in);
  }
}

TEST_F(CmdExplain, PairTakesItsThetaFromDimAndBase) {
  const Result r = rope_cli({"explain", "--pair", "2", "--dim", "8"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("θ = 0.01 rad per position in steps 1–6 (θ_2 of pair 2 of step 7)"));
  EXPECT_THAT(r.out, HasSubstr("pair 2 has θ_2 = θ of steps 1–6"));
  Inputs in;
  in.theta = std::pow(10000.0, -0.5);  // θ_2 = base^(−4/8)
  expect_walkthrough(r.out, in);
}

TEST_F(CmdExplain, StepShowsOneStepAndCountsItsChecks) {
  for (int k = 1; k <= 8; ++k) {
    const Result r = rope_cli({"explain", "--step", std::to_string(k)});
    ASSERT_EQ(r.code, 0) << r.err;
    for (int other = 1; other <= 8; ++other) {
      EXPECT_EQ(r.out.find(fmt::format("\nStep {}: ", other)) != std::string::npos, other == k) << k << " " << other;
    }
  }
  EXPECT_THAT(rope_cli({"explain", "--step", "5"}).out,
              testing::EndsWith("\nall 3 checks ✓: the two sides of every identity agree up to rounding\n"));
  EXPECT_THAT(rope_cli({"explain", "--step", "4"}).out,
              testing::EndsWith("\nthe check ✓: its two sides agree up to rounding\n"));
  // --quiet: the step without the header, from its first line on; the same lines otherwise.
  const std::string step5 = rope_cli({"explain", "--step", "5"}).out;
  const std::string quiet5 = rope_cli({"explain", "--step", "5", "--quiet"}).out;
  EXPECT_THAT(quiet5, testing::StartsWith("Step 5: "));
  EXPECT_EQ(step5.substr(step5.find("\nStep 5: ") + 1), quiet5);
  EXPECT_THAT(rope_cli({"explain", "--quiet"}).out, testing::StartsWith("Step 1: "));
  // The lines of one step are the lines of that step in the whole walkthrough.
  const std::string all = rope_cli({"explain"}).out;
  const std::string five = rope_cli({"explain", "--step", "5"}).out;
  EXPECT_EQ(step_lines(five, "Step 5:"), step_lines(all, "Step 5:"));
}

/// Every character of `text` that a terminal shows two columns wide: CJK ideographs and punctuation.
bool has_cjk(const std::string& text) {
  for (std::size_t i = 0; i + 2 < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xF0) != 0xE0) continue;
    const char32_t cp = ((c & 0x0F) << 12) | ((static_cast<unsigned char>(text[i + 1]) & 0x3F) << 6) |
                        (static_cast<unsigned char>(text[i + 2]) & 0x3F);
    if ((cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF00 && cp <= 0xFFEF)) return true;
  }
  return false;
}

TEST_F(CmdExplain, ChineseHasNoEnglishAndEnglishHasNoChinese) {
  // An English sentence shows up as an ASCII word of 4 or more letters. Formulas use short names (cos,
  // sin, arg, Re, rad, rot, R_M …); the only longer ones are the name RoPE, the path docs/math.md and
  // the symbols base and diag, which stay as they are in Chinese too; step 8 names Qwen3-VL, the config key
  // sections and the path docs/multi-axis.md.
  const std::set<std::string> allowed = {"RoPE", "base", "diag", "docs", "math", "Qwen", "sections", "multi", "axis"};
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{}, {"--pair", "1"}, {"--theta", "0.5"}, {"--q", "1,0", "--k", "2,0"}}) {
    std::vector<std::string> zh_args = {"explain", "--lang", "zh"};
    std::vector<std::string> en_args = {"explain"};
    zh_args.insert(zh_args.end(), extra.begin(), extra.end());
    en_args.insert(en_args.end(), extra.begin(), extra.end());
    const Result zh = rope_cli(zh_args);
    const Result en = rope_cli(en_args);
    ASSERT_EQ(zh.code, 0) << zh.err;
    ASSERT_EQ(en.code, 0) << en.err;
    EXPECT_FALSE(has_cjk(en.out)) << en.out;
    EXPECT_TRUE(has_cjk(zh.out));
    for (const std::string& line : lines_of(zh.out)) {
      std::string word;
      bool option = false;  // an option name such as --theta is a key, not English
      for (std::size_t i = 0; i <= line.size(); ++i) {
        const char c = i < line.size() ? line[i] : ' ';
        if (std::isalpha(static_cast<unsigned char>(c))) {
          if (word.empty()) option = i >= 2 && line.compare(i - 2, 2, "--") == 0;
          word += c;
          continue;
        }
        EXPECT_TRUE(word.size() < 4 || option || allowed.count(word) == 1) << "'" << word << "' in: " << line;
        word.clear();
      }
      // Titles, the step headers and the summary are sentences: in Chinese.
      if (!line.empty() && line[0] != ' ') {
        EXPECT_TRUE(has_cjk(line)) << line;
      }
    }
    EXPECT_THAT(zh.out, HasSubstr("步骤 1：把二维向量看作复数 (M4)"));
    // The same numbers on the same body lines in both languages (titles and summary differ in words).
    const std::vector<std::string> en_lines = lines_of(en.out);
    const std::vector<std::string> zh_lines = lines_of(zh.out);
    ASSERT_EQ(en_lines.size(), zh_lines.size());
    for (std::size_t i = 0; i < en_lines.size(); ++i) {
      if (!en_lines[i].empty() && en_lines[i][0] == ' ') {
        EXPECT_EQ(numbers(en_lines[i]), numbers(zh_lines[i])) << en_lines[i] << "\n" << zh_lines[i];
      }
    }
  }
}

TEST_F(CmdExplain, ChineseStepFiveIsTheDocumentedText) {
  const Result r = rope_cli({"explain", "--lang", "zh", "--step", "5"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\n步骤 5：注意力得分 ⟨R_M q, R_N k⟩ = qᵀ R_{N−M} k 只取决于 N − M (M8)\n"));
  EXPECT_THAT(r.out, HasSubstr("\n  注意符号：qᵀ R_{M−N} k = -0.742279 不是注意力得分：\n"));
  EXPECT_THAT(r.out, testing::EndsWith("\n全部 3 项检验 ✓：每个等式的两边只差舍入误差\n"));
}

TEST_F(CmdExplain, AFailedCheckPrintsACrossAndExitsOne) {
  // No input makes a correct build fail, so a walkthrough is spoiled by hand: one side of step 5 off by 0.1.
  ExplainRun run;
  run.walkthrough = explain::explain({});
  run.walkthrough.step5.complex_check.difference = 0.1;
  std::ostringstream out;
  EXPECT_FALSE(print_explain(out, run, Text(Lang::En)));
  EXPECT_FALSE(run.passed());
  EXPECT_THAT(out.str(), HasSubstr("|Δ| = 1.0e-01 > 2.0e-14 ✗"));
  EXPECT_THAT(out.str(), testing::EndsWith("\n1 of 14 checks ✗: the two sides differ by more than rounding\n"));
  std::ostringstream other;
  run.step = 4;
  EXPECT_TRUE(print_explain(other, run, Text(Lang::En)));  // step 4 alone has no failed check
  EXPECT_TRUE(run.passed());
  run.step = 5;
  std::ostringstream zh;
  EXPECT_FALSE(print_explain(zh, run, Text(Lang::Zh)));
  EXPECT_THAT(zh.str(), testing::EndsWith("\n3 项检验中有 1 项 ✗：两边之差超出舍入误差\n"));
}

TEST_F(CmdExplain, BadInputExitsTwoWithOneLine) {
  expect_one_line_error(rope_cli({"explain", "--q", "1,2,3"}), 2,
                        "--q must be exactly 2 numbers a,b: one 2-D pair (got 3)");
  expect_one_line_error(rope_cli({"explain", "--k", "1"}), 2,
                        "--k must be exactly 2 numbers a,b: one 2-D pair (got 1)");
  expect_one_line_error(rope_cli({"explain", "--q", "1,x"}), 2, "--q item 2 must be a decimal number (got 'x')");
  expect_one_line_error(rope_cli({"explain", "--q", "0x1,0"}), 2, "--q item 1");
  expect_one_line_error(rope_cli({"explain", "--k", "1,"}), 2, "--k");
  expect_one_line_error(rope_cli({"explain", "--q", "0,0"}), 2, "--q must not be the zero vector");
  expect_one_line_error(rope_cli({"explain", "--k", "1,1e7"}), 2,
                        "--k must have finite components of size at most 1000000");
  expect_one_line_error(rope_cli({"explain", "--position", "1"}), 2,
                        "--position takes two positions, M of q and N of k (got 1)");
  expect_one_line_error(rope_cli({"explain", "--position", "1", "--position", "2", "--position", "3"}), 2, "(got 3)");
  expect_one_line_error(rope_cli({"explain", "--position", "1", "--position", "nan"}), 2,
                        "--position must be a finite number (got 'nan')");
  expect_one_line_error(rope_cli({"explain", "--position", "2e7", "--position", "1"}), 2,
                        "position M must be a finite number between -10000000 and 10000000");
  expect_one_line_error(rope_cli({"explain", "--shift", "-1e8"}), 2, "--shift must be a finite number between");
  expect_one_line_error(rope_cli({"explain", "--theta", "0"}), 2, "--theta must be > 0 and at most 2π");
  expect_one_line_error(rope_cli({"explain", "--theta", "-1"}), 2, "--theta must be > 0");
  expect_one_line_error(rope_cli({"explain", "--theta", "1", "--pair", "1"}), 2, "--theta excludes --pair");
  expect_one_line_error(rope_cli({"explain", "--pair", "4"}), 2, "--pair must be between 0 and d/2 − 1 = 3 (got 4)");
  expect_one_line_error(rope_cli({"explain", "--pair", "-1"}), 2, "--pair must be between 0");
  expect_one_line_error(rope_cli({"explain", "--pair", "0", "--dim", "5"}), 2,
                        "dimension d must be even and between 2 and 16 (got 5)");
  expect_one_line_error(rope_cli({"explain", "--dim", "18"}), 2,
                        "dimension d must be even and between 2 and 16 (got 18)");
  expect_one_line_error(rope_cli({"explain", "--dim", "8.5"}), 2, "--dim");
  expect_one_line_error(rope_cli({"explain", "--base", "1"}), 2, "base must be a finite number > 1 (got 1)");
  expect_one_line_error(rope_cli({"explain", "--step", "0"}), 2, "--step must be between 1 and 8 (got 0)");
  expect_one_line_error(rope_cli({"explain", "--step", "9"}), 2, "--step must be between 1 and 8 (got 9)");
  expect_one_line_error(rope_cli({"explain", "--lang", "fr"}), 2, "--lang must be 'en' or 'zh' (got 'fr')");
  expect_one_line_error(rope_cli({"explain", "--width", "900"}), 2, "--width needs a figure");
  expect_one_line_error(rope_cli({"explain", "--title", "x"}), 2, "--title needs a figure");
  expect_one_line_error(rope_cli({"explain", "--frobnicate"}), 2, "--frobnicate");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(CmdExplain, NegativeNumbersNeedNoEqualsSign) {
  const Result r =
      rope_cli({"explain", "--position", "-3", "--position", "-1", "--k", "-0.5,1", "--shift", "-7", "--step", "6"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("q = (1, 0.5), M = -3;  k = (-0.5, 1), N = -1"));
  EXPECT_THAT(r.out, HasSubstr("M + c = -10, N + c = -8, (N + c) − (M + c) = 2 = N − M"));
}

TEST_F(CmdExplain, FigureIsSquareWithEqualRangesAndDrawsTheVectors) {
  const Result r = rope_cli({"explain", "--png", path("e.png"), "--keep-script", path("e.gp")});
  ASSERT_EQ(r.code, 0) << r.err;
  // The same text as without a figure, then the files it wrote (report/written_text.hpp).
  EXPECT_EQ(r.out, rope_cli({"explain"}).out + "wrote " + path("e.png") + "\nwrote " + path("e.gp") + "\n");
  EXPECT_EQ(png_size(read(path("e.png"))), (std::pair<std::uint32_t, std::uint32_t>{900, 900}));
  const std::string script = read(path("e.gp"));
  // Equal ranges, ±1.5 max(|q|, |k|) = ±1.5·√1.25.
  const std::string range = fmt::format("[{}:{}]", -1.5 * std::sqrt(1.25), 1.5 * std::sqrt(1.25));
  EXPECT_THAT(script, HasSubstr("set xrange " + range));
  EXPECT_THAT(script, HasSubstr("set yrange " + range));
  // The vectors from the origin: q, then R(Mθ)q = R(2)(1, 0.5) written out.
  EXPECT_THAT(script, HasSubstr("$series0 << EOD\n0 0\n1 0.5\nEOD"));
  EXPECT_THAT(script, HasSubstr(fmt::format("0 0\n{} {}\nEOD", std::cos(2.0) - 0.5 * std::sin(2.0),
                                            std::sin(2.0) + 0.5 * std::cos(2.0))));
  EXPECT_THAT(script, HasSubstr("'RoPE in 2-D: q at M = 2, k at N = 5, θ = 1'"));
  EXPECT_THAT(script, HasSubstr("'⟨R_M q, R_N k⟩ = |q|·|k|·cos(2.177582) = -0.544711'"));
  EXPECT_THAT(script, HasSubstr("'Mθ = 2'"));
  EXPECT_THAT(script, HasSubstr("'Nθ = 5'"));
  // --width and --height still set the size.
  ASSERT_EQ(rope_cli({"explain", "--step", "1", "--png", path("s.png"), "--width", "640", "--height", "480"}).code, 0);
  EXPECT_EQ(png_size(read(path("s.png"))), (std::pair<std::uint32_t, std::uint32_t>{640, 480}));
}

TEST_F(CmdExplain, FigureToAnUnwritablePlaceExitsThreeAndPrintsNothing) {
  const Result r = rope_cli({"explain", "--png", path("missing/e.png")});
  expect_one_line_error(r, 3, "e.png");
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(CmdExplain, HelpHasAnExample) {
  const Result r = rope_cli({"explain", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("Example:"));
  EXPECT_THAT(r.out, HasSubstr("language of the text and the figure"));
  EXPECT_THAT(r.out, HasSubstr("--width INT=900"));
}

// --json goes through the report (report/explain_report.hpp explain_value): the scores step 5 prints (6
// decimals in the text), the checks, and the exit code's verdict.
TEST(CmdExplainJson, IsTheReportsValue) {
  const Result r = test::rope_cli({"explain", "--position", "2", "--position", "5", "--step", "5", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["m"], 2.0);
  EXPECT_EQ(j["n"], 5.0);
  EXPECT_EQ(j["step"], 5);
  EXPECT_EQ(j["passed"], true);
  EXPECT_NEAR(j["score"].get<double>(), j["relative_score"].get<double>(), 1e-12);
  const Result text = test::rope_cli({"explain", "--position", "2", "--position", "5", "--step", "5", "--quiet"});
  EXPECT_THAT(text.out, ::testing::HasSubstr(fmt::format("{:.6f}", std::abs(j["score"].get<double>()))));
}

// Step 8's numbers in --json: the axis of each pair and the two forms of the patches' score, worked by hand in
// tests/analysis/teaching/test_explain.cpp (2.620704).
TEST(CmdExplainJson, CarriesStepEightsAxesAndScore) {
  const Result r = test::rope_cli({"explain", "--step", "8", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["axes"], "thwt");
  EXPECT_NEAR(j["patch_score"].get<double>(), 2.620704, 5e-7);
  EXPECT_NEAR(j["patch_relative_score"].get<double>(), j["patch_score"].get<double>(), 1e-12);
  EXPECT_EQ(j["checks"].size(), 2u);
}

}  // namespace
}  // namespace rope
