#include "rope/plot/figure.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <string>
#include <utility>

#include "rope/core/error.hpp"
#include "rope/plot/text.hpp"

namespace rope::plot {

namespace {

namespace fs = std::filesystem;

constexpr int kMinFontSize = 4;
constexpr int kMaxFontSize = 144;

void check_range(const std::optional<std::pair<double, double>>& range, const char* name, bool log) {
  if (!range) return;
  const auto [lo, hi] = *range;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) {
    throw InvalidArgument(error_msg("{0} must be finite with min < max (got [{1}, {2}])", name, lo, hi));
  }
  if (log && lo <= 0) {
    throw InvalidArgument(error_msg("{0} must be > 0 on a logarithmic axis (got [{1}, {2}])", name, lo, hi));
  }
}

void check_color(int color, const std::string& what) {
  if (color < -1) {
    throw InvalidArgument(
        error_msg("{0}: colour must be -1 (automatic) or a palette index >= 0 (got {1})", what, color));
  }
}

void check_finite(const Eigen::VectorXd& v, const std::string& what) {
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      throw InvalidArgument(error_msg("{0} must be finite (got {1})", fmt::format("{}[{}]", what, i), v[i]));
    }
  }
}

void check_coordinate(double v, bool log, const std::string& what) {
  if (!std::isfinite(v)) throw InvalidArgument(error_msg("{0} must be finite (got {1})", what, v));
  if (log && v <= 0) {
    throw InvalidArgument(error_msg("{0} must be > 0 on a logarithmic axis (got {1})", what, v));
  }
}

std::string describe(const char* kind, std::size_t i, const std::string& label) {
  return label.empty() ? fmt::format("{} {}", kind, i) : fmt::format("{} {} ('{}')", kind, i, squash(label));
}

}  // namespace

void validate(const Figure& f, const std::vector<Output>& outputs, const Style& style) {
  if (style.width < kMinPixels || style.width > kMaxPixels) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} pixels (got {3})", "figure width", kMinPixels,
                                    kMaxPixels, style.width));
  }
  if (style.height < kMinPixels || style.height > kMaxPixels) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} pixels (got {3})", "figure height", kMinPixels,
                                    kMaxPixels, style.height));
  }
  if (style.font_size < kMinFontSize || style.font_size > kMaxFontSize) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", "font size", kMinFontSize,
                                    fmt::format("{} points", kMaxFontSize), style.font_size));
  }
  if (style.columns < kMinColumns || style.columns > kMaxColumns) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", "a text figure", kMinColumns,
                                    fmt::format("{} columns wide", kMaxColumns), style.columns));
  }
  if (style.lines < kMinLines || style.lines > kMaxLines) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", "a text figure", kMinLines,
                                    fmt::format("{} lines high", kMaxLines), style.lines));
  }
  if (style.lang != "en" && style.lang != "zh") {
    throw InvalidArgument(
        error_msg("{0} must be '{1}' or '{2}' (got '{3}')", "figure language", "en", "zh", style.lang));
  }
  if (outputs.empty()) throw InvalidArgument(error_msg("no output file given: a figure needs at least one"));
  for (const Output& out : outputs) {
    if (out.path.empty()) throw InvalidArgument(error_msg("output path is empty"));
    if (has_control_character(out.path)) {
      throw InvalidArgument(error_msg("output path '{0}' contains a control character", squash(out.path)));
    }
  }
  if (f.series.empty() && f.bands.empty() && !f.heatmap) {
    throw InvalidArgument(error_msg("figure has nothing to draw: give at least one series, band or heatmap"));
  }
  check_range(f.xrange, "xrange", f.log_x);
  check_range(f.yrange, "yrange", f.log_y);

  for (std::size_t i = 0; i < f.series.size(); ++i) {
    const Series& s = f.series[i];
    const std::string what = describe("series", i, s.label);
    if (s.x.size() != s.y.size()) {
      throw InvalidArgument(
          error_msg("{0}: x and y must have the same length (got {1} and {2})", what, s.x.size(), s.y.size()));
    }
    if (s.x.size() == 0) throw InvalidArgument(error_msg("{0}: x and y must not be empty", what));
    check_finite(s.x, what + ": x");
    check_color(s.color, what);
    if (!std::isfinite(s.line_width) || s.line_width <= 0) {
      throw InvalidArgument(error_msg("{0}: line width must be finite and > 0 (got {1})", what, s.line_width));
    }
  }
  for (std::size_t i = 0; i < f.bands.size(); ++i) {
    const Band& b = f.bands[i];
    const std::string what = describe("band", i, b.label);
    if (b.x.size() != b.lower.size() || b.x.size() != b.upper.size()) {
      throw InvalidArgument(error_msg("{0}: x, lower and upper must have the same length (got {1}, {2} and {3})", what,
                                      b.x.size(), b.lower.size(), b.upper.size()));
    }
    if (b.x.size() == 0) throw InvalidArgument(error_msg("{0}: x, lower and upper must not be empty", what));
    check_finite(b.x, what + ": x");
    check_color(b.color, what);
  }
  for (std::size_t i = 0; i < f.lines.size(); ++i) {
    const ReferenceLine& r = f.lines[i];
    const std::string what = describe("reference line", i, r.label);
    const bool log = r.axis == ReferenceLine::Axis::X ? f.log_x : f.log_y;
    check_coordinate(r.value, log, what + ": value");
    check_color(r.color, what);
  }
  for (std::size_t i = 0; i < f.labels.size(); ++i) {
    const Label& l = f.labels[i];
    const std::string what = describe("label", i, l.text);
    check_coordinate(l.x, f.log_x, what + ": x");
    check_coordinate(l.y, f.log_y, what + ": y");
    if (l.arrow_x.has_value() != l.arrow_y.has_value()) {
      throw InvalidArgument(error_msg("{0}: arrow_x and arrow_y must be given together", what));
    }
    if (l.arrow_x) {
      check_coordinate(*l.arrow_x, f.log_x, what + ": arrow_x");
      check_coordinate(*l.arrow_y, f.log_y, what + ": arrow_y");
    }
  }
  for (std::size_t i = 0; i < f.rects.size(); ++i) {
    const Rect& r = f.rects[i];
    const std::string what = fmt::format("rectangle {}", i + 1);
    check_coordinate(r.x0, f.log_x, what + ": x0");
    check_coordinate(r.x1, f.log_x, what + ": x1");
    check_coordinate(r.y0, f.log_y, what + ": y0");
    check_coordinate(r.y1, f.log_y, what + ": y1");
    check_color(r.fill, what);
    check_color(r.border, what);
  }
  if (f.heatmap) {
    const Heatmap& h = *f.heatmap;
    if (h.z.size() == 0) {
      throw InvalidArgument(error_msg("heatmap must have at least one cell (got {0}×{1})", h.z.rows(), h.z.cols()));
    }
    if (!std::isfinite(h.x0) || !std::isfinite(h.y0)) {
      throw InvalidArgument(
          error_msg("{0} must be finite (got {1})", "heatmap x0 and y0", fmt::format("{} and {}", h.x0, h.y0)));
    }
    if (!std::isfinite(h.dx) || !std::isfinite(h.dy) || h.dx <= 0 || h.dy <= 0) {
      throw InvalidArgument(error_msg("heatmap dx and dy must be finite and > 0 (got {0} and {1})", h.dx, h.dy));
    }
    if (f.log_x || f.log_y) {
      throw InvalidArgument(error_msg("a heatmap needs linear axes (log_x and log_y must be off)"));
    }
    if (h.zrange &&
        !(std::isfinite(h.zrange->first) && std::isfinite(h.zrange->second) && h.zrange->first < h.zrange->second)) {
      throw InvalidArgument(error_msg("heatmap colour range must be finite with low < high (got {0} … {1})",
                                      h.zrange->first, h.zrange->second));
    }
  }
}

Format format_from_extension(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const auto& [ext, format] :
       {std::pair{".png", Format::Png}, std::pair{".svg", Format::Svg}, std::pair{".pdf", Format::Pdf}}) {
    const std::size_t n = std::char_traits<char>::length(ext);
    if (name.size() < n || name.compare(name.size() - n, n, ext) != 0) continue;
    if (name.size() == n) throw InvalidArgument(error_msg("'{0}' needs a name before its extension {1}", path, ext));
    return format;
  }
  throw InvalidArgument(
      error_msg("cannot tell the figure format of '{0}': the name must end in .png, .svg or .pdf", path));
}

}  // namespace rope::plot
