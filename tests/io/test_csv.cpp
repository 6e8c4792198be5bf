#include "rope/io/csv.hpp"

#include <gtest/gtest.h>

#include "rope/core/error.hpp"
#include "rope/core/random.hpp"

namespace rope {
namespace {

TEST(Csv, NumbersAreShortestRoundTrip) {
  EXPECT_EQ(format_number(1.0), "1");
  EXPECT_EQ(format_number(32.5), "32.5");
  EXPECT_EQ(format_number(0.8659643233600653), "0.8659643233600653");
  EXPECT_EQ(format_number(-0.0), "0");
  EXPECT_EQ(format_number(10000.0), "10000");
  Random rng(1);
  for (int i = 0; i < 10000; ++i) {
    const double x = rng.normal() * std::pow(10.0, rng.normal() * 10);
    EXPECT_EQ(std::stod(format_number(x)), x);
  }
}

TEST(Csv, TableHasHeaderThenRows) {
  Eigen::VectorXd a(2), b(2);
  a << 0, 1;
  b << 0.5, -2;
  EXPECT_EQ(to_csv(Table{{"x", "y"}, {a, b}}), "x,y\n0,0.5\n1,-2\n");
}

TEST(Csv, MatrixHasAHeaderNamingItsColumns) {
  Eigen::MatrixXd m(2, 2);
  m << 1, 0, 0, -1;
  EXPECT_EQ(to_csv(m, "col_"), "col_0,col_1\n1,0\n0,-1\n");
}

TEST(Csv, RejectsRaggedTables) {
  EXPECT_THROW(to_csv(Table{{"x"}, {Eigen::VectorXd(2), Eigen::VectorXd(2)}}), InvalidArgument);
  EXPECT_THROW(to_csv(Table{{"x", "y"}, {Eigen::VectorXd(2), Eigen::VectorXd(3)}}), InvalidArgument);
}

}  // namespace
}  // namespace rope
