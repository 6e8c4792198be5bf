#include "rope/io/csv.hpp"

#include <gtest/gtest.h>
#include <omp.h>

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

// From 4096 rows (kPieceRows, csv.cpp) the rows are formatted in pieces by several threads and written in order by
// the calling one, at most 16 pieces ahead of the one written: the text is the rows in order, as one thread writes
// them, for a table of one piece and one row more, a piece boundary, and more pieces than are held at once (41); the
// columns a table points to (views) come after its own. With 1, 2 and 5 threads (OpenMP's count, which
// worker_count follows), more than this machine's cores.
class CsvThreads : public ::testing::TestWithParam<int> {};

TEST_P(CsvThreads, ALongTableIsTheRowsInOrderWhicheverThreadFormatsThem) {
  const int previous = omp_get_max_threads();
  omp_set_num_threads(GetParam());
  Random rng(7);
  for (const Eigen::Index rows : {Eigen::Index{4096}, Eigen::Index{4097}, Eigen::Index{8192}, Eigen::Index{167937}}) {
    Eigen::VectorXd a(rows), b(rows), c(rows);
    std::string expected = "m,v,w\n";
    for (Eigen::Index r = 0; r < rows; ++r) {
      a[r] = static_cast<double>(r), b[r] = r % 5 == 0 ? 0.0 : rng.normal() * 1e3, c[r] = -static_cast<double>(r) / 7;
      expected += format_number(a[r]) + "," + format_number(b[r]) + "," + format_number(c[r]) + "\n";
    }
    std::size_t chunks = 0;
    std::string written;
    write_csv(Table{{"m", "v", "w"}, {a, b}, {&c}}, [&](std::string_view chunk) {
      ++chunks;
      written.append(chunk);
    });
    EXPECT_EQ(written, expected) << rows << " rows, " << GetParam() << " threads";
    EXPECT_GT(chunks, 1u) << rows;  // written as it is formatted, not held whole
  }
  omp_set_num_threads(previous);
}

INSTANTIATE_TEST_SUITE_P(Threads, CsvThreads, ::testing::Values(1, 2, 5));

TEST(Csv, AViewCountsAsAColumnAgainstTheHeader) {
  const Eigen::VectorXd a = Eigen::VectorXd::LinSpaced(3, 0, 2), b = Eigen::VectorXd::Zero(3), shorter(2);
  EXPECT_EQ(to_csv(Table{{"x", "y"}, {a}, {&b}}), "x,y\n0,0\n1,0\n2,0\n");
  EXPECT_EQ(to_csv(Table{{"y"}, {}, {&b}}), "y\n0\n0\n0\n");
  EXPECT_THROW(to_csv(Table{{"x"}, {a}, {&b}}), InvalidArgument);
  EXPECT_THROW(to_csv(Table{{"x", "y"}, {a}, {&shorter}}), InvalidArgument);
}

}  // namespace
}  // namespace rope
