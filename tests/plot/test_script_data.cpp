// rope/plot/script_data.cpp: the datablocks of a figure's script and the plot clauses that draw them.
#include "rope/plot/script.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plot/helpers.hpp"
#include "rope/core/error.hpp"

namespace rope::plot {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using namespace plot_test;

TEST(Plot, ScriptDatablockHoldsTheSeriesValuesExactly) {
  Figure f;
  Series s;
  // Values whose shortest decimal forms need all 17 digits or an exponent.
  s.x = vec({0.1, 1.0 / 3.0, 1e-300, 12345.678});
  s.y = vec({-2.0 / 3.0, 6.02214076e23, 5e-324, -0.0});
  f.series = {s};
  const auto rows = datablock(gnuplot_script(f, kPng, Style{}), "$series0");
  ASSERT_EQ(rows.size(), 4u);
  for (Eigen::Index i = 0; i < 4; ++i) {
    ASSERT_EQ(rows[static_cast<std::size_t>(i)].size(), 2u);
    EXPECT_EQ(rows[static_cast<std::size_t>(i)][0], s.x[i]);  // exact: shortest round trip
    EXPECT_EQ(rows[static_cast<std::size_t>(i)][1], s.y[i]);
  }
}

TEST(Plot, ScriptDrawsALongSeriesAsItsMinMaxEnvelope) {
  // Beyond kMaxPlottedPoints rows only the first, the last and each bucket's min and max are drawn;
  // every drawn point is a row of the data, and the extremes survive.
  const Eigen::Index n = 100001;
  Figure f;
  Series s;
  s.x = Eigen::VectorXd::LinSpaced(n, 0, static_cast<double>(n - 1));
  s.y = (s.x.array() * 0.37).sin() * (1 + s.x.array() / static_cast<double>(n));
  f.series.push_back(s);
  const auto rows = datablock(gnuplot_script(f, kPng, Style{}), "$series0");
  ASSERT_LE(rows.size(), static_cast<std::size_t>(kMaxPlottedPoints));
  ASSERT_GT(rows.size(), static_cast<std::size_t>(kMaxPlottedPoints) / 2);
  EXPECT_EQ(rows.front()[0], 0.0);
  EXPECT_EQ(rows.back()[0], static_cast<double>(n - 1));
  double max_y = -1e300, min_y = 1e300;
  for (const auto& row : rows) {
    const auto k = static_cast<Eigen::Index>(row[0]);
    ASSERT_EQ(row[0], static_cast<double>(k));
    EXPECT_EQ(row[1], s.y[k]) << k;  // exactly the data's row
    max_y = std::max(max_y, row[1]);
    min_y = std::min(min_y, row[1]);
  }
  EXPECT_EQ(max_y, s.y.maxCoeff());
  EXPECT_EQ(min_y, s.y.minCoeff());
  // Up to the limit, every row is drawn.
  f.series[0].x = s.x.head(kMaxPlottedPoints);
  f.series[0].y = s.y.head(kMaxPlottedPoints);
  EXPECT_EQ(datablock(gnuplot_script(f, kPng, Style{}), "$series0").size(),
            static_cast<std::size_t>(kMaxPlottedPoints));
}

TEST(Plot, ScriptWritesNonFiniteYAsAGapButRejectsNonFiniteX) {
  Figure f;
  Series s;
  s.x = vec({1, 2, 3});
  s.y = vec({1, std::nan(""), INFINITY});
  f.series = {s};
  const std::string script = gnuplot_script(f, kPng, Style{});
  EXPECT_THAT(script, HasSubstr("$series0 << EOD\n1 1\n2 NaN\n3 NaN\nEOD\n"));
  f.series[0].x[1] = std::nan("");
  EXPECT_THAT([&] { gnuplot_script(f, kPng, Style{}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("series 0: x[1] must be finite")));
}

TEST(Plot, ScriptGivesColoursFromTheOkabeItoPalette) {
  Figure f = two_curves();
  f.series.push_back(f.series[0]);
  f.series[1].color = 0;  // explicit: the first colour, so the automatic ones skip it
  const std::string script = gnuplot_script(f, kPng, Style{});
  // Okabe & Ito (2008): #0072B2 blue, #D55E00 vermillion, #009E73 bluish green.
  EXPECT_THAT(script, HasSubstr("$series0 using 1:2 with lines lw 2.5 dt 1 lc rgb '#D55E00'"));
  EXPECT_THAT(script, HasSubstr("$series1 using 1:2 with lines lw 2.5 dt 1 lc rgb '#0072B2'"));
  EXPECT_THAT(script, HasSubstr("$series2 using 1:2 with lines lw 2.5 dt 1 lc rgb '#009E73'"));
}

}  // namespace
}  // namespace rope::plot
