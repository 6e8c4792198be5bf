/// @file
/// The description of a figure: what to draw (curves, shaded bands, reference lines, labels, a heatmap
/// with a colorbar), into which outputs, in which style. Commands fill these in; gnuplot_script()
/// (rope/plot/script.hpp) turns them into a script and render() (rope/plot/render.hpp) draws it.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rope::plot {

/// Files: Png, Svg, Pdf, Gif (one frame; rope/plot/animation.hpp draws several). For a terminal
/// (rope/plot/terminal.hpp): Sixel images, Text (gnuplot's dumb terminal) and TextColor (dumb with ANSI
/// colours).
enum class Format { Png, Svg, Pdf, Gif, Sixel, Text, TextColor };

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

/// A filled rectangle in data coordinates, from (x0, y0) to (x1, y1), drawn behind the curves and labels: a cell of
/// a diagram (rope sections --grid's latent grid). Fill and border index the palette of Series; -1 is light grey
/// (fill) or thin grey (border); a border of a palette colour is drawn thick.
struct Rect {
  double x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0;
  int fill = -1;
  int border = -1;
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
  /// The sequential palette's colour range instead of [min z, max z]: figures meant to be compared
  /// side by side share one, so that one colour is one value in all of them.
  std::optional<std::pair<double, double>> zrange;
};

struct Figure {
  std::string title;
  std::string xlabel;
  std::string ylabel;
  bool log_x = false;
  bool log_y = false;
  std::optional<std::pair<double, double>> xrange;
  std::optional<std::pair<double, double>> yrange;
  bool ytics = true;  ///< false: no y tics or y grid (a strip chart whose rows are labelled instead)
  /// Explicit x tics (position, label), replacing gnuplot's: an axis that restarts, e.g. the channels of
  /// several tables side by side (rope layouts --cache). Empty: gnuplot's own tics.
  std::vector<std::pair<double, std::string>> xtics;
  std::vector<Band> bands;
  std::vector<Series> series;
  std::vector<ReferenceLine> lines;
  std::vector<Label> labels;
  std::optional<Heatmap> heatmap;
  enum class Key { TopRight, TopLeft, BottomRight, BottomLeft, Below };
  Key key = Key::TopRight;
  std::vector<Rect> rects;
  /// A diagram drawn in data units rather than a plot of values: one unit is as long on x as on y (a square cell
  /// looks square), and there are no tics, grid or border.
  bool diagram = false;
};

struct Style {
  int width = 1200;  ///< pixels (PNG; SVG at 96 px per inch; PDF converted to inches the same way)
  int height = 800;
  int font_size = 18;  ///< points: large enough for a projector
  /// "en" or "zh". With zh the font is WenQuanYi Micro Hei, and render() first checks that
  /// fontconfig knows a Chinese font.
  std::string lang = "en";
  /// Text and TextColor only: the size in character cells.
  int columns = 80;
  int lines = 25;
};

/// A series or band with more rows is drawn as its min/max envelope over this many points (every drawn
/// point is still one of its rows): a figure is a few thousand pixels wide, and gnuplot needs about a
/// minute for a million points.
inline constexpr Eigen::Index kMaxPlottedPoints = 20000;

/// A heatmap with more rows (columns) is drawn by every k-th row (column), k = ⌈rows/kMaxHeatmapSide⌉, each
/// drawn cell k cells tall (wide): never more cells per side than a figure has pixels (kMaxPixels), and
/// within cairo's 32 767-pixel image side, beyond which gnuplot's pngcairo silently writes nothing (a
/// 128 × 32 768 heatmap, `rope frequencies --dim 65536 --png`).
inline constexpr Eigen::Index kMaxHeatmapSide = 8000;

/// Limits: a figure larger than this is never useful and would make gnuplot slow.
inline constexpr int kMinPixels = 200;
inline constexpr int kMaxPixels = 8000;
/// Limits of a figure drawn as text (Format::Text): narrower is unreadable, wider no terminal shows.
inline constexpr int kMinColumns = 40;
inline constexpr int kMaxColumns = 400;
inline constexpr int kMinLines = 12;
inline constexpr int kMaxLines = 200;

/// Checks everything gnuplot_script() relies on: a style within the limits above, at least one output
/// with a usable path, something to draw, vectors of matching lengths, finite coordinates (positive on
/// a logarithmic axis), valid colours and ranges.
/// @throws InvalidArgument naming the rule, the element and the value.
void validate(const Figure& figure, const std::vector<Output>& outputs, const Style& style);

}  // namespace rope::plot
