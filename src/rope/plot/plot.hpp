/// @file
/// Figures. A Figure describes what to draw (curves, shaded bands, reference lines, labels, a heatmap
/// with a colorbar); gnuplot_script() turns it into a gnuplot script with the data inline, and render()
/// writes that script to a private temporary file and runs gnuplot on it as a separate process (never
/// through a pipe: from a pipe gnuplot keeps going after an error). See ../shared/style.md §10.
///
/// Safety: every user-visible string enters the script through quote() (single-quoted, control
/// characters replaced, enhanced-text markup off), so no title can run a gnuplot command. Numbers are
/// written with fmt (shortest round-trip, independent of the locale).
/// Atomicity: gnuplot writes each output under a temporary name in the output's own directory; the
/// file is renamed into place only when gnuplot succeeded, so a failure never leaves a partial figure.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rope::plot {

enum class Format { Png, Svg, Pdf };

/// "png", "svg" or "pdf" from the file's extension (case-insensitive).
/// @throws InvalidArgument naming the path for any other extension.
Format format_from_extension(const std::string& path);

struct Output {
  std::string path;
  Format format;
};

/// A curve. Colours index the colour-blind-safe palette (Okabe & Ito 2008); -1 takes the next one.
struct Series {
  std::string label;  ///< legend entry; empty: none
  Eigen::VectorXd x;
  Eigen::VectorXd y;
  int color = -1;
  bool dashed = false;
  bool points = false;  ///< points instead of a line
  double line_width = 2.5;
};

/// A shaded region between two curves over the same x, drawn under the curves.
struct Band {
  std::string label;
  Eigen::VectorXd x;
  Eigen::VectorXd lower;
  Eigen::VectorXd upper;
  int color = -1;
};

/// A straight reference line across the plot: vertical at x = value (Axis::X) or horizontal at
/// y = value (Axis::Y), grey and dashed unless a colour is given, with its label written beside it.
struct ReferenceLine {
  enum class Axis { X, Y };
  Axis axis = Axis::Y;
  double value = 0.0;
  std::string label;
  int color = -1;
};

/// Text at a point in data coordinates; with an arrow from the text to (arrow_x, arrow_y) if set.
struct Label {
  double x = 0.0;
  double y = 0.0;
  std::string text;
  enum class Anchor { Left, Center, Right };
  Anchor anchor = Anchor::Left;
  std::optional<double> arrow_x;
  std::optional<double> arrow_y;
};

/// A colour image of z(row, col): column c is drawn at x = x0 + c·dx, row r at y = y0 + r·dy.
struct Heatmap {
  Eigen::MatrixXd z;
  double x0 = 0.0;
  double dx = 1.0;
  double y0 = 0.0;
  double dy = 1.0;
  /// Diverging palette centred on 0 with a colour range symmetric around 0 (blue < 0 < red);
  /// otherwise a sequential palette over [min z, max z].
  bool diverging = true;
  bool rows_downward = false;  ///< row 0 at the top, as a matrix is printed
  std::string colorbar_label;
};

struct Figure {
  std::string title;
  std::string xlabel;
  std::string ylabel;
  bool log_x = false;
  bool log_y = false;
  std::optional<std::pair<double, double>> xrange;
  std::optional<std::pair<double, double>> yrange;
  std::vector<Band> bands;
  std::vector<Series> series;
  std::vector<ReferenceLine> lines;
  std::vector<Label> labels;
  std::optional<Heatmap> heatmap;
  enum class Key { TopRight, TopLeft, BottomRight, BottomLeft, Below };
  Key key = Key::TopRight;
};

struct Style {
  int width = 1200;   ///< pixels (PNG; SVG at 96 px per inch; PDF converted to inches the same way)
  int height = 800;
  int font_size = 18;  ///< points: large enough for a projector
  /// "en" or "zh". With zh the font is WenQuanYi Micro Hei, and render() first checks that
  /// fontconfig knows a Chinese font.
  std::string lang = "en";
};

/// A series or band with more rows is drawn as its min/max envelope over this many points (every drawn
/// point is still one of its rows): a figure is a few thousand pixels wide, and gnuplot needs about a
/// minute for a million points.
inline constexpr Eigen::Index kMaxPlottedPoints = 20000;

/// Limits: a figure larger than this is never useful and would make gnuplot slow.
inline constexpr int kMinPixels = 200;
inline constexpr int kMaxPixels = 8000;

/// `text` as a gnuplot string expression that prints as `text`: single-quoted, embedded ' doubled
/// (quote("it's") == "'it''s'"), every control character (newline, CR, tab, ESC, …) replaced by a space
/// and bytes that are not UTF-8 by U+FFFD. Inside single quotes gnuplot does no backslash, backquote or
/// macro processing, so no text can run a command. gnuplot 5.4 cannot double a ' at the start of a
/// literal or twice in a row, so such quotes are joined on as a substring of a string of quotes:
/// quote("'a") == "\"''\"[1:1] . 'a'".
std::string quote(std::string_view text);

/// Tick positions for a logarithmic axis over [lo, hi]: 1-2-5 steps (… 5, 10, 20, 50 …) when the range
/// spans at most about two decades, powers of ten otherwise. @pre 0 < lo < hi.
std::vector<double> log_ticks(double lo, double hi);

/// The whole script: settings, one datablock per data set, then for each output its terminal,
/// `set output`, the plot command and `unset output`. Pure: the same inputs give the same text.
/// @throws InvalidArgument for an empty figure, mismatched vector lengths, or a bad style.
std::string gnuplot_script(const Figure& figure, const std::vector<Output>& outputs, const Style& style);

struct RenderOptions {
  Style style;
  /// If not empty, the script (naming the final output paths) is also saved here, so a student can
  /// edit it and run `gnuplot FILE`.
  std::string keep_script;
  /// gnuplot is killed after this long.
  double timeout_seconds = 120.0;
};

/// Draws `figure` into every output with one gnuplot run.
/// @throws IoError if gnuplot is missing ("gnuplot not found (install gnuplot-nox)"), fails (its own
///         message), times out, or an output cannot be written; no partial output is left behind.
///         If the text needs a CJK font and none is installed, IoError naming fonts-wqy-microhei.
/// @throws InvalidArgument as gnuplot_script().
void render(const Figure& figure, const std::vector<Output>& outputs, const RenderOptions& options);

/// The gnuplot program run: $ROPE_GNUPLOT if set, else "gnuplot" found on PATH.
std::string gnuplot_program();

/// Whether fontconfig lists a font covering Chinese (`fc-list :lang=zh`).
bool cjk_font_available();

/// Whether `text` holds a character that needs a CJK font (U+2E80 and above, outside the symbols
/// that ordinary fonts carry).
bool needs_cjk_font(std::string_view text);

}  // namespace rope::plot
