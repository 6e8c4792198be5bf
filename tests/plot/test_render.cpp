// rope/plot/render.hpp: drawing with the real gnuplot (and stand-ins for it), the CJK font checks.
#include "rope/plot/render.hpp"

#include "support/scoped_env.hpp"

#include <chrono>
#include <cmath>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plot/helpers.hpp"
#include "rope/core/error.hpp"
#include "rope/plot/script.hpp"

namespace rope::plot {
namespace {

using rope::test::ScopedEnv;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::ThrowsMessage;
using namespace plot_test;

TEST(Plot, OnlyCjkTextNeedsACjkFont) {
  EXPECT_TRUE(needs_cjk_font("相对距离"));      // U+76F8 …: CJK unified ideographs
  EXPECT_TRUE(needs_cjk_font("d = 128,长度"));  // one Han character is enough
  EXPECT_TRUE(needs_cjk_font("한국어"));        // U+D55C: Hangul syllables
  EXPECT_TRUE(needs_cjk_font("（"));            // U+FF08: full-width forms
  EXPECT_FALSE(needs_cjk_font("θ_i ≤ 2π"));     // Greek and U+2264
  EXPECT_FALSE(needs_cjk_font("∑ · − ± → …"));  // math and punctuation below U+2E80
  EXPECT_FALSE(needs_cjk_font("plain ASCII"));
  EXPECT_FALSE(needs_cjk_font("\xE7\x9B"));  // truncated sequence: not a character at all
}

// ---------------------------------------------------------------------------------------------
// render: runs the real gnuplot (and fails, not skips, when it is missing)

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
    for (const std::string& name : entries(dir_ / "out")) EXPECT_THAT(name, Not(HasSubstr(".rope-")));
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
  EXPECT_THAT(
      [&] {
        render(two_curves(), {{out("a.png").string(), Format::Png}}, options_);
      },
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
  EXPECT_THAT(
      [&] {
        render(two_curves(), {{out("a.png").string(), Format::Png}}, options_);
      },
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
  EXPECT_THAT(
      [&] {
        render(two_curves(), {{out("a.png").string(), Format::Png}}, options_);
      },
      ThrowsMessage<IoError>(HasSubstr("boom")));
  EXPECT_EQ(read(out("a.png")), "old figure");
  EXPECT_EQ(entries(dir_ / "out"), std::set<std::string>{"a.png"});
  expect_no_temp_files();
}

TEST_F(PlotRender, GnuplotThatWritesNothingHasFailed) {
  const ScopedEnv env("ROPE_GNUPLOT", fake_gnuplot("exit 0").c_str());
  EXPECT_THAT(
      [&] {
        render(two_curves(), {{out("a.png").string(), Format::Png}}, options_);
      },
      ThrowsMessage<IoError>(HasSubstr("wrote nothing")));
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
  expect_no_temp_files();
}

TEST_F(PlotRender, SlowGnuplotIsStoppedAfterTheTimeout) {
  const ScopedEnv env("ROPE_GNUPLOT", fake_gnuplot("sleep 30").c_str());
  options_.timeout_seconds = 0.5;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(
      [&] {
        render(two_curves(), {{out("a.png").string(), Format::Png}}, options_);
      },
      ThrowsMessage<IoError>(HasSubstr("gnuplot did not finish within 0.5 s")));
  // Well before the fake gnuplot's 30 s, with room for a loaded machine or a sanitizer build.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
  expect_no_temp_files();
}

TEST_F(PlotRender, MissingDirectoryIsAnIoErrorNamingThePath) {
  const std::string path = out("missing/a.png").string();
  EXPECT_THAT(
      [&] {
        render(two_curves(), {{path, Format::Png}}, options_);
      },
      ThrowsMessage<IoError>(AllOf(HasSubstr(path), HasSubstr("No such file or directory"))));
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
  expect_no_temp_files();
}

TEST_F(PlotRender, OutputThatIsADirectoryIsAnIoError) {
  fs::create_directory(out("d.png"));
  EXPECT_THAT(
      [&] {
        render(two_curves(), {{out("d.png").string(), Format::Png}}, options_);
      },
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
  EXPECT_THAT(
      [&] {
        render(f, {{out("a.png").string(), Format::Png}}, options_);
      },
      ThrowsMessage<IoError>(HasSubstr("install fonts-wqy-microhei")));
  // lang zh asks for the Chinese font even when every text is ASCII.
  options_.style.lang = "zh";
  EXPECT_THAT(
      [&] {
        render(two_curves(), {{out("a.png").string(), Format::Png}}, options_);
      },
      ThrowsMessage<IoError>(HasSubstr("install fonts-wqy-microhei")));
  EXPECT_TRUE(fs::is_empty(dir_ / "out"));
  expect_no_temp_files();
}

TEST_F(PlotRender, WithoutAnyFontAPngOrSixelIsAnIoErrorAndAnSvgOrTextIsDrawn) {
  fs::create_directories(dir_ / "fonts");
  std::ofstream(dir_ / "fonts.conf") << "<?xml version=\"1.0\"?><!DOCTYPE fontconfig SYSTEM \"fonts.dtd\"><fontconfig>"
                                     << "<dir>" << (dir_ / "fonts").string() << "</dir><cachedir>"
                                     << (dir_ / "fonts" / "cache").string() << "</cachedir></fontconfig>";
  {
    const ScopedEnv env("FONTCONFIG_FILE", (dir_ / "fonts.conf").c_str());
    EXPECT_EQ(any_font_available(), std::optional<bool>(false));
    EXPECT_THAT(
        [&] {
          render(two_curves(), {{out("a.png").string(), Format::Png}}, options_);
        },
        ThrowsMessage<IoError>(HasSubstr("install fonts-dejavu-core")));
    EXPECT_THAT(
        [&] {
          render(two_curves(), {{out("a.pdf").string(), Format::Pdf}}, options_);
        },
        ThrowsMessage<IoError>(HasSubstr("fc-list is empty")));
    EXPECT_TRUE(fs::is_empty(dir_ / "out"));
    render(two_curves(), {{out("a.svg").string(), Format::Svg}}, options_);
    EXPECT_TRUE(fs::exists(out("a.svg")));
    // Sixel (like a GIF) is drawn with a font; a text terminal draws characters and needs none.
    EXPECT_THAT([&] { render_to_text(two_curves(), Format::Sixel, options_); },
                ThrowsMessage<IoError>(HasSubstr("fc-list is empty")));
    EXPECT_THAT(render_to_text(two_curves(), Format::Text, options_), HasSubstr("base = 10000"));
  }
  EXPECT_EQ(any_font_available(), std::optional<bool>(true));  // the developer install has fonts-dejavu-core
}

TEST_F(PlotRender, ChineseFigureRendersWithTheInstalledFont) {
  // fonts-wqy-microhei is part of the developer install line (scripts/install-deps.sh).
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
  EXPECT_THAT(script, Not(HasSubstr(".rope-")));
  EXPECT_THAT(script, Not(HasSubstr("/dev/fd/")));
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

// A heatmap taller than cairo's 32 767-pixel image side rendered nothing (`rope frequencies --dim 65536
// --png`, 128 positions × 32 768 pairs): beyond kMaxHeatmapSide every k-th row is drawn (issue 52).
TEST_F(PlotRender, HeatmapsTallerThanAnImageSideAreDrawnByEveryKthRow) {
  Figure f;
  Heatmap h;
  h.z = Eigen::MatrixXd::Zero(32768, 4);
  for (Eigen::Index r = 0; r < h.z.rows(); ++r) h.z.row(r).setConstant(std::cos(0.001 * static_cast<double>(r)));
  h.colorbar_label = "cos";
  f.heatmap = h;
  const std::string script = gnuplot_script(f, {{"h.png", Format::Png}}, Style{});
  EXPECT_THAT(script, HasSubstr("rows drawn every 5 of 32768, columns every 1 of 4 (kMaxHeatmapSide 8000)"));
  EXPECT_THAT(script, HasSubstr("set yrange [-0.5:32767.5]"));  // the axis still spans every row
  render(f, {{out("tall.png").string(), Format::Png}}, options_);
  EXPECT_EQ(read(out("tall.png")).substr(0, 8), std::string(kPngSignature, 8));
}

}  // namespace
}  // namespace rope::plot
