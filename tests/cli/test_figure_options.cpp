// rope/cli/figure_options.hpp: --term (the rule for sixel, colour or plain text, the size) and the
// animations (--gif, --frames, --delay) of explain, wavelengths, attention --shift and decay.
#include "rope/cli/figure_options.hpp"

#include <cmath>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

#include "rope/cli/figures/motion_figures.hpp"
#include "rope/core/error.hpp"
#include "support/cli_harness.hpp"
#include "support/shared.hpp"

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
  EXPECT_EQ(r.out, rope_cli({"explain"}).out + "wrote " + path("e.gif") + "\nwrote " + path("e.gp") + "\n");
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
        {"explain", "--lang", "zh"},
        {"sections", "--grid", "2x3x4"}}) {
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

// Every figure command says which files it drew, after its text, one line "wrote FILE" each (issue 68; the words of
// report/written_text.hpp, as `rope lesson` says it of its page), in both languages; never after JSON or the CSV on
// standard output, nor for a drawing on standard output.
struct WrittenCase {
  const char* name;
  std::vector<std::string> args;  ///< the command and its options, without the figure's
};

const WrittenCase kWrittenCases[] = {
    {"frequencies", {"frequencies", "--dim", "8"}},
    {"wavelengths", {"wavelengths", "--dim", "8", "--context", "100"}},
    {"decay", {"decay", "--max-distance", "20"}},
    {"attention", {"attention", "--tokens", "4", "--dim", "8"}},
    {"matrix", {"matrix", "--dim", "8", "--position", "3"}},
    {"explain", {"explain", "--step", "5"}},
    {"layouts", {"layouts", "--dim", "8", "--max-distance", "4"}},
    {"bound", {"bound", "--context", "1024", "--base-range", "4000,7000"}},
    {"extrapolation", {"extrapolation", "--train-length", "4096", "--tune-length", "16384"}},
    {"precision", {"precision", "--dim", "2", "--points", "2", "--samples", "1"}},
    {"positions", {"positions", "--text", "5", "--image", "1x4x6"}},
    {"sections", {"sections"}},
    {"permute", {"permute", "--max-distance", "3"}},
    {"spectrum", {"spectrum", "--dump", test::kDumps + "q_spectrum.npy"}},
    {"identify", {"identify", "--before", test::kDumps + "q.npy", "--after", test::kDumps + "q_rope_yarn.npy"}},
};

class FigureWrittenLine : public test::TempDirTest, public ::testing::WithParamInterface<WrittenCase> {
 protected:
  Result run_with(std::vector<std::string> extra) const {
    std::vector<std::string> args = GetParam().args;
    args.insert(args.end(), extra.begin(), extra.end());
    return rope_cli(args);
  }
};

TEST_P(FigureWrittenLine, TheTextEndsNamingTheFigure) {
  const std::string svg = path("f.svg");
  const Result plain = run_with({});
  const Result drawn = run_with({"--svg", svg});
  ASSERT_EQ(drawn.code, plain.code) << drawn.err;
  EXPECT_EQ(drawn.err, plain.err);
  // The text, then one line per file, the first the figure asked for (spectrum draws its heads beside it).
  const auto files_after = [](const std::string& out, const std::string& wrote) {
    const std::size_t at = out.find("\n" + wrote);
    std::vector<std::string> files;
    for (std::size_t line = at + 1; at != std::string::npos && line < out.size();) {
      const std::size_t end = out.find('\n', line);
      if (out.compare(line, wrote.size(), wrote) != 0 || end == std::string::npos) return std::vector<std::string>{};
      files.push_back(out.substr(line + wrote.size(), end - line - wrote.size()));
      line = end + 1;
    }
    return files;
  };
  const std::vector<std::string> files = files_after(drawn.out, "wrote ");
  ASSERT_FALSE(files.empty()) << drawn.out;
  EXPECT_EQ(files.front(), svg);
  EXPECT_LE(files.size(), 2u);
  EXPECT_EQ(count(plain.out, "wrote "), 0u);
  const Result zh = run_with({"--svg", svg, "--lang", "zh"});
  ASSERT_EQ(zh.code, plain.code) << zh.err;
  EXPECT_EQ(files_after(zh.out, "已写出 "), files);
}

INSTANTIATE_TEST_SUITE_P(EveryFigureCommand, FigureWrittenLine, ::testing::ValuesIn(kWrittenCases),
                         [](const ::testing::TestParamInfo<WrittenCase>& info) {
                           return std::string(info.param.name);
                         });

TEST_F(FigureOptionsCli, WroteNamesEveryFileOnceAndNothingAProgramReads) {
  const std::string png = path("d.png"), svg = path("d.svg"), gp = path("d.gp"), gif = path("d.gif");
  const Result all = rope_cli({"decay", "--max-distance", "20", "--base", "100", "--base", "10000", "--png", png,
                               "--svg", svg, "--keep-script", gp, "--gif", gif, "--frames", "2"});
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_THAT(all.out,
              ::testing::EndsWith("wrote " + png + "\nwrote " + svg + "\nwrote " + gp + "\nwrote " + gif + "\n"));
  // Several figures of one run (attention --compare: one per encoding, ALiBi's bias beside it): each named once.
  const Result compare = rope_cli({"attention", "--tokens", "4", "--dim", "8", "--compare", "--png", path("a.png")});
  ASSERT_EQ(compare.code, 0) << compare.err;
  for (const char* name : {"a_rope.png", "a_sinusoidal.png", "a_alibi.png", "a_alibi_bias.png", "a_none.png"})
    EXPECT_EQ(count(compare.out, "wrote " + path(name) + "\n"), 1u) << name << compare.out;
  // JSON and the CSV on standard output are for programs: no line; the figure is still drawn.
  const Result json = rope_cli({"decay", "--max-distance", "20", "--json", "--png", path("j.png")});
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(count(json.out, "wrote"), 0u);
  EXPECT_TRUE(std::filesystem::exists(path("j.png")));
  const Result csv = rope_cli({"decay", "--max-distance", "20", "--csv", "-", "--png", path("c.png")});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(count(csv.out, "wrote"), 0u);
  // A drawing on standard output names no file.
  const Result term = rope_cli({"decay", "--max-distance", "20", "--term", "text"});
  ASSERT_EQ(term.code, 0) << term.err;
  EXPECT_EQ(count(term.out, "wrote"), 0u);
  // A failed run names nothing, and leaves nothing for the next one in the same process to name.
  expect_one_line_error(rope_cli({"decay", "--max-distance", "-1", "--png", path("x.png")}), 2, "max-distance");
  EXPECT_EQ(count(rope_cli({"decay", "--max-distance", "20"}).out, "wrote"), 0u);
}

}  // namespace
}  // namespace rope::cli
