// The number policy (apps/rope/report/digits.hpp, issue 36): as many significant digits as separate the values
// compared, on its own and on a failing rope check, whose first failure showed "expected -1.222, got -1.222".
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <regex>

#include "rope/report/digits.hpp"
#include "support/cli_harness.hpp"

namespace rope::test {
namespace {

using ::testing::HasSubstr;

TEST(Digits, SeparatingDigitsShowDifferentValuesDifferent) {
  EXPECT_EQ(rope::separated({-0.924, -1.206}), (std::vector<std::string>{"-0.924", "-1.206"}));  // 4 are enough
  EXPECT_EQ(rope::separated({-1.22213, -1.22198}), (std::vector<std::string>{"-1.2221", "-1.222"}));
  EXPECT_EQ(rope::separating_digits({0.5403023058681398, 0.5403023068681398}), 9);
  EXPECT_EQ(rope::separating_digits({1.0, 1.0}), 4);                        // equal: the least
  EXPECT_EQ(rope::separating_digits({1.0, std::nextafter(1.0, 2.0)}), 17);  // one ulp apart: every digit
  EXPECT_EQ(rope::separating_digits({1.5, NAN, INFINITY}), 4);
  EXPECT_EQ(rope::with_digits(M_PI, 3), "3.14");
  EXPECT_EQ(rope::with_digits(M_PI, 0), "3.141592653589793");  // full precision: the round trip
}

class DigitsOnCheck : public TempDirTest {};

TEST_F(DigitsOnCheck, AFailingCheckShowsTheDigitsThatDiffer) {
  // Two positions of d = 4, x = (1, 0, 0, 1); the rotation of position 1 in the half layout (pairs (0, 2),
  // (1, 3), θ = 1, 0.01), with channel 0 off by 1e-9: far beyond float64's tolerance, invisible in 4 digits.
  const double c = std::cos(1.0), s = std::sin(1.0), c2 = std::cos(0.01), s2 = std::sin(0.01);
  std::ofstream(path("before.csv")) << "1,0,0,1\n1,0,0,1\n";
  std::ofstream(path("after.csv")) << "1,0,0,1\n"
                                   << fmt::format("{:.17g},{:.17g},{:.17g},{:.17g}\n", c + 1e-9, -s2, s, c2);
  const Result r =
      rope_cli({"check", "--before", path("before.csv"), "--after", path("after.csv"), "--positions", "0,1"});
  ASSERT_EQ(r.code, 1) << r.err << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("expected (\\S+), got (\\S+) \\(tolerance"))) << r.out;
  EXPECT_NE(m[1].str(), m[2].str()) << r.out;
  EXPECT_EQ(m[1].str(), "0.540302306");  // cos 1 = 0.54030230586…, to the 9 digits that separate it from
  EXPECT_EQ(m[2].str(), "0.540302307");  // cos 1 + 1e-9 (4 digits showed 0.5403 twice)
}

TEST(DigitsOnInspect, ComputedNumbersHaveSixDigitsOrDigitsN) {
  const Result r = rope_cli({"inspect", "--model", "qwen2.5-7b", "--scaling", "yarn", "--factor", "4",
                             "--original-max-position", "32768", "--truncate", "false"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("yarn correction range +\\[([^,]+), ([^\\]]+)\\]"))) << r.out;
  EXPECT_EQ(m[1].str(), "23.5959");  // 6 significant digits, not 16
  const Result full = rope_cli({"inspect", "--model", "qwen2.5-7b", "--scaling", "yarn", "--factor", "4",
                                "--original-max-position", "32768", "--truncate", "false", "--digits", "0"});
  ASSERT_TRUE(std::regex_search(full.out, m, std::regex("yarn correction range +\\[([^,]+), ([^\\]]+)\\]")))
      << full.out;
  EXPECT_EQ(m[1].str(), "23.5959476083381");  // the shortest form that reads back
  expect_one_line_error(rope_cli({"inspect", "--model", "qwen2.5-7b", "--digits", "18"}), 2,
                        "--digits must be between 0 and 17 (got 18)");
}

}  // namespace
}  // namespace rope::test
