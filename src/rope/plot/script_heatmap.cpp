/// @file
/// The heatmap's colour range and what each output needs to draw it (script_parts.hpp). Verified with
/// gnuplot 5.4.4: `with image` writes an SVG's cells as one embedded bitmap, which browsers and
/// converters smooth into a blur, and draws nothing in the dumb terminal without colours; `with image
/// pixels` writes every cell as a filled rectangle (SVG, dumb ansi256).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <iterator>

#include "rope/plot/script_parts.hpp"
#include "rope/plot/text.hpp"

namespace rope::plot::script {

namespace {

/// Plain text: one character per cell, darker for larger values (sequential) or by sign and size
/// (diverging), a space for a cell without a value.
constexpr const char* kSequentialRamp = ".:-=+*#%@";
/// Diverging: `=` at most −kStrong·a, `-` below −kZero·a, `.` within ±kZero·a, `+` above, `#` from kStrong·a.
constexpr double kZero = 0.02;
constexpr double kStrong = 0.5;

std::string text_key(const Heatmap& h, double lo, double hi) {
  const std::string name = h.colorbar_label.empty() ? std::string() : h.colorbar_label + ": ";
  if (!h.diverging) {
    return fmt::format("{}{:.3g} {} {:.3g}", name, lo, kSequentialRamp, hi);
  }
  const double a = hi;
  // Rounded to 2 digits: a key, not the thresholds (the key must fit on one line of the terminal).
  return fmt::format("{}= <= {:.2g}  - < {:.2g}  . within +-{:.2g}  + > {:.2g}  # >= {:.2g}", name, -kStrong * a,
                     -kZero * a, kZero * a, kZero * a, kStrong * a);
}

/// The gnuplot expression of the character of column 3 (a string column "NaN" is a cell without a value).
std::string text_shade(const Heatmap& h, double lo, double hi) {
  if (!h.diverging) {
    const int levels = static_cast<int>(std::char_traits<char>::length(kSequentialRamp));
    const std::string k = fmt::format("(1 + int({} * ($3 - {}) / ({})))", num(levels - 0.001), num(lo), num(hi - lo));
    return fmt::format("(strcol(3) eq 'NaN' ? ' ' : substr('{}', {}, {}))", kSequentialRamp, k, k);
  }
  const double a = hi;
  return fmt::format(
      "(strcol(3) eq 'NaN' ? ' ' : $3 <= {0} ? '=' : $3 < {1} ? '-' : $3 <= {2} ? '.' : $3 < {3} ? '+' : '#')",
      num(-kStrong * a), num(-kZero * a), num(kZero * a), num(kStrong * a));
}

}  // namespace

std::pair<double, double> color_range(const Heatmap& h) {
  double z_min = INFINITY;
  double z_max = -INFINITY;
  for (Eigen::Index k = 0; k < h.z.size(); ++k) {
    const double z = h.z.data()[k];
    if (std::isfinite(z)) z_min = std::min(z_min, z), z_max = std::max(z_max, z);
  }
  if (h.diverging) {
    double a = std::max(std::abs(z_min), std::abs(z_max));
    if (!(a > 0) || !std::isfinite(a)) a = 1.0;  // all zero (or no finite value)
    return {-a, a};
  }
  if (h.zrange) z_min = h.zrange->first, z_max = h.zrange->second;
  if (!(z_min <= z_max)) z_min = 0, z_max = 1;
  if (z_min == z_max) z_min -= 1, z_max += 1;
  return {z_min, z_max};
}

std::string missing_cells_object() {
  return fmt::format(
      "set object {} rectangle from graph 0, graph 0 to graph 1, graph 1 behind fillcolor rgb '#999999' "
      "fillstyle pattern 4 noborder  # cells without a value\n",
      kMissingObject);
}

bool has_missing(const Heatmap& h) {
  return std::any_of(h.z.data(), h.z.data() + h.z.size(), [](double z) { return std::isnan(z); });
}

void heatmap_for_output(Format format, const Heatmap& h, std::vector<std::string>& plots, std::string& before,
                        std::string& after) {
  const auto clause = std::find(plots.begin(), plots.end(), kHeatmapPlot);
  if (clause == plots.end()) return;
  switch (format) {
    case Format::Svg:
      *clause = "$heat using 1:2:3 with image pixels notitle";
      // gnuplot sizes the SVG's right margin from its own estimate of the tick labels' width, which the
      // viewer's font exceeds: the label moves 1.5 characters out, into a right margin of 14 characters
      // (looked at in Chromium; -1 is gnuplot's automatic margin again).
      if (!h.colorbar_label.empty()) {
        before = "set rmargin 14\nset cblabel offset character 1.5, 0\n";
        after = "set rmargin -1\nset cblabel offset 0, 0\n";
      }
      break;
    case Format::TextColor:
      *clause = "$heat using 1:2:3 with image pixels notitle";
      break;
    case Format::Text: {
      const auto [lo, hi] = color_range(h);
      *clause = fmt::format("$heat using 1:2:{} with labels notitle", text_shade(h, lo, hi));
      before =
          fmt::format("unset colorbox\nunset object {}\nset label 900 {} at screen 0.5, screen 1 center offset 0, -1\n",
                      kMissingObject, quote(text_key(h, lo, hi)));
      after = "set colorbox\nunset label 900\n";
      if (has_missing(h)) {
        after += missing_cells_object();
      }
      break;
    }
    default:
      break;
  }
}

}  // namespace rope::plot::script
