// rope/plot/animation.hpp: the script of an animated GIF (pure), its limits, and the GIF gnuplot draws.
#include "rope/plot/animation.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plot/helpers.hpp"
#include "rope/core/error.hpp"
#include "support/cli_harness.hpp"

namespace rope::plot {
namespace {

using plot_test::two_curves;
using ::testing::HasSubstr;

/// The number of images in a GIF, read from its block structure (GIF89a specification, sections 17-27):
/// header, logical screen descriptor with an optional global colour table, then extension blocks (0x21),
/// images (0x2C) and the trailer (0x3B). -1 if the structure is broken.
int gif_frames(const std::string& g) {
  if (g.size() < 13 || g.compare(0, 6, "GIF89a") != 0) return -1;
  auto u8 = [&](std::size_t i) { return static_cast<unsigned char>(g[i]); };
  std::size_t p = 13;
  if (u8(10) & 0x80) p += 3u << ((u8(10) & 7) + 1);
  auto skip_sub_blocks = [&]() {
    while (p < g.size() && u8(p) != 0) p += u8(p) + 1;
    ++p;
  };
  int frames = 0;
  while (p < g.size()) {
    const unsigned char b = u8(p);
    if (b == 0x3B) return p + 1 == g.size() ? frames : -1;
    if (b == 0x21) {
      p += 2;
      skip_sub_blocks();
    } else if (b == 0x2C) {
      if (p + 10 > g.size()) return -1;
      const unsigned char flags = u8(p + 9);
      p += 10;
      if (flags & 0x80) p += 3u << ((flags & 7) + 1);
      ++p;  // LZW minimum code size
      skip_sub_blocks();
      ++frames;
    } else {
      return -1;
    }
  }
  return -1;
}

Animation three_frames() {
  Animation a;
  for (int k = 0; k < 3; ++k) {
    Figure f = two_curves();
    f.title = "frame " + std::to_string(k);
    a.frames.push_back(f);
  }
  a.delay_ms = 250;
  return a;
}

Style small() {
  Style s;
  s.width = 320;
  s.height = 240;
  s.font_size = 10;
  return s;
}

TEST(PlotAnimation, ScriptHasOneTerminalAndOnePlotPerFrame) {
  const std::string s = animation_script(three_frames(), {"out.gif", Format::Gif}, small());
  // 250 ms is 25 hundredths of a second, gif's unit; loop 0 repeats forever.
  EXPECT_THAT(s, HasSubstr("set terminal gif animate delay 25 loop 0 size 320,240"));
  EXPECT_THAT(s, HasSubstr("set output 'out.gif'"));
  std::size_t plots = 0;
  for (std::size_t at = s.find("\nplot "); at != std::string::npos; at = s.find("\nplot ", at + 1)) ++plots;
  EXPECT_EQ(plots, 3u);
  EXPECT_THAT(s, HasSubstr("'frame 2'"));
  EXPECT_EQ(s, animation_script(three_frames(), {"out.gif", Format::Gif}, small()));  // pure
}

TEST(PlotAnimation, LimitsAreEnforced) {
  Animation a = three_frames();
  a.delay_ms = 15;  // not a multiple of 10
  EXPECT_THROW(animation_script(a, {"o.gif", Format::Gif}, small()), InvalidArgument);
  a.delay_ms = kMaxDelayMs + 10;
  EXPECT_THROW(animation_script(a, {"o.gif", Format::Gif}, small()), InvalidArgument);
  a = three_frames();
  a.frames.resize(1);
  EXPECT_THROW(animation_script(a, {"o.gif", Format::Gif}, small()), InvalidArgument);
  a = three_frames();
  a.frames.resize(kMaxFrames + 1, a.frames.front());
  EXPECT_THROW(animation_script(a, {"o.gif", Format::Gif}, small()), InvalidArgument);
  Style big = small();
  big.width = kMaxAnimationPixels + 1;
  EXPECT_THROW(animation_script(three_frames(), {"o.gif", Format::Gif}, big), InvalidArgument);
  EXPECT_THROW(animation_script(three_frames(), {"o.png", Format::Png}, small()), InvalidArgument);
}

class PlotAnimationRender : public test::TempDirTest {};

TEST_F(PlotAnimationRender, GifHasEveryFrameAndTheSameBytesEachTime) {
  RenderOptions options;
  options.style = small();
  render_animation(three_frames(), path("a.gif"), options);
  render_animation(three_frames(), path("b.gif"), options);
  const std::string gif = read(path("a.gif"));
  ASSERT_GT(gif.size(), 13u);
  // Logical screen width and height, little-endian 16-bit at bytes 6 and 8 (GIF89a section 18).
  EXPECT_EQ(static_cast<unsigned char>(gif[6]) | static_cast<unsigned char>(gif[7]) << 8, 320);
  EXPECT_EQ(static_cast<unsigned char>(gif[8]) | static_cast<unsigned char>(gif[9]) << 8, 240);
  EXPECT_EQ(gif_frames(gif), 3);
  EXPECT_EQ(gif.back(), '\x3B');
  EXPECT_EQ(gif, read(path("b.gif")));
}

TEST_F(PlotAnimationRender, TextFigureIsPlainCharacters) {
  RenderOptions options;
  options.style.columns = 60;
  options.style.lines = 20;
  const std::string text = render_to_text(two_curves(), Format::Text, options);
  EXPECT_THAT(text, HasSubstr("base = 10000"));
  EXPECT_EQ(text.find('\x1b'), std::string::npos);  // no escape sequence in mono text
  EXPECT_EQ(text.find('\f'), std::string::npos);    // nor the form feed gnuplot starts a page with
  std::size_t lines = 0;
  for (const char c : text) lines += c == '\n';
  EXPECT_LE(lines, 21u);
  const std::string colour = render_to_text(two_curves(), Format::TextColor, options);
  EXPECT_NE(colour.find("\x1b["), std::string::npos);
  const std::string sixel = render_to_text(two_curves(), Format::Sixel, options);
  EXPECT_EQ(sixel.substr(0, 2), "\x1bP");  // DCS ... ST
  EXPECT_THROW(render_to_text(two_curves(), Format::Png, options), InvalidArgument);
}

}  // namespace
}  // namespace rope::plot
