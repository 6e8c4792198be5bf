/// @file
/// The options every figure-drawing command shares (--png, --svg, --pdf, --output, --title, --lang,
/// --width, --height, --keep-script) and the step from them to rope::plot.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "rope/cli/lang.hpp"
#include "rope/plot/plot.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace rope::cli {

/// Defaults of an animation: 36 frames of 100 ms, a 3.6 s loop.
inline constexpr int kDefaultFrames = 36;
inline constexpr int kDefaultDelayMs = 100;

struct FigureOptions {
  std::string png;
  std::string svg;
  std::string pdf;
  std::string output;  ///< format from the extension
  std::string title;   ///< replaces the default title
  Lang lang = Lang::En;
  int width = 1200;
  int height = 800;
  std::string keep_script;
  std::string term;  ///< --term: "", "auto", "sixel" or "text"
  // Animation (add_animation_options; commands that animate only).
  std::string gif;
  std::optional<int> frames;    ///< --frames; kDefaultFrames without
  std::optional<int> delay_ms;  ///< --delay; kDefaultDelayMs without

  bool wanted() const { return !png.empty() || !svg.empty() || !pdf.empty() || !output.empty() || !term.empty(); }
  bool animated() const { return !gif.empty(); }
  int frame_count() const { return frames.value_or(kDefaultFrames); }
  bool zh() const { return lang == Lang::Zh; }
  /// The command's Text (lang.hpp), after --lang.
  Text tr() const { return Text(lang); }
  /// `english` after --lang, from the catalog (Text::tr).
  const char* tr(const char* english) const { return Text(lang).tr(english); }
  template <class... Args>
  std::string tr(const char* english, Args&&... args) const {
    return Text(lang).tr(english, std::forward<Args>(args)...);
  }
};

void add_figure_options(CLI::App& app, FigureOptions& options);

/// --gif FILE, --frames N and --delay MS; `what` says what moves, for --gif's description.
void add_animation_options(CLI::App& app, FigureOptions& options, const char* what);

/// Where --term draws for the duration of a command: `out` (rope's standard output) and whether it is
/// a terminal (cli.cpp sets this around every command). Without one, --term draws plain text to stdout.
/// It also holds the files the command's figures were drawn into (take_written_figures), empty at its start.
class FigureTerminal {
 public:
  FigureTerminal(std::ostream& out, bool is_tty);
  FigureTerminal(const FigureTerminal&) = delete;
  FigureTerminal& operator=(const FigureTerminal&) = delete;
  ~FigureTerminal();

 private:
  std::ostream* previous_out_;  ///< restored at the end: a lesson runs commands inside its own
  bool previous_tty_;
  std::vector<std::string> previous_written_;
};

/// The files that draw() and draw_animation() wrote in the running command, in order, each once (not '-',
/// not --term's drawing): taken, and so cleared, by emit_report, which names them after the text ("wrote FILE",
/// report/written_text.hpp).
std::vector<std::string> take_written_figures();

/// How --term draws (docs/cli.md, "Figures in the terminal"): "sixel" when asked for, or for "auto"
/// when stdout is a terminal and $TERM names one known to show sixel images (foot, mlterm, contour,
/// wezterm, yaft, or any name containing "sixel"); otherwise text, with ANSI colours only when stdout is
/// a terminal, $TERM is set and not "dumb", and $NO_COLOR is unset. Sixel into a pipe or file is an
/// error: escape sequences go to terminals only.
/// @throws InvalidArgument for "sixel" when `is_tty` is false.
plot::Format terminal_format(const std::string& mode, bool is_tty, const char* term_env, const char* no_color_env);

/// The text figure's size: $COLUMNS/$LINES if set and numbers, else the terminal's own size (`tty_fd`
/// >= 0), else 80×24; one line less for the prompt; clamped to plot::kMinColumns … kMaxColumns and
/// kMinLines … kMaxLines.
std::pair<int, int> terminal_size(int tty_fd, const char* columns_env, const char* lines_env);

/// Checks the sizes and the extension of --output, and that the options that only shape a figure
/// (--keep-script, --title, --width, --height) come with one. --lang (checked when parsed) also sets the
/// language of the command's text (lang.hpp), so it needs no figure.
/// @throws InvalidArgument.
void check_figure_options(const FigureOptions& options);

/// Applies --title, then renders into every requested file, and with --term to the terminal. Does
/// nothing if none was requested.
void draw(plot::Figure figure, const FigureOptions& options);

/// The figure as SVG text (the size and language of `options`), for a page (rope lesson --html).
std::string draw_svg(const plot::Figure& figure, const FigureOptions& options);

/// With --gif: applies --title to every frame and draws them into the GIF (--delay). Does nothing
/// without --gif.
void draw_animation(std::vector<plot::Figure> frames, const FigureOptions& options);

}  // namespace rope::cli
