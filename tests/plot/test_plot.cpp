#include "rope/plot/plot.hpp"

#include "support/scoped_env.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "rope/core/error.hpp"

namespace rope::plot {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::ThrowsMessage;
using rope::test::ScopedEnv;

// ---------------------------------------------------------------------------------------------
// Helpers

Eigen::VectorXd vec(std::initializer_list<double> values) {
  Eigen::VectorXd v(static_cast<Eigen::Index>(values.size()));
  Eigen::Index i = 0;
  for (const double x : values) v[i++] = x;
  return v;
}

/// Two labelled curves, as a command would draw them.
Figure two_curves() {
  Figure f;
  f.title = "Decay <&> d_i^2";
  f.xlabel = "distance";
  f.ylabel = "bound";
  Series a;
  a.label = "base = 10000";
  a.x = vec({0, 1, 2, 3});
  a.y = vec({40, 20, 10, 5});
  Series b;
  b.label = "base = 500000";
  b.x = vec({0, 1, 2, 3});
  b.y = vec({40, 30, 25, 20});
  f.series = {a, b};
  return f;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The first line starting with `prefix`, or "" if none.
std::string line_starting(const std::string& script, const std::string& prefix) {
  for (const std::string& line : lines_of(script)) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return "";
}

/// The rows of datablock `name` ("$series0"), each split into numbers read back with strtod.
std::vector<std::vector<double>> datablock(const std::string& script, const std::string& name) {
  std::vector<std::vector<double>> rows;
  bool inside = false;
  for (const std::string& line : lines_of(script)) {
    if (line == name + " << EOD") {
      inside = true;
    } else if (inside && line == "EOD") {
      return rows;
    } else if (inside && !line.empty()) {
      std::vector<double> row;
      std::istringstream words(line);
      for (std::string word; words >> word;) row.push_back(std::strtod(word.c_str(), nullptr));
      rows.push_back(row);
    }
  }
  ADD_FAILURE() << "no datablock " << name;
  return rows;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(bytes.at(at + i));
  return v;
}

/// The five predefined XML entities and &#39;, decoded, so a test can look for the text as typed.
std::string xml_unescape(std::string s) {
  const std::pair<const char*, const char*> entities[] = {{"&lt;", "<"},    {"&gt;", ">"},   {"&quot;", "\""},
                                                          {"&apos;", "'"},  {"&#39;", "'"},  {"&amp;", "&"}};
  for (const auto& [from, to] : entities) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + 1)) {
      s.replace(at, std::strlen(from), to);
    }
  }
  return s;
}


// ---------------------------------------------------------------------------------------------
// quote

TEST(Plot, QuoteDoublesEmbeddedSingleQuotes) {
  // gnuplot manual, "quote marks": inside single quotes '' stands for one '.
  EXPECT_EQ(quote("it's"), "'it''s'");
  EXPECT_EQ(quote("x'"), "'x'''");
  EXPECT_EQ(quote("a'b'c"), "'a''b''c'");
  EXPECT_EQ(quote(""), "''");
}

TEST(Plot, QuoteSpellsQuotesGnuplotCannotDoubleAsASubstring) {
  // gnuplot 5.4.4 (scanner.c) ends a literal at '' right after its opening quote or right after
  // another doubled quote: `print '''x'` and `print 'a''''b'` are syntax errors. Those quotes are cut
  // from a double-quoted string holding twice as many: `print "''"[1:1] . 'x'` prints 'x.
  EXPECT_EQ(quote("'"), R"("''"[1:1])");
  EXPECT_EQ(quote(R"('; system("x"))"), R"("''"[1:1] . '; system("x")')");
  EXPECT_EQ(quote("a''b"), R"('a' . "''''"[1:2] . 'b')");
  EXPECT_EQ(quote("''@x"), R"("''''"[1:2] . '@x')");
  EXPECT_EQ(quote("it's '@x'"), R"('it''s ''@x''')");  // each ' follows another character: doubled
}

TEST(Plot, QuoteReplacesControlCharactersWithSpaces) {
  // A raw newline would end the string and make the rest of the line a command.
  EXPECT_EQ(quote("a\nb\rc\td\x1b"
                  "e\x7f"
                  "f"),
            "'a b c d e f'");
  EXPECT_EQ(quote(std::string("nul\0byte", 8)), "'nul byte'");
}

TEST(Plot, QuoteKeepsBackquotesMacrosAndCommandsInsideOneLiteral) {
  const std::string text = "`touch x` @macro system(\"touch x\") \\ $d";
  const std::string q = quote(text);
  EXPECT_EQ(q, "'" + text + "'");
  // One literal: the only single quotes are the delimiters.
  EXPECT_EQ(q.find('\'', 1), q.size() - 1);
}

TEST(Plot, QuoteLeavesUtf8AloneAndReplacesBytesThatAreNotUtf8) {
  EXPECT_EQ(quote("θ_i ≤ 2π, 相对距离"), "'θ_i ≤ 2π, 相对距离'");
  // U+FFFD (EF BF BD) for a lone 0xFF and for a truncated 3-byte sequence (E7 9B).
  EXPECT_EQ(quote("a\xff"
                  "b"),
            "'a\xEF\xBF\xBD"
            "b'");
  EXPECT_EQ(quote("\xE7\x9B"), "'\xEF\xBF\xBD\xEF\xBF\xBD'");
}

// ---------------------------------------------------------------------------------------------
// log_ticks

TEST(Plot, LogTicksUseOneTwoFiveStepsOverAboutTwoDecades) {
  // 1-2-5 values m·10^k inside the range, by hand.
  EXPECT_THAT(log_ticks(5, 50), ElementsAre(5, 10, 20, 50));
  EXPECT_THAT(log_ticks(5, 40), ElementsAre(5, 10, 20));
  EXPECT_THAT(log_ticks(0.01, 1), ElementsAre(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1));
}

TEST(Plot, LogTicksUsePowersOfTenOverWideRanges) {
  // 1e6 / 1 > 300: powers of ten only.
  EXPECT_THAT(log_ticks(1, 1e6), ElementsAre(1, 10, 100, 1000, 1e4, 1e5, 1e6));
  EXPECT_THAT(log_ticks(3, 5e4), ElementsAre(10, 100, 1000, 1e4));
}

TEST(Plot, LogTicksGiveAtLeastTwoTicks) {
  // No 1-2-5 value in [3, 4.5] but 3 and 4 are steps of 1; [1.1, 1.9] has neither: its ends.
  EXPECT_THAT(log_ticks(3, 4.5), ElementsAre(3, 4));
  EXPECT_THAT(log_ticks(1.1, 1.9), ElementsAre(1.1, 1.9));
}

TEST(Plot, LogTicksRejectARangeThatIsNotPositive) {
  EXPECT_THROW(log_ticks(0, 10), InvalidArgument);
  EXPECT_THROW(log_ticks(10, 1), InvalidArgument);
}

// ---------------------------------------------------------------------------------------------
// format_from_extension, needs_cjk_font

TEST(Plot, FormatComesFromTheExtensionIgnoringCase) {
  EXPECT_EQ(format_from_extension("a.png"), Format::Png);
  EXPECT_EQ(format_from_extension("dir.v2/B.SVG"), Format::Svg);
  EXPECT_EQ(format_from_extension("c.Pdf"), Format::Pdf);
  EXPECT_THAT([] { format_from_extension("d.jpg"); }, ThrowsMessage<InvalidArgument>(HasSubstr("'d.jpg'")));
  EXPECT_THROW(format_from_extension("png"), InvalidArgument);
}

TEST(Plot, OnlyCjkTextNeedsACjkFont) {
  EXPECT_TRUE(needs_cjk_font("相对距离"));      // U+76F8 …: CJK unified ideographs
  EXPECT_TRUE(needs_cjk_font("d = 128,长度"));  // one Han character is enough
  EXPECT_TRUE(needs_cjk_font("한국어"));        // U+D55C: Hangul syllables
  EXPECT_TRUE(needs_cjk_font("（"));            // U+FF08: full-width forms
  EXPECT_FALSE(needs_cjk_font("θ_i ≤ 2π"));    // Greek and U+2264
  EXPECT_FALSE(needs_cjk_font("∑ · − ± → …"));  // math and punctuation below U+2E80
  EXPECT_FALSE(needs_cjk_font("plain ASCII"));
  EXPECT_FALSE(needs_cjk_font("\xE7\x9B"));  // truncated sequence: not a character at all
}

// ---------------------------------------------------------------------------------------------
// gnuplot_script

const std::vector<Output> kPng = {{"out.png", Format::Png}};

TEST(Plot, ScriptMarksTheTitleNoenhanced) {
  const std::string script = gnuplot_script(two_curves(), kPng, Style{});
  EXPECT_THAT(line_starting(script, "set title "),
              AllOf(HasSubstr("'Decay <&> d_i^2'"), HasSubstr(" noenhanced")));
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
  // Six decades: whole decades, compact labels.
  f.series[0].y = vec({1, 10, 1e6});
  EXPECT_THAT(gnuplot_script(f, kPng, Style{}),
              HasSubstr("set ytics ('1' 1, '10' 10, '100' 100, '1000' 1000, '10000' 10000, '1e5' 100000, "
                        "'1e6' 1000000)\n"));
}

TEST(Plot, ScriptWritesOneTerminalBlockPerOutput) {
  const Style style{640, 480, 18, "en"};
  const std::string script = gnuplot_script(
      two_curves(), {{"a.png", Format::Png}, {"it's.svg", Format::Svg}, {"c.pdf", Format::Pdf}}, style);
  // The svg terminal sizes text in px, cairo in points at 96 dpi: fontscale 96/72 evens them out.
  EXPECT_THAT(script,
              HasSubstr("set terminal pngcairo size 640,480 noenhanced font 'Sans,18' background '#ffffff'\n"
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
  EXPECT_THAT(datablock(script, "$heat"), ElementsAre(ElementsAre(0, 0, -0.5), ElementsAre(1, 0, 2),
                                                      ElementsAre(2, 0, 0), ElementsAre(0, 1, 1),
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
  EXPECT_THAT([] { gnuplot_script(two_curves(), {{"a\nb.png", Format::Png}}, Style{}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("control character")));
  f = two_curves();
  f.log_x = true;
  f.lines.push_back({ReferenceLine::Axis::X, 0, "", -1});
  EXPECT_THAT([&] { gnuplot_script(f, kPng, Style{}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("must be > 0 on a logarithmic axis")));
}

TEST(Plot, ScriptRejectsABadStyleNamingTheValue) {
  EXPECT_THAT([] { gnuplot_script(two_curves(), kPng, {10, 800, 18, "en"}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("width must be between 200 and 8000 pixels (got 10)")));
  EXPECT_THAT([] { gnuplot_script(two_curves(), kPng, {1200, 9000, 18, "en"}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("height must be between 200 and 8000 pixels (got 9000)")));
  EXPECT_THAT([] { gnuplot_script(two_curves(), kPng, {1200, 800, 18, "fr"}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("language must be 'en' or 'zh' (got 'fr')")));
  EXPECT_THAT([] { gnuplot_script(two_curves(), kPng, {1200, 800, 0, "en"}); },
              ThrowsMessage<InvalidArgument>(HasSubstr("font size")));
}

// ---------------------------------------------------------------------------------------------
// render: runs the real gnuplot (and fails, not skips, when it is missing: style.md §8)

class PlotRender : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rope-plot-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
    fs::create_directories(dir_ / "tmp");
    fs::create_directories(dir_ / "bin");
    // render's script goes to temp_directory_path(), which follows TMPDIR: a private one shows
    // exactly what this test left behind, whatever else runs on the machine.
    tmpdir_.emplace("TMPDIR", (dir_ / "tmp").c_str());
    options_.style.width = 640;
    options_.style.height = 480;
    options_.style.font_size = 12;
  }
  void TearDown() override {
    tmpdir_.reset();
    fs::remove_all(dir_);
  }
  fs::path out(const std::string& name) const { return dir_ / "out" / name; }
  /// A stand-in for gnuplot: a shell script with this body.
  std::string fake_gnuplot(const std::string& body) const {
    const fs::path p = dir_ / "bin" / "gnuplot";
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  }
  void expect_no_temp_files() const {
    EXPECT_TRUE(fs::is_empty(dir_ / "tmp")) << "script left in TMPDIR";
    for (const std::string& name : entries(dir_ / "out")) EXPECT_THAT(name, Not(HasSubstr(".tmp-")));
  }

  fs::path dir_;
  std::optional<ScopedEnv> tmpdir_;
  RenderOptions options_;
};

constexpr char kPngSignature[] = "\x89PNG\r\n\x1a\n";  // PNG spec §5.2

TEST_F(PlotRender, PngHasTheSignatureAndTheRequestedSize) {
  render(two_curves(), {{out("a.png").string(), Format::Png}}, options_);
  const std::string png = read(out("a.png"));
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(0, 8), std::string(kPngSignature, 8));
  // PNG spec §11.2.2: the IHDR chunk comes first; width and height are big-endian at bytes 16 and 20.
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(big_endian(png, 16), 640u);
  EXPECT_EQ(big_endian(png, 20), 480u);
  EXPECT_EQ(entries(dir_ / "out"), std::set<std::string>{"a.png"});
  expect_no_temp_files();
}

TEST_F(PlotRender, NewFileGetsOrdinaryPermissions) {
  const mode_t old = ::umask(022);
  render(two_curves(), {{out("a.png").string(), Format::Png}}, options_);
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(out("a.png").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);  // 0666 & ~022, as for any new file
}

TEST_F(PlotRender, SvgHoldsTheSizeTitleAndLegendAsText) {
  render(two_curves(), {{out("a.svg").string(), Format::Svg}}, options_);
  const std::string svg = read(out("a.svg"));
  EXPECT_THAT(svg, HasSubstr("<svg"));
  EXPECT_THAT(svg, HasSubstr("width=\"640\" height=\"480\""));
  // gnuplot 5.4.4 escapes '<' and '&' (not '>'); '_' and '^' stay as typed because the text is noenhanced.
  EXPECT_THAT(svg, HasSubstr(">Decay &lt;&amp;> d_i^2<"));
  EXPECT_THAT(svg, HasSubstr(">base = 10000<"));
  EXPECT_THAT(svg, HasSubstr(">base = 500000<"));
  expect_no_temp_files();
}

TEST_F(PlotRender, PdfStartsWithThePdfHeader) {
  render(two_curves(), {{out("a.pdf").string(), Format::Pdf}}, options_);
  EXPECT_EQ(read(out("a.pdf")).substr(0, 5), "%PDF-");
}

TEST_F(PlotRender, SameInputsGiveByteIdenticalPngAndSvg) {
  Figure f = two_curves();
  f.bands.push_back({"band", vec({0, 1, 2, 3}), vec({30, 15, 8, 4}), vec({45, 25, 12, 6}), -1});
  render(f, {{out("1.png").string(), Format::Png}, {out("1.svg").string(), Format::Svg}}, options_);
  render(f, {{out("2.png").string(), Format::Png}, {out("2.svg").string(), Format::Svg}}, options_);
  EXPECT_EQ(read(out("1.png")), read(out("2.png")));
  EXPECT_EQ(read(out("1.svg")), read(out("2.svg")));
  EXPECT_FALSE(read(out("1.png")).empty());
}

TEST_F(PlotRender, HostileTextIsDrawnLiterallyAndRunsNothing) {
  Figure f = two_curves();
  f.title = "'; system(\"touch PWNED\") #";
  f.xlabel = "x\nsystem(\"touch PWNED2\")";
  f.ylabel = "\" . system(\"touch PWNED4\") . \"";
  f.labels.push_back({1, 30, "`touch PWNED3` @macro", Label::Anchor::Left, std::nullopt, std::nullopt});
  // GPVAL_TERM is a string variable gnuplot defines: expanded as a macro this would read 'svg.
  f.labels.push_back({2, 30, "'@GPVAL_TERM a''b", Label::Anchor::Left, std::nullopt, std::nullopt});
  // Run with the test directory as the working directory, where a relative `touch` would land.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  struct Restore {
    fs::path p;
    ~Restore() { fs::current_path(p); }
  } restore{cwd};
  render(f, {{out("a.png").string(), Format::Png}, {out("a.svg").string(), Format::Svg}}, options_);
  for (const fs::path& where : {dir_, dir_ / "out", dir_ / "tmp", cwd}) {
    for (const char* name : {"PWNED", "PWNED2", "PWNED3", "PWNED4"}) {
      EXPECT_FALSE(fs::exists(where / name)) << (where / name);
    }
  }
  EXPECT_EQ(read(out("a.png")).substr(0, 8), std::string(kPngSignature, 8));
  const std::string svg = xml_unescape(read(out("a.svg")));
  EXPECT_THAT(svg, HasSubstr(">'; system(\"touch PWNED\") #<"));
  EXPECT_THAT(svg, HasSubstr(">x system(\"touch PWNED2\")<"));  // the newline became a space
  EXPECT_THAT(svg, HasSubstr(">`touch PWNED3` @macro<"));
  EXPECT_THAT(svg, HasSubstr(">\" . system(\"touch PWNED4\") . \"<"));
  EXPECT_THAT(svg, HasSubstr(">'@GPVAL_TERM a''b<"));
}

TEST_F(PlotRender, MissingGnuplotIsAnIoErrorAndLeavesNothing) {
  const ScopedEnv env("ROPE_GNUPLOT", "/nonexistent/gnuplot");
  EXPECT_EQ(gnuplot_program(), "/nonexistent/gnuplot");
  EXPECT_THAT([&] { render(two_curves(), {{out("a.png").string(), Format::Png}}, options_); },
              ThrowsMessage<IoError>(HasSubstr("gnuplot not found (install gnuplot-nox)")));
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
  expect_no_temp_files();
}

TEST_F(PlotRender, GnuplotProgramDefaultsToGnuplotOnThePath) {
  const ScopedEnv env("ROPE_GNUPLOT", "");
  EXPECT_EQ(gnuplot_program(), "gnuplot");
}

TEST_F(PlotRender, GnuplotErrorIsReportedInItsOwnWordsAndLeavesNothing) {
  // Like gnuplot: the echoed command, then "file" line N: message, on several lines; exit status 1.
  const std::string fake = fake_gnuplot("echo 'first line' >&2\necho '\"x.gp\" line 3: boom' >&2\nexit 1");
  const ScopedEnv env("ROPE_GNUPLOT", fake.c_str());
  EXPECT_THAT([&] { render(two_curves(), {{out("a.png").string(), Format::Png}}, options_); },
              ThrowsMessage<IoError>(HasSubstr("gnuplot failed: first line \"x.gp\" line 3: boom")));
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
  expect_no_temp_files();
}

TEST_F(PlotRender, LongGnuplotOutputIsDrainedAndItsLastWordsKept) {
  // 200 kB of warnings, more than a pipe holds (64 kB on Linux): rope must keep reading, and the
  // message must end with what came last.
  const std::string fake =
      fake_gnuplot("head -c 200000 /dev/zero | tr '\\0' 'x' >&2\necho 'line 9: the real error' >&2\nexit 1");
  const ScopedEnv env("ROPE_GNUPLOT", fake.c_str());
  options_.timeout_seconds = 10;
  try {
    render(two_curves(), {{out("a.png").string(), Format::Png}}, options_);
    ADD_FAILURE() << "no IoError";
  } catch (const IoError& e) {
    const std::string message = e.what();
    EXPECT_THAT(message, HasSubstr("gnuplot failed: ...xxx"));  // the start was dropped
    EXPECT_THAT(message, ::testing::EndsWith("line 9: the real error"));
    EXPECT_LT(message.size(), 450u);  // one line of about 400 characters, not 200 kB
  }
  expect_no_temp_files();
}

TEST_F(PlotRender, FailedRenderKeepsTheExistingFile) {
  std::ofstream(out("a.png")) << "old figure";
  const ScopedEnv env("ROPE_GNUPLOT", fake_gnuplot("echo boom >&2\nexit 1").c_str());
  EXPECT_THAT([&] { render(two_curves(), {{out("a.png").string(), Format::Png}}, options_); },
              ThrowsMessage<IoError>(HasSubstr("boom")));
  EXPECT_EQ(read(out("a.png")), "old figure");
  EXPECT_EQ(entries(dir_ / "out"), std::set<std::string>{"a.png"});
  expect_no_temp_files();
}

TEST_F(PlotRender, GnuplotThatWritesNothingHasFailed) {
  const ScopedEnv env("ROPE_GNUPLOT", fake_gnuplot("exit 0").c_str());
  EXPECT_THAT([&] { render(two_curves(), {{out("a.png").string(), Format::Png}}, options_); },
              ThrowsMessage<IoError>(HasSubstr("wrote nothing")));
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
  expect_no_temp_files();
}

TEST_F(PlotRender, SlowGnuplotIsStoppedAfterTheTimeout) {
  const ScopedEnv env("ROPE_GNUPLOT", fake_gnuplot("sleep 30").c_str());
  options_.timeout_seconds = 0.5;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT([&] { render(two_curves(), {{out("a.png").string(), Format::Png}}, options_); },
              ThrowsMessage<IoError>(HasSubstr("gnuplot did not finish within 0.5 s")));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
  expect_no_temp_files();
}

TEST_F(PlotRender, MissingDirectoryIsAnIoErrorNamingThePath) {
  const std::string path = out("missing/a.png").string();
  EXPECT_THAT([&] { render(two_curves(), {{path, Format::Png}}, options_); },
              ThrowsMessage<IoError>(AllOf(HasSubstr(path), HasSubstr("No such file or directory"))));
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
  expect_no_temp_files();
}

TEST_F(PlotRender, OutputThatIsADirectoryIsAnIoError) {
  fs::create_directory(out("d.png"));
  EXPECT_THAT([&] { render(two_curves(), {{out("d.png").string(), Format::Png}}, options_); },
              ThrowsMessage<IoError>(HasSubstr("Is a directory")));
  EXPECT_TRUE(fs::is_empty(out("d.png")));
  expect_no_temp_files();
}

TEST_F(PlotRender, WithoutAChineseFontChineseTextIsAnIoError) {
  // A fontconfig that knows only an empty directory, as on a machine without fonts-wqy-microhei.
  fs::create_directories(dir_ / "fonts");
  std::ofstream(dir_ / "fonts.conf") << "<?xml version=\"1.0\"?><!DOCTYPE fontconfig SYSTEM \"fonts.dtd\"><fontconfig>"
                                     << "<dir>" << (dir_ / "fonts").string() << "</dir><cachedir>"
                                     << (dir_ / "fonts" / "cache").string() << "</cachedir></fontconfig>";
  const ScopedEnv env("FONTCONFIG_FILE", (dir_ / "fonts.conf").c_str());
  EXPECT_FALSE(cjk_font_available());
  Figure f = two_curves();
  f.title = "相对距离";
  EXPECT_THAT([&] { render(f, {{out("a.png").string(), Format::Png}}, options_); },
              ThrowsMessage<IoError>(HasSubstr("install fonts-wqy-microhei")));
  // lang zh asks for the Chinese font even when every text is ASCII.
  options_.style.lang = "zh";
  EXPECT_THAT([&] { render(two_curves(), {{out("a.png").string(), Format::Png}}, options_); },
              ThrowsMessage<IoError>(HasSubstr("install fonts-wqy-microhei")));
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
  expect_no_temp_files();
}

TEST_F(PlotRender, ChineseFigureRendersWithTheInstalledFont) {
  // fonts-wqy-microhei is part of the developer install line (style.md §2).
  EXPECT_TRUE(cjk_font_available());
  Figure f = two_curves();
  f.title = "相对距离";
  f.series[0].label = "底数 10000";
  options_.style.lang = "zh";
  render(f, {{out("zh.png").string(), Format::Png}}, options_);
  EXPECT_EQ(read(out("zh.png")).substr(0, 8), std::string(kPngSignature, 8));
}

TEST_F(PlotRender, KeptScriptNamesTheFinalPathAndRunsOnItsOwn) {
  options_.keep_script = (dir_ / "figure.gp").string();
  const fs::path png = out("a.png");
  render(two_curves(), {{png.string(), Format::Png}}, options_);
  const std::string script = read(dir_ / "figure.gp");
  EXPECT_THAT(script, HasSubstr("set output " + quote(png.string()) + "\n"));
  EXPECT_THAT(script, Not(HasSubstr(".tmp-")));
  const std::string rendered = read(png);
  fs::remove(png);
  // dir_ holds no quote, so single quotes keep the shell away from it.
  ASSERT_EQ(std::system(("gnuplot '" + options_.keep_script + "'").c_str()), 0);
  EXPECT_EQ(read(png), rendered);  // the same figure, byte for byte
}

TEST_F(PlotRender, HeatmapsRenderIncludingASingleRow) {
  Figure f;
  Heatmap h;
  h.z.resize(1, 3);  // gnuplot's image style needs 2×2 points; render doubles the row
  h.z << -1, 0, 1;
  h.colorbar_label = "value";
  f.heatmap = h;
  f.title = "one row";
  render(f, {{out("h.png").string(), Format::Png}}, options_);
  EXPECT_EQ(read(out("h.png")).substr(0, 8), std::string(kPngSignature, 8));
}

}  // namespace
}  // namespace rope::plot
