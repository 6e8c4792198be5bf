// rope matrix: the CSV against NumPy, the printed matrix, in-process (moved from test_cli.cpp).
#include "rope/cli/cli.hpp"

#include <filesystem>
#include <map>
#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

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
using ::testing::StartsWith;


class CmdMatrix : public test::TempDirTest {};

TEST_F(CmdMatrix, MatrixCsvMatchesNumpyReference) {
  const Result r = rope_cli({"matrix", "--dim", "8", "--position", "3", "--layout", "half", "--csv", "-"});
  ASSERT_EQ(r.code, 0);
  const Eigen::MatrixXd expected = test::read_reference("rotation_d8_m3_half.csv", false).matrix();
  std::istringstream in(r.out);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "col_0,col_1,col_2,col_3,col_4,col_5,col_6,col_7");
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(std::getline(in, line));
    const auto cells = test::split(line, ',');
    ASSERT_EQ(cells.size(), 8u);
    for (int j = 0; j < 8; ++j) EXPECT_NEAR(std::stod(cells[j]), expected(i, j), 4.5e-16) << i << "," << j;
  }
}

TEST_F(CmdMatrix, MatrixPrintsZerosPlainly) {
  const Result r = rope_cli({"matrix", "--dim", "4", "--position", "1"});
  ASSERT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr(" 0.540302 -0.841471         0         0\n"));
  const Result rel = rope_cli({"matrix", "--dim", "4", "--relative", "2", "5"});
  EXPECT_EQ(rel.code, 0);
  EXPECT_THAT(rel.out, HasSubstr(": equal"));
}

}  // namespace
}  // namespace rope
