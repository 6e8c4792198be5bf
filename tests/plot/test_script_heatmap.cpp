// rope/plot/script_heatmap.cpp: a heatmap in each output: SVG cells as rectangles (no smoothing), the text
// terminal's characters and their key, masked cells apart from any value; and the Chinese figures' notation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "plot/helpers.hpp"
#include "rope/plot/script.hpp"
#include "rope/plot/text.hpp"

namespace rope::plot {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using namespace plot_test;

Figure heatmap_figure(bool diverging) {
  Figure f;
  Heatmap h;
  h.z.resize(2, 2);
  h.z << -1, 0.3, 0, 1;
  h.diverging = diverging;
  h.colorbar_label = "entry R_ij";
  f.heatmap = h;
  return f;
}

/// The block of one output: from its "# FORMAT" line to the next "unset output".
std::string block(const std::string& script, const std::string& format) {
  const std::size_t at = script.find("\n# " + format + "\n");
  EXPECT_NE(at, std::string::npos) << format;
  return at == std::string::npos ? "" : script.substr(at, script.find("unset output", at) - at);
}

TEST(PlotHeatmap, SvgDrawsEveryCellAsARectangleAndPngKeepsTheImage) {
  const std::vector<Output> outputs = {{"m.png", Format::Png}, {"m.svg", Format::Svg}, {"m.pdf", Format::Pdf}};
  const std::string script = gnuplot_script(heatmap_figure(true), outputs, Style{});
  // `with image` in an SVG is one embedded bitmap that viewers smooth; `pixels` writes one rectangle per cell.
  EXPECT_THAT(block(script, "SVG"), HasSubstr("plot $heat using 1:2:3 with image pixels notitle"));
  EXPECT_THAT(block(script, "PNG"), AllOf(HasSubstr("with image notitle"), Not(HasSubstr("pixels"))));
  EXPECT_THAT(block(script, "PDF"), Not(HasSubstr("pixels")));
  // The colour-bar label moves clear of the tick labels in the SVG only, and back for the next output.
  EXPECT_THAT(block(script, "SVG"), HasSubstr("set rmargin 14\nset cblabel offset character 1.5, 0\n"));
  EXPECT_THAT(script, HasSubstr("set rmargin -1\nset cblabel offset 0, 0\n"));
  EXPECT_THAT(block(script, "PDF"), Not(HasSubstr("offset character 1.5")));
}

TEST(PlotHeatmap, TextWritesOneCharacterPerCellWithItsKey) {
  const std::string diverging = gnuplot_script(heatmap_figure(true), {{"t.txt", Format::Text}}, Style{});
  // a = max |z| = 1: = up to −0.5, - below −0.02, . within ±0.02, + above, # from 0.5.
  EXPECT_THAT(diverging,
              AllOf(HasSubstr("with labels notitle"), HasSubstr("$3 <= -0.5 ? '='"), HasSubstr("$3 < -0.02 ? '-'"),
                    HasSubstr("$3 <= 0.02 ? '.'"), HasSubstr("$3 < 0.5 ? '+' : '#'"), HasSubstr("unset colorbox")));
  EXPECT_THAT(diverging, HasSubstr("'entry R_ij: = <= -0.5  - < -0.02  . within +-0.02  + > 0.02  # >= 0.5'"));
  const std::string sequential = gnuplot_script(heatmap_figure(false), {{"t.txt", Format::Text}}, Style{});
  EXPECT_THAT(sequential, AllOf(HasSubstr("substr('.:-=+*#%@', "), HasSubstr("'entry R_ij: -1 .:-=+*#%@ 1'")));
  // Colour text fills every cell with coloured characters.
  EXPECT_THAT(gnuplot_script(heatmap_figure(false), {{"t.txt", Format::TextColor}}, Style{}),
              HasSubstr("with image pixels notitle"));
}

TEST(PlotHeatmap, CellsWithoutAValueAreHatchedNotColouredAsZero) {
  Figure f = heatmap_figure(false);
  EXPECT_THAT(gnuplot_script(f, kPng, Style{}), Not(HasSubstr("pattern 4")));
  f.heatmap->z(0, 1) = std::numeric_limits<double>::quiet_NaN();  // a masked cell
  const std::string script = gnuplot_script(f, kPng, Style{});
  EXPECT_THAT(script, HasSubstr("set object 1 rectangle from graph 0, graph 0 to graph 1, graph 1 behind fillcolor "
                                "rgb '#999999' fillstyle pattern 4 noborder"));
  EXPECT_THAT(script, HasSubstr("0 0 -1\n1 0 NaN\n"));
  EXPECT_THAT(script, HasSubstr("set cbrange [-1:1]\n"));  // the range of the values there are
  // In text a masked cell is a blank, not the character of the lowest value.
  EXPECT_THAT(gnuplot_script(f, {{"t.txt", Format::Text}}, Style{}), HasSubstr("strcol(3) eq 'NaN' ? ' '"));
}

TEST(PlotHeatmap, ExplicitXTicsReplaceGnuplotsAndRestartTheAxis) {
  Figure f = heatmap_figure(false);
  EXPECT_THAT(gnuplot_script(f, {{"h.png", Format::Png}}, Style{}), Not(HasSubstr("set xtics (")));
  // Two tables side by side, each counted from channel 0 (rope layouts --cache).
  f.xtics = {{0, "0"}, {2, "2"}, {5, "0"}, {7.5, "it's"}};
  EXPECT_THAT(gnuplot_script(f, {{"h.png", Format::Png}}, Style{}),
              HasSubstr("set xtics ('0' 0, '2' 2, '0' 5, 'it''s' 7.5)\n"));
}

TEST(PlotText, ChineseFiguresWriteWhatTheirFontLacksWithGlyphsItHas) {
  EXPECT_EQ(in_cjk_font("波长 λᵢ = 2π/θᵢ"), "波长 λ_i = 2π/θ_i");
  EXPECT_EQ(in_cjk_font("softmax(QKᵀ/√d)，Rₘ，λⱼ，⟨R(Mθ)q, R(Nθ)k⟩，10⁶"),
            "softmax(QK^T/√d)，R_m，λ_j，<R(Mθ)q, R(Nθ)k>，10^6");
  // A run is one script: braces where it is more than a number.
  EXPECT_EQ(in_cjk_font("qᵀ Rₙ₋ₘ k，θⱼ·pₐ₍ⱼ₎，10⁻⁴，10¹²，Rᵢⱼ"), "q^T R_{n−m} k，θ_j·p_{a(j)}，10^-4，10^12，R_{ij}");
}

TEST(PlotText, ChineseFiguresKeepScriptsWhereTheTerminalFallsBackToAnotherFont) {
  Figure f;
  f.title = "λᵢ";
  f.series.push_back({"θᵢ", vec({0, 1}), vec({0, 1})});
  Style zh;
  zh.lang = "zh";
  // The cairo terminals and SVG take the glyphs WenQuanYi Micro Hei lacks from DejaVu Sans: kept.
  EXPECT_THAT(gnuplot_script(f, kPng, zh), AllOf(HasSubstr("'λᵢ'"), HasSubstr("'θᵢ'")));
  // libgd (GIF, sixel) draws one font: written with glyphs it has, for every output of the figure.
  EXPECT_THAT(gnuplot_script(f, {{"f.png", Format::Png}, {"f.gif", Format::Gif}}, zh),
              AllOf(HasSubstr("'λ_i'"), HasSubstr("'θ_i'"), Not(HasSubstr("ᵢ"))));
  EXPECT_THAT(gnuplot_script(f, {{"f.gif", Format::Gif}}, Style{}), HasSubstr("'λᵢ'"));  // DejaVu Sans has them
  // A log axis's tick labels too: 10⁵ where the font has it, 10^5 in a Chinese GIF.
  Figure log;
  log.log_y = true;
  log.series.push_back({"s", vec({1, 2}), vec({1, 1e6})});
  EXPECT_THAT(gnuplot_script(log, kPng, zh), HasSubstr("'10⁵' 100000"));
  EXPECT_THAT(gnuplot_script(log, {{"f.gif", Format::Gif}}, zh),
              AllOf(HasSubstr("'10^5' 100000"), Not(HasSubstr("⁵"))));
}

TEST(PlotText, WideCharactersGiveTheirExtraColumnBackFromTheNextGap) {
  // gnuplot counts 标题 as 2 columns; a terminal shows 4: two spaces of the gap after it go.
  EXPECT_EQ(fit_wide_characters("|  标题      |\n|          |"), "|  标题    |\n|          |");
  EXPECT_EQ(fit_wide_characters("a 中文 b   c"), "a 中文 b c");  // the first space of a gap stays
  EXPECT_EQ(fit_wide_characters("\x1b[0;39m中 \x1b[0m  |"), "\x1b[0;39m中 \x1b[0m |");
  EXPECT_EQ(fit_wide_characters("plain  text"), "plain  text");
}

}  // namespace
}  // namespace rope::plot
