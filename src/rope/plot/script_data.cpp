/// @file
/// The data of a figure's script: one datablock per data set, written inline so the script runs on
/// its own, and the plot clauses that draw them.
#include "rope/plot/script_parts.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <iterator>
#include <optional>
#include <utility>

#include "rope/io/csv.hpp"
#include "rope/plot/text.hpp"

namespace rope::plot::script {

namespace {

// Okabe & Ito (2008), "Color Universal Design": distinguishable with every common colour-vision
// deficiency. Ordered so the first colours are the most distinct on a projector.
constexpr std::array<const char*, 8> kPalette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                 "#E69F00", "#56B4E9", "#000000", "#F0E442"};
constexpr double kBandOpacity = 0.25;

/// A data value: non-finite values become gnuplot's NaN, which it treats as a gap in a line.
std::string data_value(double x) { return std::isfinite(x) ? format_number(x) : std::string("NaN"); }

/// The rows of a curve that are drawn: all of them up to kMaxPlottedPoints; beyond, the first, the last,
/// and in each of kMaxPlottedPoints/2 consecutive buckets the row where `low` is smallest and the one
/// where `high` is largest, in order. A plot is at most a few thousand pixels wide, so this min/max
/// envelope looks the same as the full curve while gnuplot draws 10^6 points in a fraction of the time
/// (about a minute otherwise). Every drawn point is a row of the data.
std::vector<Eigen::Index> plotted_rows(const Eigen::VectorXd& low, const Eigen::VectorXd& high) {
  const Eigen::Index n = low.size();
  std::vector<Eigen::Index> rows;
  if (n <= kMaxPlottedPoints) {
    for (Eigen::Index k = 0; k < n; ++k) rows.push_back(k);
    return rows;
  }
  const Eigen::Index buckets = kMaxPlottedPoints / 2 - 1;
  rows.push_back(0);
  for (Eigen::Index b = 0; b < buckets; ++b) {
    const Eigen::Index begin = 1 + b * (n - 2) / buckets;
    const Eigen::Index end = 1 + (b + 1) * (n - 2) / buckets;
    Eigen::Index lo = begin, hi = begin;
    for (Eigen::Index k = begin; k < end; ++k) {
      if (low[k] < low[lo]) lo = k;
      if (high[k] > high[hi]) hi = k;
    }
    rows.push_back(std::min(lo, hi));
    if (lo != hi) rows.push_back(std::max(lo, hi));
  }
  rows.push_back(n - 1);
  return rows;
}

/// Series colours: an explicit index is kept; -1 takes the next palette colour that no series chose
/// explicitly (cycling when all are taken).
std::vector<const char*> series_colors(const std::vector<Series>& series) {
  std::array<bool, kPalette.size()> taken{};
  for (const Series& s : series) {
    if (s.color >= 0) taken[static_cast<std::size_t>(s.color) % kPalette.size()] = true;
  }
  std::vector<const char*> colors;
  std::size_t next = 0;
  const bool all_taken = std::all_of(taken.begin(), taken.end(), [](bool t) { return t; });
  for (const Series& s : series) {
    if (s.color >= 0) {
      colors.push_back(color_of(s.color));
      continue;
    }
    while (!all_taken && taken[next % kPalette.size()]) ++next;
    colors.push_back(kPalette[next % kPalette.size()]);
    ++next;
  }
  return colors;
}

std::string title_of(const std::string& label) {
  return label.empty() ? std::string("notitle") : "title " + quote(label) + " noenhanced";
}

void datablock_header(std::string& out, const std::string& name, const char* what) {
  fmt::format_to(std::back_inserter(out), "# {}\n${} << EOD\n", what, name);
}

/// A finite coordinate from the data, usable on the axis (positive on a log axis): where an invisible
/// anchor point is put so autoscaling includes a reference line or label on the other axis.
std::optional<double> some_coordinate(const Figure& f, bool x_axis) {
  const bool log = x_axis ? f.log_x : f.log_y;
  const auto usable = [&](double v) { return std::isfinite(v) && (!log || v > 0); };
  for (const Series& s : f.series) {
    const Eigen::VectorXd& v = x_axis ? s.x : s.y;
    for (Eigen::Index i = 0; i < v.size(); ++i) {
      if (usable(v[i])) return v[i];
    }
  }
  for (const Band& b : f.bands) {
    for (Eigen::Index i = 0; i < b.x.size(); ++i) {
      const double v = x_axis ? b.x[i] : b.lower[i];
      if (usable(v)) return v;
    }
  }
  return std::nullopt;
}

/// The heatmap's datablock: x y z, one block per row.
void heatmap_data(std::string& out, const Heatmap& h, std::vector<std::string>& plots) {
  auto emit = [&out](auto&&... args) {
    fmt::format_to(std::back_inserter(out), std::forward<decltype(args)>(args)...);
  };
  // Every k-th row and column beyond kMaxHeatmapSide (figure.hpp), said in the datablock's comment.
  const Eigen::Index row_step = (h.z.rows() + kMaxHeatmapSide - 1) / kMaxHeatmapSide;
  const Eigen::Index col_step = (h.z.cols() + kMaxHeatmapSide - 1) / kMaxHeatmapSide;
  const std::string what =
      row_step == 1 && col_step == 1
          ? std::string("heatmap: x y z, one block per row")
          : fmt::format(
                "heatmap: x y z, one block per row; rows drawn every {} of {}, columns every {} of {} "
                "(kMaxHeatmapSide {})",
                row_step, h.z.rows(), col_step, h.z.cols(), kMaxHeatmapSide);
  datablock_header(out, "heat", what.c_str());
  // `with image` needs at least 2×2 points: a single row (column) is written twice, a quarter cell
  // either side of its centre, which covers exactly the same rectangle.
  std::vector<std::pair<Eigen::Index, double>> rows;
  for (Eigen::Index r = 0; r < h.z.rows(); r += row_step) {
    const double y = h.y0 + static_cast<double>(r) * h.dy;
    if (h.z.rows() == 1) {
      rows.push_back({r, y - h.dy / 4}), rows.push_back({r, y + h.dy / 4});
    } else {
      rows.push_back({r, y});
    }
  }
  std::vector<std::pair<Eigen::Index, double>> cols;
  for (Eigen::Index c = 0; c < h.z.cols(); c += col_step) {
    const double x = h.x0 + static_cast<double>(c) * h.dx;
    if (h.z.cols() == 1) {
      cols.push_back({c, x - h.dx / 4}), cols.push_back({c, x + h.dx / 4});
    } else {
      cols.push_back({c, x});
    }
  }
  for (const auto& [r, y] : rows) {
    for (const auto& [c, x] : cols) emit("{} {} {}\n", num(x), num(y), data_value(h.z(r, c)));
    emit("\n");
  }
  emit("EOD\n");
  plots.push_back(kHeatmapPlot);
}

void band_data(std::string& out, const Figure& f, const std::vector<const char*>& colors,
               std::vector<std::string>& plots) {
  auto emit = [&out](auto&&... args) {
    fmt::format_to(std::back_inserter(out), std::forward<decltype(args)>(args)...);
  };
  for (std::size_t i = 0; i < f.bands.size(); ++i) {
    const Band& b = f.bands[i];
    const std::string name = fmt::format("band{}", i);
    datablock_header(out, name, "band: x lower upper");
    for (const Eigen::Index k : plotted_rows(b.lower, b.upper)) {
      emit("{} {} {}\n", num(b.x[k]), data_value(b.lower[k]), data_value(b.upper[k]));
    }
    emit("EOD\n");
    // A band's automatic colour is that of the series with the same index: it shades around it.
    const char* color = b.color >= 0        ? color_of(b.color)
                        : i < colors.size() ? colors[i]
                                            : color_of(static_cast<int>(i));
    plots.push_back(
        fmt::format("${} using 1:2:3 with filledcurves lc rgb '{}' fillstyle transparent solid {} noborder {}", name,
                    color, num(kBandOpacity), title_of(b.label)));
  }
}

void series_data(std::string& out, const Figure& f, const std::vector<const char*>& colors,
                 std::vector<std::string>& plots) {
  auto emit = [&out](auto&&... args) {
    fmt::format_to(std::back_inserter(out), std::forward<decltype(args)>(args)...);
  };
  for (std::size_t i = 0; i < f.series.size(); ++i) {
    const Series& s = f.series[i];
    const std::string name = fmt::format("series{}", i);
    datablock_header(out, name, "series: x y");
    for (const Eigen::Index k : plotted_rows(s.y, s.y)) emit("{} {}\n", num(s.x[k]), data_value(s.y[k]));
    emit("EOD\n");
    if (s.points) {
      plots.push_back(fmt::format("${} using 1:2 with points pt 7 ps {} lc rgb '{}' {}", name, num(s.line_width / 2.5),
                                  colors[i], title_of(s.label)));
    } else {
      plots.push_back(fmt::format("${} using 1:2 with lines lw {} dt {} lc rgb '{}' {}", name, num(s.line_width),
                                  s.dashed ? 2 : 1, colors[i], title_of(s.label)));
    }
  }
}

// Invisible points (single points "with lines" draw nothing, in a fully transparent colour besides)
// that make gnuplot's autoscaling include reference lines and labels.
void anchor_data(std::string& out, const Figure& f, std::vector<std::string>& plots) {
  auto emit = [&out](auto&&... args) {
    fmt::format_to(std::back_inserter(out), std::forward<decltype(args)>(args)...);
  };
  std::vector<std::pair<double, double>> anchors;
  const bool auto_x = autoscaled_x(f);
  const bool auto_y = autoscaled_y(f);
  const std::optional<double> any_x = some_coordinate(f, true);
  const std::optional<double> any_y = some_coordinate(f, false);
  for (const ReferenceLine& r : f.lines) {
    if (r.axis == ReferenceLine::Axis::X && auto_x && any_y) anchors.push_back({r.value, *any_y});
    if (r.axis == ReferenceLine::Axis::Y && auto_y && any_x) anchors.push_back({*any_x, r.value});
  }
  if (auto_x || auto_y) {
    for (const Label& l : f.labels) {
      anchors.push_back({l.x, l.y});
      if (l.arrow_x) anchors.push_back({*l.arrow_x, *l.arrow_y});
    }
  }
  if (!anchors.empty()) {
    datablock_header(out, "anchors",
                     "invisible points that keep reference lines and labels inside the autoscaled range");
    for (const auto& [x, y] : anchors) emit("{} {}\n\n", num(x), num(y));
    emit("EOD\n");
    plots.push_back("$anchors using 1:2 with lines lc rgb '#FF000000' notitle");
  }
}

}  // namespace

std::string num(double x) { return format_number(x); }

const char* color_of(int index) { return kPalette[static_cast<std::size_t>(index) % kPalette.size()]; }

bool autoscaled_x(const Figure& f) { return !f.heatmap && !f.xrange && !f.log_x; }
bool autoscaled_y(const Figure& f) { return !f.heatmap && !f.yrange && !f.log_y; }

std::vector<std::string> write_data(std::string& out, const Figure& f) {
  std::vector<std::string> plots;
  const std::vector<const char*> colors = series_colors(f.series);
  if (f.heatmap) heatmap_data(out, *f.heatmap, plots);
  band_data(out, f, colors, plots);
  series_data(out, f, colors, plots);
  anchor_data(out, f, plots);
  return plots;
}

}  // namespace rope::plot::script
