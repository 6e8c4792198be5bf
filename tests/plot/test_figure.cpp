// rope/plot/figure.hpp: the format from the extension, and validate() (through gnuplot_script(), which
// // checks every figure first).
#include "rope/plot/figure.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plot/helpers.hpp"
#include "rope/core/error.hpp"

namespace rope::plot {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using namespace plot_test;

TEST(Plot, FormatComesFromTheExtensionIgnoringCase) {
  EXPECT_EQ(format_from_extension("a.png"), Format::Png);
  EXPECT_EQ(format_from_extension("dir.v2/B.SVG"), Format::Svg);
  EXPECT_EQ(format_from_extension("c.Pdf"), Format::Pdf);
  EXPECT_THAT([] { format_from_extension("d.jpg"); }, ThrowsMessage<InvalidArgument>(HasSubstr("'d.jpg'")));
  EXPECT_THROW(format_from_extension("png"), InvalidArgument);
}

TEST(Plot, ScriptRejectsBadFiguresNamingTheRule) {
  Figure f = two_curves();
  f.series[1].y = vec({1, 2, 3});
  EXPECT_THAT([&] { gnuplot_script(f, kPng, Style{}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("x and y must have the same length (got 4 and 3)")));
  f = two_curves();
  f.bands.push_back({"", vec({1, 2}), vec({1}), vec({1, 2}), -1});
  EXPECT_THAT([&] { gnuplot_script(f, kPng, Style{}); }, ThrowsMessage<InvalidArgument>(HasSubstr("same length")));
  EXPECT_THAT([] { gnuplot_script(Figure{}, kPng, Style{}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("nothing to draw")));
  EXPECT_THAT([] { gnuplot_script(two_curves(), {}, Style{}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("no output")));
  EXPECT_THAT(
      [] {
        gnuplot_script(two_curves(), {{"a\nb.png", Format::Png}}, Style{});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("control character")));
  f = two_curves();
  f.log_x = true;
  f.lines.push_back({ReferenceLine::Axis::X, 0, "", -1});
  EXPECT_THAT([&] { gnuplot_script(f, kPng, Style{}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("must be > 0 on a logarithmic axis")));
}

TEST(Plot, ScriptRejectsABadStyleNamingTheValue) {
  EXPECT_THAT(
      [] {
        gnuplot_script(two_curves(), kPng, {10, 800, 18, "en"});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("width must be between 200 and 8000 pixels (got 10)")));
  EXPECT_THAT(
      [] {
        gnuplot_script(two_curves(), kPng, {1200, 9000, 18, "en"});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("height must be between 200 and 8000 pixels (got 9000)")));
  EXPECT_THAT(
      [] {
        gnuplot_script(two_curves(), kPng, {1200, 800, 18, "fr"});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("language must be 'en' or 'zh' (got 'fr')")));
  EXPECT_THAT(
      [] {
        gnuplot_script(two_curves(), kPng, {1200, 800, 0, "en"});
      },
      ThrowsMessage<InvalidArgument>(HasSubstr("font size")));
}

}  // namespace
}  // namespace rope::plot
