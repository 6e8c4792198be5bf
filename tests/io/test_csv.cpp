#include "rope/io/csv.hpp"

#include <gtest/gtest.h>

#include <string>

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

// From 2^14 rows a second thread formats the second half (csv.cpp): the text is the rows in order, as one thread
// writes them, at the split's either side and with chunks of 64 KiB cut anywhere; rows 16383 and 16384 straddle
// the threshold.
TEST(Csv, ALongTableIsTheRowsInOrderWhicheverThreadFormatsThem) {
  Random rng(7);
  for (const Eigen::Index rows : {Eigen::Index{16383}, Eigen::Index{16384}, Eigen::Index{40001}}) {
    Eigen::VectorXd a(rows), b(rows);
    std::string expected = "m,v\n";
    for (Eigen::Index r = 0; r < rows; ++r) {
      a[r] = static_cast<double>(r), b[r] = r % 5 == 0 ? 0.0 : rng.normal() * 1e3;
      expected += format_number(a[r]) + "," + format_number(b[r]) + "\n";
    }
    std::size_t chunks = 0;
    std::string written;
    write_csv(Table{{"m", "v"}, {a, b}}, [&](std::string_view chunk) {
      ++chunks;
      written.append(chunk);
    });
    EXPECT_EQ(written, expected) << rows;
    EXPECT_GT(chunks, 2u) << rows;  // written as it is formatted, not held whole
  }
}

}  // namespace
}  // namespace rope
