// Heatmaps a class can read (issue 35): --term text draws them as characters (not an empty frame), an SVG
// as sharp cells (not a bitmap a viewer smooths), and Chinese text lines keep the frame's right border.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "rope/core/utf8.hpp"
#include "support/cli_harness.hpp"

namespace rope::cli {
namespace {

using test::Result;
using test::rope_cli;
using ::testing::HasSubstr;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The characters inside the plot frame: the lines between the top and bottom border, between the first
/// and the last '|'.
std::string inside_frame(const std::string& figure) {
  std::string inside;
  for (const std::string& line : lines_of(figure)) {
    const std::size_t left = line.find('|');
    const std::size_t right = line.rfind('|');
    if (left != std::string::npos && right > left + 1) inside += line.substr(left + 1, right - left - 1);
  }
  return inside;
}

TEST(TermText, TheRotationMatrixShowsItsBlocks) {
  const Result r = rope_cli({"matrix", "--dim", "8", "--position", "3", "--term", "text"});
  ASSERT_EQ(r.code, 0) << r.err;
  // cos 3 = −0.99 (=), the slow pairs' cos near 1 (#), zeros off the blocks (.), sin 0.3 = 0.30 (+).
  const std::string inside =
      inside_frame(r.out.substr(0, r.out.find("R^d_(Θ,m) for d = 8")));  // the figure, before the printed matrix
  for (const char c : {'=', '#', '.', '+'}) EXPECT_NE(inside.find(c), std::string::npos) << c << "\n" << r.out;
  EXPECT_THAT(r.out, HasSubstr("= <= -0.5  - < -0.02  . within +-0.02  + > 0.02  # >= 0.5"));
}

// gnuplot's dumb terminal: the key's title below the plot blanked the "0" of the tick 30, and the line of
// --context 1000 ran one character past the right border (issue 51).
TEST(TermText, TheWavelengthsFigureKeepsItsTicksAndBorder) {
  const Result r = rope_cli({"wavelengths", "--term", "text", "--context", "1000"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  bool ticks = false;
  for (const std::string& line : lines) {
    if (line.find("0         10") != std::string::npos) {
      ticks = true;
      EXPECT_THAT(line, HasSubstr(" 30 ")) << r.out;
    }
    if (line.find("-----|") != std::string::npos)
      EXPECT_EQ(line.find("|-", line.rfind('|') - 1), std::string::npos) << line;
  }
  EXPECT_TRUE(ticks) << r.out;
}

class SvgHeatmap : public test::TempDirTest {};

TEST_F(SvgHeatmap, EveryCellIsAPolygonNotAnEmbeddedBitmap) {
  const Result r = rope_cli({"matrix", "--dim", "8", "--position", "3", "--svg", path("m.svg")});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string svg = read(path("m.svg"));
  EXPECT_EQ(svg.find("<image"), std::string::npos);  // gnuplot's `with image` embeds a PNG here
  // The plot's group (the colour bar after it is drawn of polygons too).
  const std::size_t start = svg.find("<g id=\"gnuplot_plot_1\"");
  ASSERT_NE(start, std::string::npos);
  const std::string plot = svg.substr(start, svg.find("</g>\n</g>", start) - start);
  std::size_t cells = 0;
  for (std::size_t at = plot.find("<polygon fill = 'rgb("); at != std::string::npos;
       at = plot.find("<polygon fill = 'rgb(", at + 1)) {
    ++cells;
  }
  EXPECT_EQ(cells, 64u);  // 8 × 8, each a rectangle drawn with crisp edges
  EXPECT_NE(svg.find("shape-rendering='crispEdges'"), std::string::npos);
}

TEST(TermText, AttentionShowsItsWeightsAndTheMaskAsBlanks) {
  const Result r = rope_cli({"attention", "--tokens", "8", "--dim", "16", "--causal", "--term", "text"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string inside = inside_frame(r.out);
  EXPECT_NE(inside.find('@'), std::string::npos) << r.out;  // query 0 sees only key 0: weight 1, the top
  EXPECT_THAT(r.out, HasSubstr(".:-=+*#%@"));               // the key of the characters
}

TEST(TermText, ChineseLinesKeepTheRightBorder) {
  const Result r = rope_cli({"explain", "--step", "5", "--lang", "zh", "--term", "text"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string figure = r.out.substr(0, r.out.find("RoPE 逐步推导"));  // the figure comes first
  std::size_t right = 0;
  int framed = 0;
  for (const std::string& line : lines_of(figure)) {
    EXPECT_LE(display_width(line), 80u) << line;
    const std::size_t last = line.find_last_not_of(' ');
    if (last == std::string::npos || line[last] != '|' || line.find('|') == last) continue;
    const std::size_t column = display_width(line.substr(0, last));  // where a terminal shows the border
    if (right == 0) right = column;
    EXPECT_EQ(column, right) << line;
    ++framed;
  }
  EXPECT_GT(framed, 10) << figure;
}

}  // namespace
}  // namespace rope::cli
