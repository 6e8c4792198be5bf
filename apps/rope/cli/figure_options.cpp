#include "rope/cli/figure_options.hpp"

#include <algorithm>
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <string_view>
#include <utility>
#include <sys/ioctl.h>
#include <unistd.h>

#include "rope/cli/options.hpp"
#include "rope/core/error.hpp"

namespace rope::cli {

namespace fs = std::filesystem;

void add_figure_options(CLI::App& app, FigureOptions& o) {
  app.add_option("--png", o.png, "draw the figure to a PNG file")->type_name("FILE")->group("Figure");
  app.add_option("--svg", o.svg, "draw the figure to an SVG file")->type_name("FILE")->group("Figure");
  app.add_option("--pdf", o.pdf, "draw the figure to a PDF file")->type_name("FILE")->group("Figure");
  app.add_option("-o,--output", o.output, "draw the figure to FILE, format from its extension (.png, .svg, .pdf)")
      ->type_name("FILE")
      ->group("Figure");
  app.add_option("--title", o.title, "figure title (replaces the default)")->type_name("TEXT")->group("Figure");
  add_lang_option(app, o.lang);  // the text's language too, so not in the Figure group
  add_int_option(app, "--width", o.width, "figure width in pixels")->group("Figure");
  add_int_option(app, "--height", o.height, "figure height in pixels")->group("Figure");
  app.add_option("--keep-script", o.keep_script, "also save the gnuplot script, to edit and re-run with gnuplot")
      ->type_name("FILE")
      ->group("Figure");
  app.add_option("--term", o.term,
                 "draw the figure in the terminal: auto (sixel if the terminal shows it, else text), sixel or text; "
                 "--term alone is auto")
      ->type_name("MODE")
      ->expected(0, 1)
      ->default_str("auto")  // the value of --term given without one
      ->group("Figure");
}

void add_animation_options(CLI::App& app, FigureOptions& o, const char* what) {
  app.add_option("--gif", o.gif, what)->type_name("FILE")->group("Animation");
  add_int_option(app, "--frames", o.frames, kDefaultFrames, "number of frames of the --gif animation (2 … 120)")
      ->group("Animation");
  add_int_option(app, "--delay", o.delay_ms, kDefaultDelayMs,
                 "time each frame of the --gif animation is shown, in ms: a multiple of 10, 20 … 5000")
      ->group("Animation");
}

namespace {

/// The stream and kind of rope's standard output while a command runs (FigureTerminal).
struct TerminalTarget {
  std::ostream* out = nullptr;
  bool is_tty = false;
  std::vector<std::string> written;  ///< the files drawn so far (take_written_figures)
};
TerminalTarget& terminal_target() {
  static TerminalTarget target;
  return target;
}

/// Whether `term` ($TERM) names a terminal known to show sixel images.
bool sixel_terminal(std::string_view term) {
  if (term.find("sixel") != std::string_view::npos) return true;
  for (const std::string_view known : {"foot", "mlterm", "contour", "wezterm", "yaft"}) {
    if (term.substr(0, known.size()) == known) return true;
  }
  return false;
}

/// A positive number of cells from the environment, or nullopt.
std::optional<int> cells(const char* text) {
  if (text == nullptr || *text == '\0' || std::strlen(text) > 6) return std::nullopt;
  for (const char* c = text; *c != '\0'; ++c) {
    if (*c < '0' || *c > '9') return std::nullopt;
  }
  const int n = std::atoi(text);
  return n > 0 ? std::optional(n) : std::nullopt;
}

}  // namespace

FigureTerminal::FigureTerminal(std::ostream& out, bool is_tty)
    : previous_out_(terminal_target().out),
      previous_tty_(terminal_target().is_tty),
      previous_written_(std::move(terminal_target().written)) {
  terminal_target() = {&out, is_tty, {}};
}
FigureTerminal::~FigureTerminal() { terminal_target() = {previous_out_, previous_tty_, std::move(previous_written_)}; }

std::vector<std::string> take_written_figures() { return std::exchange(terminal_target().written, {}); }

plot::Format terminal_format(const std::string& mode, bool is_tty, const char* term_env, const char* no_color_env) {
  const std::string_view term = term_env != nullptr ? term_env : "";
  if (mode == "sixel") {
    if (!is_tty) {
      throw InvalidArgument(error_msg(
          "--term sixel writes escape sequences, and standard output is not a terminal: use --term text or --png FILE"));
    }
    return plot::Format::Sixel;
  }
  if (mode == "auto" && is_tty && sixel_terminal(term)) return plot::Format::Sixel;
  const bool colour = is_tty && !term.empty() && term != "dumb" && (no_color_env == nullptr || *no_color_env == '\0');
  return colour ? plot::Format::TextColor : plot::Format::Text;
}

std::pair<int, int> terminal_size(int tty_fd, const char* columns_env, const char* lines_env) {
  struct winsize ws {};
  const bool known = tty_fd >= 0 && ::ioctl(tty_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0;
  const int columns = cells(columns_env).value_or(known ? ws.ws_col : 80);
  const int lines = cells(lines_env).value_or(known ? ws.ws_row : 24) - 1;
  return {std::clamp(columns, plot::kMinColumns, plot::kMaxColumns),
          std::clamp(lines, plot::kMinLines, plot::kMaxLines)};
}

void check_figure_options(const FigureOptions& o) {
  for (const auto& [name, value] : {std::pair{"--width", o.width}, std::pair{"--height", o.height}}) {
    if (value < plot::kMinPixels || value > plot::kMaxPixels) {
      throw InvalidArgument(error_msg("{0} must be between {1} and {2} pixels (got {3})", name, plot::kMinPixels,
                                      plot::kMaxPixels, value));
    }
  }
  // A figure is a file (or a drawing in the terminal): '-' names no standard-output form, and would have been
  // written as a file called '-'.
  for (const auto& [name, value] :
       {std::pair{"--png", &o.png}, std::pair{"--svg", &o.svg}, std::pair{"--pdf", &o.pdf},
        std::pair{"--output", &o.output}, std::pair{"--gif", &o.gif}, std::pair{"--keep-script", &o.keep_script}}) {
    if (*value == "-") {
      throw InvalidArgument(
          error_msg("{0} needs a file name, not '-': a figure is written to a file (or drawn in the terminal by {1})",
                    name, "--term"));
    }
  }
  if (!o.output.empty()) plot::format_from_extension(o.output);
  if (!o.term.empty() && o.term != "auto" && o.term != "sixel" && o.term != "text") {
    throw InvalidArgument(error_msg("--term must be auto, sixel or text (got '{0}')", o.term));
  }
  if (o.frames && (*o.frames < plot::kMinFrames || *o.frames > plot::kMaxFrames)) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", option_name("frames"),
                                    plot::kMinFrames, plot::kMaxFrames, *o.frames));
  }
  if (o.delay_ms && (*o.delay_ms < plot::kMinDelayMs || *o.delay_ms > plot::kMaxDelayMs || *o.delay_ms % 10 != 0)) {
    throw InvalidArgument(error_msg("--delay must be a multiple of 10 ms between {0} and {1} (got {2})",
                                    plot::kMinDelayMs, plot::kMaxDelayMs, *o.delay_ms));
  }
  if (!o.animated()) {
    for (const auto& [name, given] :
         {std::pair{"--frames", o.frames.has_value()}, std::pair{"--delay", o.delay_ms.has_value()}}) {
      if (given) throw InvalidArgument(error_msg("{0} needs an animation: add --gif FILE", name));
    }
  } else {
    const std::string name = fs::path(o.gif).filename().string();
    if (name == ".gif" || name == ".GIF")
      throw InvalidArgument(error_msg("'{0}' needs a name before its extension {1}", o.gif, name));
    if (fs::path(o.gif).extension() != ".gif" && fs::path(o.gif).extension() != ".GIF") {
      throw InvalidArgument(error_msg("the --gif file must end in .gif (got '{0}')", o.gif));
    }
    for (const auto& [name, value] : {std::pair{"--width", o.width}, std::pair{"--height", o.height}}) {
      if (value > plot::kMaxAnimationPixels) {
        throw InvalidArgument(error_msg("{0} of an animation must be at most {1} pixels (got {2})", name,
                                        plot::kMaxAnimationPixels, value));
      }
    }
  }
  if (!o.wanted() && !o.animated()) {
    const FigureOptions defaults;
    for (const auto& [name, given] :
         {std::pair{"--keep-script", !o.keep_script.empty()}, std::pair{"--title", !o.title.empty()},
          std::pair{"--width", o.width != defaults.width}, std::pair{"--height", o.height != defaults.height}}) {
      if (given)
        throw InvalidArgument(
            error_msg("{0} needs a figure: add --png, --svg, --pdf, --output, --term or --gif", name));
    }
  }
}

namespace {

/// Notes `path` as written, for the line "wrote FILE" (take_written_figures): once, and never standard output.
void note_written(const std::string& path) {
  std::vector<std::string>& written = terminal_target().written;
  if (path.empty() || path == "-" || std::find(written.begin(), written.end(), path) != written.end()) return;
  written.push_back(path);
}

plot::RenderOptions render_options(const FigureOptions& o) {
  plot::RenderOptions options;
  options.style.width = o.width;
  options.style.height = o.height;
  options.style.lang = to_string(o.lang);
  options.keep_script = o.keep_script;
  return options;
}

}  // namespace

void draw(plot::Figure figure, const FigureOptions& o) {
  if (!o.wanted()) return;
  if (!o.title.empty()) figure.title = o.title;
  std::vector<plot::Output> outputs;
  if (!o.png.empty()) outputs.push_back({o.png, plot::Format::Png});
  if (!o.svg.empty()) outputs.push_back({o.svg, plot::Format::Svg});
  if (!o.pdf.empty()) outputs.push_back({o.pdf, plot::Format::Pdf});
  if (!o.output.empty()) outputs.push_back({o.output, plot::format_from_extension(o.output)});
  plot::RenderOptions options = render_options(o);
  if (!outputs.empty()) {
    plot::render(figure, outputs, options);
    for (const plot::Output& output : outputs) note_written(output.path);
    note_written(options.keep_script);
  }
  if (o.term.empty()) return;
  const TerminalTarget target = terminal_target();
  std::ostream& out = target.out != nullptr ? *target.out : std::cout;
  const plot::Format format = terminal_format(o.term, target.is_tty, std::getenv("TERM"), std::getenv("NO_COLOR"));
  if (format != plot::Format::Sixel) {
    const auto [columns, lines] =
        terminal_size(target.is_tty ? STDOUT_FILENO : -1, std::getenv("COLUMNS"), std::getenv("LINES"));
    options.style.columns = columns;
    options.style.lines = lines;
  }
  options.keep_script.clear();  // saved once, for the files
  out << plot::render_to_text(figure, format, options);
  if (format != plot::Format::Sixel) out << '\n';
  out.flush();
}

std::string draw_svg(const plot::Figure& figure, const FigureOptions& o) {
  plot::RenderOptions options = render_options(o);
  options.keep_script.clear();
  return plot::render_to_text(figure, plot::Format::Svg, options);
}

void draw_animation(std::vector<plot::Figure> frames, const FigureOptions& o) {
  if (!o.animated()) return;
  for (plot::Figure& f : frames) {
    if (!o.title.empty()) f.title = o.title;
  }
  plot::Animation animation{std::move(frames), o.delay_ms.value_or(kDefaultDelayMs)};
  plot::RenderOptions options = render_options(o);
  if (!o.png.empty() || !o.svg.empty() || !o.pdf.empty() || !o.output.empty())
    options.keep_script.clear();  // draw() saves it
  plot::render_animation(animation, o.gif, options);
  note_written(o.gif);
  note_written(options.keep_script);
}

}  // namespace rope::cli
