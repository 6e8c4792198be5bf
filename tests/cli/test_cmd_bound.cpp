// rope bound through the command line (docs/calculators.md): the smallest passing base, the intervals, the CSV against
// NumPy, the figure.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/cli_harness.hpp"
#include "support/reference_data.hpp"

namespace rope::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class CmdBound : public TempDirTest {};

TEST_F(CmdBound, BoundReportsSmallestPassingAndIntervals) {
  const Result r = rope_cli({"bound", "--context", "1024", "--base-range", "4000,7000"});
  ASSERT_EQ(r.code, 0) << r.err;
  // docs/calculators.md §1.3: 4.32e3 smallest passing, 6.03e3 always above, on the 400-per-decade grid; the
  // minimum at 10^(1454/400) = 4315.19 is in tests/reference/bound_scan_d128_L1024.csv.
  EXPECT_THAT(r.out, HasSubstr("smallest passing base: 4315.19 (min B = 0.17389 at m = 950)"));
  EXPECT_THAT(r.out, HasSubstr("every grid base from 6025.6 to the top of the range (6998.42) passes"));
  EXPECT_THAT(r.out, HasSubstr("The pass set is NOT monotone in the base"));
  EXPECT_THAT(r.out, HasSubstr("98 bases 10^(k/400) from 4004.05 to 6998.42"));
  EXPECT_EQ(r.err, "");
}

// tests/reference/bound.py: one cos per term over every m (direct form (C1)). Bases to 1e-12
// relative (10^(k/P) by pow in both), min B to 1e-12 absolute (the block form (C3) is within
// 2ε·(L·Σθ_i + d) ≈ 1e-12 of the direct form at L = 4096), argmin and verdict exactly. One test per
// reference file: the context, the base range and the file.
struct BoundScanCase {
  const char* name;
  const char* context;
  const char* range;
  const char* file;
};

class CmdBoundNumpyReference : public ::testing::TestWithParam<BoundScanCase> {};

TEST_P(CmdBoundNumpyReference, CsvMatches) {
  const auto& [name, L, range, file] = GetParam();
  const Result r = rope_cli({"bound", "--context", L, "--base-range", range, "--csv", "-"});
  ASSERT_EQ(r.code, 0) << r.err;
  const ReferenceCsv ref = read_reference(file);
  std::istringstream csv(r.out);
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(split(line, ','), ref.header);
  std::size_t row = 0;
  for (; std::getline(csv, line); ++row) {
    ASSERT_LT(row, ref.rows.size());
    const std::vector<std::string> got = split(line, ',');
    const std::vector<std::string>& want = ref.rows[row];
    ASSERT_EQ(got.size(), 4u);
    EXPECT_NEAR(std::stod(got[0]), std::stod(want[0]), 1e-12 * std::stod(want[0])) << file << " " << row;
    EXPECT_NEAR(std::stod(got[1]), std::stod(want[1]), 1e-12) << file << " " << row;
    EXPECT_EQ(got[2], want[2]) << file << " " << row;
    EXPECT_EQ(got[3], want[3]) << file << " " << row;
  }
  EXPECT_EQ(row, ref.rows.size());
}

INSTANTIATE_TEST_SUITE_P(Scans, CmdBoundNumpyReference,
                         ::testing::Values(BoundScanCase{"d128_L1024_bases4000to7000", "1024", "4000,7000",
                                                         "bound_scan_d128_L1024.csv"},
                                           BoundScanCase{"d128_L4096_bases25000to60000", "4096", "25000,60000",
                                                         "bound_scan_d128_L4096.csv"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(CmdBound, BoundFigureHoldsTheCsvData) {
  const Result r = rope_cli({"bound", "--context", "1024", "--base-range", "4000,7000", "--csv", path("b.csv"), "--png",
                             path("b.png"), "--width", "640", "--height", "480", "--keep-script", path("b.gp")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(png_size(read(path("b.png"))), (std::pair<std::uint32_t, std::uint32_t>{640, 480}));
  expect_plotted_data_equals_csv(read(path("b.gp")), read(path("b.csv")), 1, 98);
  EXPECT_THAT(read(path("b.gp")), HasSubstr("smallest passing 4315.19"));
}

TEST_F(CmdBound, BoundInChinese) {
  const Result r = rope_cli({"bound", "--context", "1024", "--base-range", "4000,7000", "--lang", "zh"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("最小的通过底数：4315.19"));
  EXPECT_THAT(r.out, HasSubstr("通过的底数集合不是单调的"));
  EXPECT_THAT(r.out, Not(HasSubstr("smallest passing")));
  EXPECT_THAT(r.out, Not(HasSubstr("grid")));
}

TEST_F(CmdBound, BoundRejectsBadInput) {
  expect_one_line_error(rope_cli({"bound", "--context", "0"}), 2, "--context must be between 1 and 10000000");
  expect_one_line_error(rope_cli({"bound", "--context", "10000001"}), 2, "--context must be between 1 and 10000000");
  expect_one_line_error(rope_cli({"bound", "--context", "100", "--base-range", "1,10"}), 2, "1 < LO < HI");
  expect_one_line_error(rope_cli({"bound", "--context", "100", "--base-range", "5"}), 2, "two numbers LO,HI");
  expect_one_line_error(rope_cli({"bound", "--context", "100", "--base-range", "50,20"}), 2, "1 < LO < HI");
  expect_one_line_error(rope_cli({"bound", "--context", "100", "--per-decade", "0"}), 2,
                        "--per-decade must be between 1 and 10000");
  expect_one_line_error(rope_cli({"bound", "--context", "100", "--base-range", "2,1e300"}), 2, "more than 20000");
  expect_one_line_error(
      rope_cli({"bound", "--context", "10000000", "--base-range", "1e9,1e10", "--per-decade", "2000"}), 2,
      "more than 2e+11");
  // The measured cost bound (issue 19, item 7): d = 4096 at L = 10^6 and 100 per decade is 3.1e11 terms,
  // once about 20 minutes of CPU.
  expect_one_line_error(rope_cli({"bound", "--context", "1000000", "--dim", "4096", "--per-decade", "100"}), 2,
                        "more than 2e+11");
  expect_one_line_error(rope_cli({"bound", "--context", "100", "--lang", "fr"}), 2, "--lang must be 'en' or 'zh'");
  expect_one_line_error(rope_cli({"bound", "--context", "100", "--dim", "7"}), 2, "even");
  expect_one_line_error(rope_cli({"bound"}), 2, "--context");
  // No partial CSV on an error.
  EXPECT_EQ(rope_cli({"bound", "--context", "100", "--base-range", "5", "--csv", path("x.csv")}).code, 2);
  EXPECT_FALSE(std::filesystem::exists(path("x.csv")));
}

}  // namespace
}  // namespace rope::test
