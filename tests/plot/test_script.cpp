// rope/plot/script.cpp: gnuplot_script() and its settings: texts, key, axes, reference lines and labels, outputs.
#include "rope/plot/script.hpp"

#include <cmath>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plot/helpers.hpp"
#include "rope/core/error.hpp"

namespace rope::plot {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace plot_test;

TEST(Plot, ScriptMarksTheTitleNoenhanced) {
  const std::string script = gnuplot_script(two_curves(), kPng, Style{});
  EXPECT_THAT(line_starting(script, "set title "), AllOf(HasSubstr("'Decay <&> d_i^2'"), HasSubstr(" noenhanced")));
}

TEST(Plot, ScriptMarksEveryUserTextNoenhanced) {
  Figure f = two_curves();
  f.bands.push_back({"band_text", vec({0, 1}), vec({1, 2}), vec({3, 4}), -1});
  f.lines.push_back({ReferenceLine::Axis::X, 1.5, "line_text", -1});
  f.lines.push_back({ReferenceLine::Axis::Y, 12, "hline_text", -1});
  f.labels.push_back({2, 30, "label_text", Label::Anchor::Center, 1.0, 20.0});
  const std::string script = gnuplot_script(f, kPng, Style{});
  int seen = 0;
  for (const std::string& line : lines_of(script)) {
    for (const char* text : {"'Decay", "'distance'", "'bound'", "'base = ", "'band_text'", "'line_text'",
                             "'hline_text'", "'label_text'"}) {
      if (line.find(text) == std::string::npos) continue;
      ++seen;
      // In the plot command each entry is checked on its own line (one per continuation line).
      EXPECT_THAT(line, HasSubstr("noenhanced")) << "text " << text;
    }
  }
  EXPECT_EQ(seen, 9) << script;  // 8 texts, "base = " in both series keys
  EXPECT_THAT(line_starting(script, "set terminal "), HasSubstr(" noenhanced "));
  EXPECT_THAT(line_starting(script, "set key "), HasSubstr(" noenhanced "));
}

TEST(Plot, ScriptSetsALogScaleWithTidyTicksOnlyWhenAsked) {
  Figure f;
  Series s;
  s.x = vec({1, 2, 3});
  s.y = vec({5, 12, 40});
  f.series = {s};
  const std::string linear = gnuplot_script(f, kPng, Style{});
  EXPECT_THAT(linear, Not(HasSubstr("set logscale")));
  f.log_y = true;
  const std::string log = gnuplot_script(f, kPng, Style{});
  EXPECT_THAT(log, HasSubstr("set logscale y 10\n"));
  EXPECT_THAT(log, Not(HasSubstr("set logscale x")));
  // Data [5, 40] widened to the 1-2-5 values around it, [5, 50]; ticks log_ticks(5, 50).
  EXPECT_THAT(log, HasSubstr("set yrange [5:50]\nset ytics ('5' 5, '10' 10, '20' 20, '50' 50)\n"));
  // Six decades: whole decades, every label a power of ten (tick_labels, test_ticks.cpp).
  f.series[0].y = vec({1, 10, 1e6});
  EXPECT_THAT(gnuplot_script(f, kPng, Style{}),
              HasSubstr("set ytics ('10⁰' 1, '10¹' 10, '10²' 100, '10³' 1000, '10⁴' 10000, '10⁵' 100000, "
                        "'10⁶' 1000000)\n"));
}

TEST(Plot, ScriptWritesOneTerminalBlockPerOutput) {
  const Style style{640, 480, 18, "en"};
  const std::string script =
      gnuplot_script(two_curves(), {{"a.png", Format::Png}, {"it's.svg", Format::Svg}, {"c.pdf", Format::Pdf}}, style);
  // The svg terminal sizes text in px, cairo in points at 96 dpi: fontscale 96/72 evens them out.
  EXPECT_THAT(script, HasSubstr("set terminal pngcairo size 640,480 noenhanced font 'Sans,18' background '#ffffff'\n"
                                "set output 'a.png'\nplot "));
  EXPECT_THAT(script, HasSubstr("set terminal svg size 640,480 fixed noenhanced font 'Sans,18' fontscale "
                                "1.3333333333333333 background '#ffffff'\nset output 'it''s.svg'\nplot "));
  // 640/96 and 480/96 inches.
  EXPECT_THAT(script, HasSubstr("set terminal pdfcairo size 6.666666666666667in,5in noenhanced font 'Sans,18' "
                                "background '#ffffff'\nset output 'c.pdf'\nplot "));
  EXPECT_EQ(lines_of(script).back(), "unset output");
}

TEST(Plot, ScriptUsesTheChineseFontForZh) {
  const std::string script = gnuplot_script(two_curves(), kPng, {1200, 800, 18, "zh"});
  EXPECT_THAT(line_starting(script, "set terminal "), HasSubstr("font 'WenQuanYi Micro Hei,18'"));
}

TEST(Plot, ScriptDrawsReferenceLinesAcrossThePlot) {
  Figure f = two_curves();
  f.lines.push_back({ReferenceLine::Axis::X, 2.5, "context", -1});
  f.lines.push_back({ReferenceLine::Axis::Y, 100, "", 1});
  const std::string script = gnuplot_script(f, kPng, Style{});
  EXPECT_THAT(script, HasSubstr("set arrow 1 from first 2.5, graph 0 to first 2.5, graph 1 nohead dt 2 lw 2 "
                                "lc rgb '#777777' back\n"));
  EXPECT_THAT(script, HasSubstr("set arrow 2 from graph 0, first 100 to graph 1, first 100 nohead dt 2 lw 2 "
                                "lc rgb '#D55E00' back\n"));
  // y = 100 lies above the data (max 40): an invisible anchor makes autoscaling include it.
  EXPECT_THAT(script, HasSubstr("$anchors << EOD\n2.5 40\n\n0 100\n\nEOD\n"));
  // With an explicit range that excludes it, the line is left out rather than drawn outside the frame.
  f.yrange = std::pair{0.0, 50.0};
  EXPECT_THAT(gnuplot_script(f, kPng, Style{}), Not(HasSubstr("first 100")));
}

TEST(Plot, ScriptDrawsRectanglesBehindAndADiagramToOneScale) {
  Figure f = two_curves();
  f.rects.push_back({0, 0, 1, 1, 0, -1});      // a blue cell, thin grey border
  f.rects.push_back({1.5, 0, 2.5, 1, -1, 6});  // a grey cell, thick black border
  f.diagram = true;
  const std::string script = gnuplot_script(f, kPng, Style{});
  // Object 1 is the heatmap's hatching; the rectangles follow, behind the curves.
  EXPECT_THAT(script, HasSubstr("set object 2 rect from first 0, first 0 to first 1, first 1 fc rgb '#0072B2' fs solid "
                                "1.0 border lc rgb '#bbbbbb' lw 1 back\n"));
  EXPECT_THAT(script, HasSubstr("set object 3 rect from first 1.5, first 0 to first 2.5, first 1 fc rgb '#f2f2f2' fs "
                                "solid 1.0 border lc rgb '#000000' lw 4 back\n"));
  EXPECT_THAT(script, HasSubstr("unset xtics\nunset ytics\nunset grid\nunset border\nset size ratio -1"));
  EXPECT_THAT(gnuplot_script(two_curves(), kPng, Style{}), Not(HasSubstr("set size ratio")));
  f.rects.push_back({0, NAN, 1, 1, -1, -1});
  EXPECT_THAT([&] { gnuplot_script(f, kPng, Style{}); },
              testing::ThrowsMessage<InvalidArgument>(HasSubstr("rectangle 3: y0")));
  f.rects.back() = {0, 0, 1, 1, -2, -1};
  EXPECT_THROW(gnuplot_script(f, kPng, Style{}), InvalidArgument);
}

TEST(Plot, ScriptEndsAnAutoscaledXAxisAtTheData) {
  Figure f = two_curves();
  EXPECT_THAT(gnuplot_script(f, kPng, Style{}), HasSubstr("set autoscale xfix\n"));
  f.xrange = std::pair{-1.0, 5.0};
  EXPECT_THAT(gnuplot_script(f, kPng, Style{}),
              AllOf(Not(HasSubstr("set autoscale xfix")), HasSubstr("set xrange [-1:5]\n")));
}

TEST(Plot, ScriptFitsTheHeatmapAndCentresTheDivergingPalette) {
  Figure f;
  Heatmap h;
  h.z.resize(2, 3);
  h.z << -0.5, 2, 0, 1, 0, -1;
  h.rows_downward = true;
  f.heatmap = h;
  const std::string script = gnuplot_script(f, kPng, Style{});
  // Cells of width 1 centred on 0..2 and 0..1; rows downward: the y range runs from the last row.
  EXPECT_THAT(script, HasSubstr("set xrange [-0.5:2.5]\n"));
  EXPECT_THAT(script, HasSubstr("set yrange [1.5:-0.5]"));
  EXPECT_THAT(script, HasSubstr("set cbrange [-2:2]\n"));  // a = max |z| = 2
  EXPECT_THAT(script, HasSubstr("set palette defined (0 '#2166AC', 0.5 '#F7F7F7', 1 '#B2182B')"));
  EXPECT_THAT(datablock(script, "$heat"),
              ElementsAre(ElementsAre(0, 0, -0.5), ElementsAre(1, 0, 2), ElementsAre(2, 0, 0), ElementsAre(0, 1, 1),
                          ElementsAre(1, 1, 0), ElementsAre(2, 1, -1)));
  f.heatmap->z.setZero();
  EXPECT_THAT(gnuplot_script(f, kPng, Style{}), HasSubstr("set cbrange [-1:1]\n"));  // all zero: a = 1
  f.heatmap->diverging = false;
  f.heatmap->z << 3, 4, 5, 6, 7, 8;
  EXPECT_THAT(gnuplot_script(f, kPng, Style{}),
              AllOf(HasSubstr("set cbrange [3:8]\n"), HasSubstr("0 '#440154', 0.5 '#21908C', 1 '#FDE725'")));
}

TEST(Plot, ScriptIsThePureResultOfItsInputs) {
  Figure f = two_curves();
  f.labels.push_back({1, 30, "note", Label::Anchor::Left, std::nullopt, std::nullopt});
  EXPECT_EQ(gnuplot_script(f, kPng, Style{}), gnuplot_script(f, kPng, Style{}));
}

}  // namespace
}  // namespace rope::plot
