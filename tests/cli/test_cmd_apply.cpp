// rope apply: the three forms agree, bad vectors, in-process (moved from test_cli.cpp).
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


class CmdApply : public test::TempDirTest {};

TEST_F(CmdApply, BadVectorsExitTwo) {
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,2,3"}), 2, "vector length d must be even");
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,2,x,4"}), 2, "--vector item 3 must be a decimal number (got 'x')");
  expect_one_line_error(rope_cli({"apply", "--position", "1", "--vector", "1,,2,4"}), 2, "item 2 is empty");
}

TEST_F(CmdApply, PositionsBeyondFloat64ResolutionAreRefused) {
  // At m = 1e300 the tolerance of (M13) was 2.5e285·‖x‖ and the three forms "agreed": a void check.
  expect_one_line_error(rope_cli({"apply", "--position", "1e300", "--vector", "1,0,0,1"}), 2,
                        "position m = 1e+300 is beyond what float64 resolves at d = 4");
  expect_one_line_error(rope_cli({"matrix", "--dim", "4", "--position", "-1e15"}), 2, "--position = -1e+15 is beyond");
  expect_one_line_error(rope_cli({"matrix", "--dim", "4", "--relative", "1", "1e300"}), 2, "--relative N = 1e+300");
  EXPECT_EQ(rope_cli({"apply", "--position", "1e14", "--vector", "1,0,0,1"}).code, 0);
}

TEST_F(CmdApply, ApplyAgreesAcrossForms) {
  const Result r = rope_cli({"apply", "--position", "1", "--vector", "1,0,0,1"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("they agree"));
  EXPECT_THAT(r.out, HasSubstr("0.8414709848078965"));  // sin 1
}

}  // namespace
}  // namespace rope
