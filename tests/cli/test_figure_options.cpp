// rope/cli/figure_options.hpp: --term (the rule for sixel, colour or plain text, the size) and the
// animations (--gif, --frames, --delay) of explain, wavelengths, attention --shift and decay.
#include "rope/cli/figure_options.hpp"

#include <cmath>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <set>

#include "rope/cli/figures/motion_figures.hpp"
#include "rope/core/error.hpp"
#include "support/cli_harness.hpp"

namespace rope::cli {
namespace {

using test::expect_one_line_error;
using test::Result;
using test::rope_cli;
using ::testing::HasSubstr;

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(TerminalFormat, SixelOnlyOnAKnownTerminalColourOnlyOnATerminal) {
  using plot::Format;
  EXPECT_EQ(terminal_format("auto", true, "foot", nullptr), Format::Sixel);
  EXPECT_EQ(terminal_format("auto", true, "xterm-sixel", nullptr), Format::Sixel);
  EXPECT_EQ(terminal_format("auto", true, "xterm-256color", nullptr), Format::TextColor);
  EXPECT_EQ(terminal_format("auto", true, "xterm-256color", "1"), Format::Text);  // NO_COLOR
  EXPECT_EQ(terminal_format("auto", true, "dumb", nullptr), Format::Text);
  EXPECT_EQ(terminal_format("auto", true, nullptr, nullptr), Format::Text);
  // Into a pipe or a file: never an escape sequence.
  EXPECT_EQ(terminal_format("auto", false, "foot", nullptr), Format::Text);
  EXPECT_EQ(terminal_format("text", false, "xterm-256color", nullptr), Format::Text);
  EXPECT_EQ(terminal_format("sixel", true, "xterm", nullptr), Format::Sixel);  // asked for
  EXPECT_THROW(terminal_format("sixel", false, "foot", nullptr), InvalidArgument);
}

TEST(TerminalFormat, SizeFromTheEnvironmentClampedToTheLimits) {
  EXPECT_EQ(terminal_size(-1, nullptr, nullptr), (std::pair{80, 23}));  // 80×24, one line for the prompt
  EXPECT_EQ(terminal_size(-1, "120", "40"), (std::pair{120, 39}));
  EXPECT_EQ(terminal_size(-1, "10", "5"), (std::pair{plot::kMinColumns, plot::kMinLines}));
  EXPECT_EQ(terminal_size(-1, "1000000", "1000000"), (std::pair{80, 23}));  // not a sane number: ignored
  EXPECT_EQ(terminal_size(-1, "999", "999"), (std::pair{plot::kMaxColumns, plot::kMaxLines}));
  EXPECT_EQ(terminal_size(-1, "12x", "-3"), (std::pair{80, 23}));
}

class FigureOptionsCli : public test::TempDirTest {};

TEST_F(FigureOptionsCli, TermIntoAPipeIsPlainTextBeforeTheOutput) {
  const Result r = rope_cli({"explain", "--step", "5", "--term", "auto"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_THAT(r.out, HasSubstr("RoPE in 2-D: q at M = 2, k at N = 5"));
  EXPECT_THAT(r.out, HasSubstr("Step 5"));
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
  expect_one_line_error(rope_cli({"explain", "--term", "sixel"}), 2, "not a terminal");
  expect_one_line_error(rope_cli({"explain", "--term", "kitty"}), 2, "--term must be auto, sixel or text");
}

TEST_F(FigureOptionsCli, ExplainGifHasOneFramePerPositionAndIsDeterministic) {
  const Result r = rope_cli({"explain", "--gif", path("e.gif"), "--frames", "6", "--delay", "200", "--width", "400",
                             "--height", "400", "--keep-script", path("e.gp")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, rope_cli({"explain"}).out);
  const std::string script = read(path("e.gp"));
  EXPECT_THAT(script, HasSubstr("set terminal gif animate delay 20 loop 0 size 400,400"));
  EXPECT_EQ(count(script, "\n# frame "), 6u);
  // Frame 5 (c = 5): q = (1, 0.5) at M + c = 7 turned by 7θ = 7 rad, by hand: (cos 7 − 0.5 sin 7, sin 7 + 0.5 cos 7).
  EXPECT_THAT(script, HasSubstr(fmt::format("0 0\n{} {}\nEOD", std::cos(7.0) - 0.5 * std::sin(7.0),
                                            std::sin(7.0) + 0.5 * std::cos(7.0))));
  EXPECT_THAT(script, HasSubstr("'RoPE turning: c = 5, q at M + c = 7, k at N + c = 10'"));
  const std::string gif = read(path("e.gif"));
  EXPECT_EQ(gif.substr(0, 6), "GIF89a");
  EXPECT_EQ(gif.back(), '\x3B');
  ASSERT_EQ(rope_cli({"explain", "--gif", path("f.gif"), "--frames", "6", "--delay", "200", "--width", "400",
                      "--height", "400"})
                .code,
            0);
  EXPECT_EQ(read(path("f.gif")), gif);  // same options, same bytes
}

TEST_F(FigureOptionsCli, EveryAnimationDraws) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"wavelengths", "--context", "4096"},
        {"attention", "--tokens", "6", "--shift", "50"},
        {"attention", "--tokens", "6", "--shift", "50", "--encoding", "sinusoidal"},
        {"decay", "--dim", "64"},
        {"explain", "--lang", "zh"}}) {
    std::vector<std::string> all = args;
    for (const char* a : {"--frames", "3", "--width", "400", "--height", "300", "--keep-script"}) all.emplace_back(a);
    all.push_back(path("a.gp"));
    all.push_back("--gif");
    all.push_back(path("a.gif"));
    const Result r = rope_cli(all);
    ASSERT_EQ(r.code, 0) << args.front() << ": " << r.err;
    EXPECT_EQ(count(read(path("a.gp")), "\n# frame "), 3u) << args.front();
    EXPECT_EQ(read(path("a.gif")).back(), '\x3B') << args.front();
  }
  // The wavelengths sweep ends at the context; the decay sweep at base 10^6; attention at the shift.
  ASSERT_EQ(rope_cli({"wavelengths", "--context", "4096", "--frames", "3", "--gif", path("w.gif"), "--keep-script",
                      path("w.gp")})
                .code,
            0);
  EXPECT_THAT(read(path("w.gp")), HasSubstr("position m = 4096'"));
  EXPECT_THAT(read(path("w.gp")), HasSubstr("position m = 64'"));  // √4096, the middle of 3 geometric steps
}

TEST_F(FigureOptionsCli, CompareAnimationsShareOneColourScale) {
  // attention --compare --gif: every encoding's frames on one scale, 0 … the largest weight of any
  // encoding in any frame, so that the GIFs can be compared side by side (the still --compare figures do
  // the same). Each encoding's script has the same cbrange, and its top is the largest of the four.
  const Result r = rope_cli({"attention", "--compare", "--shift", "8", "--tokens", "8", "--frames", "2", "--gif",
                             path("a.gif"), "--keep-script", path("s.gp")});
  ASSERT_EQ(r.code, 0) << r.err;
  std::set<std::string> ranges;
  for (const char* e : {"rope", "sinusoidal", "alibi", "none"}) {
    const std::string script = read(path(std::string("s_") + e + ".gp"));
    for (std::size_t at = script.find("set cbrange ["); at != std::string::npos;
         at = script.find("set cbrange [", at + 1)) {
      ranges.insert(script.substr(at, script.find('\n', at) - at));
    }
  }
  EXPECT_EQ(ranges.size(), 1u) << fmt::format("{}", fmt::join(ranges, " | "));
}

TEST(ExplainFrames, LabelsKeepApart) {
  // q, k and the hands' numbers (the one-character labels) at least kLabelGap·max(|q|, |k|) apart in every
  // frame: the gallery's 24 frames of the default setup (docs/gallery/explain.gif, whose last frame put pair
  // 1's number 0.11 from k's before labels were moved aside), 120 frames, and another q, k, M, N.
  explain::Setup other;
  other.q = {0.3, -1.2};
  other.k = {-0.9, 0.4};
  other.m = 7;
  other.n = 3;
  for (const auto& [setup, count] :
       {std::pair{explain::Setup{}, 24}, std::pair{explain::Setup{}, 120}, std::pair{other, 60}}) {
    FigureOptions f;
    f.frames = count;
    const double gap = kLabelGap * std::max(setup.q.norm(), setup.k.norm());
    const std::vector<plot::Figure> frames = explain_frames(setup, f);
    ASSERT_EQ(frames.size(), static_cast<std::size_t>(count));
    double closest = INFINITY;
    for (std::size_t c = 0; c < frames.size(); ++c) {
      std::vector<const plot::Label*> short_labels;
      for (const plot::Label& l : frames[c].labels) {
        if (l.text.size() == 1) short_labels.push_back(&l);
      }
      ASSERT_EQ(short_labels.size(), 6u);  // q, k and 4 hands at d = 8
      for (std::size_t a = 0; a < short_labels.size(); ++a) {
        for (std::size_t b = a + 1; b < short_labels.size(); ++b) {
          const double d = std::hypot(short_labels[a]->x - short_labels[b]->x, short_labels[a]->y - short_labels[b]->y);
          closest = std::min(closest, d);
          EXPECT_GE(d, gap * (1 - 1e-12))
              << "frame " << c << ": '" << short_labels[a]->text << "' and '" << short_labels[b]->text << "'";
        }
      }
    }
    RecordProperty(fmt::format("closest_{}", count), fmt::format("{:.3g}", closest / gap));
  }
}

TEST_F(FigureOptionsCli, AnimationOptionsFollowTheirRules) {
  expect_one_line_error(rope_cli({"explain", "--frames", "4"}), 2, "--frames needs an animation: add --gif FILE");
  expect_one_line_error(rope_cli({"explain", "--delay", "100"}), 2, "--delay needs an animation");
  expect_one_line_error(rope_cli({"explain", "--gif", path("a.gif"), "--delay", "15"}), 2, "multiple of 10 ms");
  expect_one_line_error(rope_cli({"explain", "--gif", path("a.gif"), "--frames", "1"}), 2,
                        "--frames must be between 2 and 120");
  expect_one_line_error(rope_cli({"explain", "--gif", path("a.gif"), "--frames", "121"}), 2, "(got 121)");
  expect_one_line_error(rope_cli({"explain", "--gif", path("a.png")}), 2, "must end in .gif");
  // A name that is only the extension ends in it: the rule it breaks is the missing name (issue 37, item 10).
  expect_one_line_error(rope_cli({"explain", "--gif", path(".gif")}), 2,
                        "'" + path(".gif") + "' needs a name before its extension .gif");
  expect_one_line_error(rope_cli({"decay", "--output", path(".png")}), 2, "needs a name before its extension .png");
  expect_one_line_error(rope_cli({"lesson", "--html", path(".html")}), 2, "needs a name before its extension .html");
  expect_one_line_error(rope_cli({"explain", "--gif", path("a.gif"), "--width", "1601"}), 2, "at most 1600 pixels");
  expect_one_line_error(rope_cli({"attention", "--gif", path("a.gif")}), 2, "--gif animates the shift test");
  expect_one_line_error(rope_cli({"decay", "--gif", path("a.gif"), "--model", "llama2-7b"}), 2,
                        "--gif sweeps the base");
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

}  // namespace
}  // namespace rope::cli
