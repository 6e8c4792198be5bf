// rope extrapolation through the command line (docs/calculators.md): Llama 2, tuned bases, the critical base, the
// figure.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rope/report/printing.hpp"
#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"

namespace rope::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class CmdExtrapolation : public TempDirTest {};

TEST_F(CmdExtrapolation, ExtrapolationLlama2) {
  const Result r = rope_cli({"extrapolation", "--dim", "128", "--base", "10000", "--train-length", "4096"});
  ASSERT_EQ(r.code, 0) << r.err;
  // docs/calculators.md (C6) (Liu et al.): 45.03 and 92; pairs 46 … 63 never turn within 4096 (as rope wavelengths).
  EXPECT_THAT(r.out, HasSubstr("x = (d/2)·log_base(T/2π) = 45.0269, d_extra = 2·⌈x⌉ = 92"));
  EXPECT_THAT(r.out, HasSubstr("pairs 46 … 63 (18 of 64) never do"));
  // T_extra with the same base: the wavelength of pair 46, 4711.72 (rope wavelengths' table).
  EXPECT_THAT(r.out, HasSubstr("4711.7"));
}

TEST_F(CmdExtrapolation, ExtrapolationTuneBasesAndCriticalBase) {
  const Result r = rope_cli({"extrapolation", "--train-length", "4096", "--tune-length", "16384", "--tune-base", "500",
                             "--tune-base", "100000", "--tune-base", "500000", "--tune-base", "1000000"});
  ASSERT_EQ(r.code, 0) << r.err;
  // docs/calculators.md (C7)–(C9): 547, 24 656, 78 400, 129 027; β₀ = 71 738; 10 430 / 5 215 / 2 608.
  // Printed to 0.1; each within 0.5 of the rounded known value.
  // β = 500 < base 10000 is outside (C7)'s domain (Liu et al.'s bound is for a larger base): marked.
  EXPECT_THAT(r.out, HasSubstr("               500             547.1*  n/a"));
  EXPECT_THAT(r.out, HasSubstr("* β < base = 10000: outside the domain of (C7)"));
  EXPECT_THAT(r.out, HasSubstr("            100000           24656.4   yes"));
  EXPECT_THAT(r.out, HasSubstr("            500000           78399.7   yes"));
  EXPECT_THAT(r.out, HasSubstr("           1000000          129026.8   yes"));
  EXPECT_THAT(r.out, HasSubstr("= 71738.4"));
  EXPECT_THAT(r.out, HasSubstr("β₁ = 2T_tune/π = 10430.4, β₂ = T_tune/π = 5215.2, β₃ = T_tune/2π = 2607.6"));
}

TEST_F(CmdExtrapolation, TuneBasesAtLeastTheBaseAreInsideTheDomain) {
  const Result r =
      rope_cli({"extrapolation", "--train-length", "4096", "--tune-base", "10000", "--tune-base", "1000000"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("             10000            4711.7\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("*")));
}

TEST_F(CmdExtrapolation, ExtrapolationFigureMarksTheCriticalDimension) {
  const Result r = rope_cli({"extrapolation", "--train-length", "4096", "--tune-length", "16384", "--png",
                             path("e.png"), "--width", "640", "--height", "480", "--keep-script", path("e.gp")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(png_size(read(path("e.png"))), (std::pair<std::uint32_t, std::uint32_t>{640, 480}));
  const std::string script = read(path("e.gp"));
  EXPECT_THAT(script, HasSubstr("critical dimension 92 (pair 46)"));
  EXPECT_THAT(script, HasSubstr("Critical dimension d_extra = 92 of d = 128"));
  EXPECT_THAT(script, HasSubstr("context 16384"));
}

TEST_F(CmdExtrapolation, ExtrapolationInChinese) {
  const Result r = rope_cli({"extrapolation", "--train-length", "4096", "--tune-length", "16384", "--lang", "zh"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("临界维度 (C6)"));
  EXPECT_THAT(r.out, HasSubstr("d_extra = 2·⌈x⌉ = 92"));
  EXPECT_THAT(r.out, HasSubstr("临界底数 (C8)"));
  EXPECT_THAT(r.out, Not(HasSubstr("critical")));
  EXPECT_THAT(r.out, Not(HasSubstr("pairs")));
}

TEST_F(CmdExtrapolation, ExtrapolationRejectsBadInput) {
  expect_one_line_error(rope_cli({"extrapolation", "--train-length", "6"}), 2, "training length T must be > 2π");
  expect_one_line_error(rope_cli({"extrapolation", "--train-length", "4096", "--tune-length", "1"}), 2,
                        "tuning length T_tune");
  expect_one_line_error(rope_cli({"extrapolation", "--train-length", "4096", "--tune-base", "1"}), 2, "base");
  expect_one_line_error(rope_cli({"extrapolation", "--train-length", "4096", "--dim", "3"}), 2, "even");
  expect_one_line_error(rope_cli({"extrapolation"}), 2, "--train-length");
  expect_one_line_error(rope_cli({"extrapolation", "--train-length", "4096", "--width", "640"}), 2,
                        "--width needs a figure");
}

// The last column (T_extra ≥ T_tune) starts at the same terminal column in the header and in every row,
// with the footnote mark of a β below the base, in English and in Chinese (a CJK character is 2 columns).
TEST_F(CmdExtrapolation, TheLastColumnLinesUpWithItsHeader) {
  for (const char* lang : {"en", "zh"}) {
    const Result r = rope_cli({"extrapolation", "--train-length", "4096", "--tune-length", "16384", "--tune-base",
                               "500", "--tune-base", "1000000", "--lang", lang});
    ASSERT_EQ(r.code, 0) << r.err;
    std::istringstream lines(r.out);
    std::vector<std::size_t> starts;
    for (std::string line; std::getline(lines, line);) {
      const std::size_t at = line.find("T_extra ≥ T_tune");
      const std::size_t verdict = line.find_first_of("ny不是否", 37);  // n/a, yes, no, 不适用, 是, 否
      if (at != std::string::npos)
        starts.push_back(rope::columns(line.substr(0, at)));
      else if (line.rfind("               500 ", 0) == 0 || line.rfind("           1000000 ", 0) == 0) {
        starts.push_back(rope::columns(line.substr(0, verdict)));
      }
    }
    ASSERT_EQ(starts.size(), 3u) << r.out;
    EXPECT_EQ(starts[0], 39u) << lang;  // 2 + 16 + 2 + 16, the mark, 2
    EXPECT_EQ(starts[1], starts[0]) << lang << "\n" << r.out;
    EXPECT_EQ(starts[2], starts[0]) << lang << "\n" << r.out;
  }
}

}  // namespace
}  // namespace rope::test
