// rope bench: structure only (no timed assertions): every ladder row and form, the decay lines, the
// equality figures, Chinese text with --lang zh, and one-line errors for bad options.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <regex>

#include "support/cli_harness.hpp"

namespace rope {
namespace {

using test::rope_cli;
using ::testing::HasSubstr;

const std::vector<std::string> kSmall = {"bench", "--seq", "4", "--points", "1000", "--repeat", "1"};

TEST(CmdBench, PrintsTheLadderAndTheDecayJob) {
  const auto r = rope_cli(kSmall);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr("[4, 32, d] float32 tensor"));
  for (const char* form : {"dense d×d matrix", "2×2 blocks", "element-wise", "complex"})
    EXPECT_THAT(r.out, HasSubstr(form));
  for (const char* d : {"64", "128", "256"}) {
    // a row: d, then four "X ns (R×)" cells; the element-wise cell is 1× by definition.
    const std::regex row(std::string("\\n +") + d + "( +[0-9.]+ ns \\([0-9.e+]+×\\)){4}\\n");
    EXPECT_TRUE(std::regex_search(r.out, row)) << d << "\n" << r.out;
  }
  EXPECT_THAT(r.out, HasSubstr("1000 evenly spaced distances"));
  EXPECT_THAT(r.out, HasSubstr("a cos/sin per term"));
  EXPECT_THAT(r.out, HasSubstr("× faster)"));
  // The equality figures are printed and small (float rounding; the recurrence to ~1e-10 at m ≤ 10^6).
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("largest difference ([0-9.e+-]+)")));
  EXPECT_LT(std::stod(m[1]), 1e-4);
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("direct values: ([0-9.e+-]+)")));
  EXPECT_LT(std::stod(m[1]), 5e-10);  // m up to 10^6: the angles carry ~1e-10 of rounding (test_decay.cpp)
}

TEST(CmdBench, SpeaksChinese) {
  auto args = kSmall;
  args.insert(args.end(), {"--lang", "zh"});
  const auto r = rope_cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("稠密 d×d 矩阵"));
  EXPECT_THAT(r.out, HasSubstr("远程衰减上界"));
  EXPECT_THAT(r.out, HasSubstr("递推"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("a cos/sin per term")));
}

TEST(CmdBench, RejectsBadOptions) {
  test::expect_one_line_error(rope_cli({"bench", "--seq", "0"}), 2, "--seq must be between 1 and 4096");
  test::expect_one_line_error(rope_cli({"bench", "--points", "1"}), 2, "--points must be between 2");
  test::expect_one_line_error(rope_cli({"bench", "--repeat", "0"}), 2, "--repeat must be between 1 and 100");
  // The measured cost bound (issue 19, item 7): every option at its maximum took 500 s.
  test::expect_one_line_error(rope_cli({"bench", "--repeat", "100", "--seq", "4096", "--points", "1000000"}), 2,
                              "--repeat × (--seq + --points/128) = 1.19085e+06 is more than 120000 (kMaxBenchWork");
  test::expect_one_line_error(rope_cli({"bench", "--lang", "fr"}), 2, "--lang must be 'en' or 'zh'");
}

}  // namespace
}  // namespace rope
