/// @file
/// Figure → script text, pure. The script is meant to be read and edited by a student, so it is laid
/// out like a hand-written one: datablocks first (script_data.cpp), then the settings, then one block
/// per output. Verified with gnuplot 5.4.4.
#include "rope/plot/script.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <iterator>
#include <optional>
#include <utility>

#include "rope/core/error.hpp"
#include "rope/plot/script_parts.hpp"
#include "rope/plot/text.hpp"
#include "rope/plot/ticks.hpp"

namespace rope::plot {

namespace script {

namespace {

constexpr const char* kReferenceGrey = "#777777";
constexpr const char* kReferenceTextGrey = "#555555";
constexpr const char* kGridGrey = "#dddddd";
// svg sizes text in px, the cairo terminals in points at 96 dpi: this makes the same font size look
// the same in all three (measured on gnuplot 5.4.4: pngcairo 'Sans,100' has a 98 px cap height).
constexpr double kSvgFontScale = 96.0 / 72.0;

/// Extent of the positive finite values an autoscaled log axis must show.
struct Extent {
  double lo = INFINITY;
  double hi = -INFINITY;
  void add(double v) {
    if (std::isfinite(v) && v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  void add(const Eigen::VectorXd& v) {
    for (Eigen::Index i = 0; i < v.size(); ++i) add(v[i]);
  }
  bool empty() const { return !(lo <= hi); }
};

Extent log_extent(const Figure& f, bool x_axis) {
  Extent e;
  for (const Series& s : f.series) e.add(x_axis ? s.x : s.y);
  for (const Band& b : f.bands) {
    if (x_axis) {
      e.add(b.x);
    } else {
      e.add(b.lower), e.add(b.upper);
    }
  }
  for (const ReferenceLine& r : f.lines) {
    if ((r.axis == ReferenceLine::Axis::X) == x_axis) e.add(r.value);
  }
  for (const Label& l : f.labels) {
    e.add(x_axis ? l.x : l.y);
    if (l.arrow_x) e.add(x_axis ? *l.arrow_x : *l.arrow_y);
  }
  return e;
}

/// Emits the range and ticks of a log axis ("x" or "y"): explicit range as given, otherwise the data
/// range widened by nice_log_range; ticks from log_ticks with compact labels (in_cjk_font where `cjk_one_font`).
void log_axis(std::string& out, const Figure& f, bool x_axis, bool cjk_one_font) {
  const char* axis = x_axis ? "x" : "y";
  const auto& range = x_axis ? f.xrange : f.yrange;
  std::pair<double, double> shown;
  if (range) {
    shown = *range;
  } else {
    const Extent e = log_extent(f, x_axis);
    if (e.empty()) {
      throw InvalidArgument(error_msg("the logarithmic {0} axis has no positive finite value to show", axis));
    }
    shown = nice_log_range(e.lo, e.hi);
  }
  const std::vector<double> at = log_ticks(shown.first, shown.second);
  std::vector<std::string> labels = tick_labels(at);
  if (cjk_one_font)
    for (std::string& l : labels) l = plot::in_cjk_font(l);
  std::vector<std::string> ticks;
  for (std::size_t k = 0; k < at.size(); ++k) ticks.push_back(fmt::format("{} {}", quote(labels[k]), num(at[k])));
  fmt::format_to(std::back_inserter(out), "set logscale {} 10\nset {}range [{}:{}]\nset {}tics ({})\n", axis, axis,
                 num(shown.first), num(shown.second), axis, fmt::join(ticks, ", "));
}

/// Whether a reference line at `value` falls inside an explicitly given range (always true when the
/// axis is autoscaled: the anchors below make autoscaling include it).
bool inside(const std::optional<std::pair<double, double>>& range, double value) {
  return !range || (value >= range->first && value <= range->second);
}

}  // namespace

std::string terminal_line(Format format, const Style& style) {
  const std::string face = style.lang == "zh" ? "WenQuanYi Micro Hei" : "Sans";
  const std::string font = quote(fmt::format("{},{}", face, style.font_size));
  switch (format) {
    case Format::Png:
      return fmt::format("set terminal pngcairo size {},{} noenhanced font {} background '#ffffff'", style.width,
                         style.height, font);
    case Format::Svg:
      return fmt::format("set terminal svg size {},{} fixed noenhanced font {} fontscale {} background '#ffffff'",
                         style.width, style.height, font, num(kSvgFontScale));
    case Format::Pdf:
      return fmt::format("set terminal pdfcairo size {}in,{}in noenhanced font {} background '#ffffff'",
                         num(style.width / 96.0), num(style.height / 96.0), font);
    case Format::Gif:  // libgd; an animation has its own line (animation.cpp)
      return fmt::format("set terminal gif size {},{} noenhanced font {} background '#ffffff'", style.width,
                         style.height, font);
    case Format::Sixel:
      return fmt::format("set terminal sixelgd size {},{} truecolor noenhanced font {} background '#ffffff'",
                         style.width, style.height, font);
    case Format::Text:
      // No grid: in characters it would cover the plot.
      return fmt::format("set terminal dumb size {},{} nofeed noenhanced mono\nunset grid", style.columns, style.lines);
    case Format::TextColor:
      return fmt::format("set terminal dumb size {},{} nofeed noenhanced ansi256\nunset grid", style.columns,
                         style.lines);
  }
  throw InvalidArgument(error_msg("unknown output format"));
}

namespace {

const char* format_name(Format format) {
  switch (format) {
    case Format::Png:
      return "PNG";
    case Format::Svg:
      return "SVG";
    case Format::Pdf:
      return "PDF";
    case Format::Gif:
      return "GIF";
    case Format::Sixel:
      return "sixel";
    case Format::Text:
    case Format::TextColor:
      return "text";
  }
  return "?";
}

/// The heatmap's ranges (cells centred on their coordinates), palette and colour range.
void heatmap_axes(std::string& out, const Figure& f, const Heatmap& h) {
  auto emit = [&out](auto&&... args) {
    fmt::format_to(std::back_inserter(out), std::forward<decltype(args)>(args)...);
  };
  const double x_lo = h.x0 - h.dx / 2;
  const double x_hi = h.x0 + (static_cast<double>(h.z.cols()) - 0.5) * h.dx;
  const double y_lo = h.y0 - h.dy / 2;
  const double y_hi = h.y0 + (static_cast<double>(h.z.rows()) - 0.5) * h.dy;
  if (!f.xrange) emit("set xrange [{}:{}]\n", num(x_lo), num(x_hi));
  if (!f.yrange) {
    if (h.rows_downward) {
      emit("set yrange [{}:{}]  # reversed: row 0 at the top\n", num(y_hi), num(y_lo));
    } else {
      emit("set yrange [{}:{}]\n", num(y_lo), num(y_hi));
    }
  }
  const auto [z_lo, z_hi] = color_range(h);
  if (h.diverging) {
    emit("set palette defined (0 '#2166AC', 0.5 '#F7F7F7', 1 '#B2182B')  # blue < 0 < red\n");
  } else {
    emit("set palette defined (0 '#440154', 0.5 '#21908C', 1 '#FDE725')  # viridis-like\n");
  }
  emit("set cbrange [{}:{}]\n", num(z_lo), num(z_hi));
  if (has_missing(h)) out += missing_cells_object();  // grey hatching behind: such cells show no colour
  if (!h.colorbar_label.empty()) emit("set cblabel {} noenhanced\n", quote(h.colorbar_label));
}

}  // namespace

void write_texts_and_key(std::string& out, const Figure& f, const Style& style) {
  auto emit = [&out](auto&&... args) {
    fmt::format_to(std::back_inserter(out), std::forward<decltype(args)>(args)...);
  };
  if (!f.title.empty()) emit("set title {} noenhanced font ',{}'\n", quote(f.title), style.font_size + 2);
  // With the key below the plot, the x label moves up a little and the key starts with an empty title
  // line, so that the label does not touch the first row of the key.
  const bool key_below = f.key == Figure::Key::Below;
  if (!f.xlabel.empty()) emit("set xlabel {} noenhanced{}\n", quote(f.xlabel), key_below ? " offset 0,0.4" : "");
  if (!f.ylabel.empty()) emit("set ylabel {} noenhanced\n", quote(f.ylabel));
  const bool any_key =
      std::any_of(f.series.begin(), f.series.end(), [](const Series& s) { return !s.label.empty(); }) ||
      std::any_of(f.bands.begin(), f.bands.end(), [](const Band& b) { return !b.label.empty(); });
  if (any_key) {
    const char* where = "inside top right";
    switch (f.key) {
      case Figure::Key::TopRight:
        where = "inside top right";
        break;
      case Figure::Key::TopLeft:
        where = "inside top left";
        break;
      case Figure::Key::BottomRight:
        where = "inside bottom right";
        break;
      case Figure::Key::BottomLeft:
        where = "inside bottom left";
        break;
      case Figure::Key::Below:
        where = "below center horizontal";
        break;
    }
    if (f.key == Figure::Key::Below) {
      // No frame below the plot: gnuplot 5.4 lets a framed key there overlap the x label.
      emit("set key {} nobox title ' ' Left reverse noenhanced samplen 2 spacing 1.1 width 1\n", where);
    } else {
      // Opaque: the key hides the data behind it instead of mixing with it.
      emit("set style line 100 lt 1 lc rgb '#bbbbbb' lw 1  # the key's frame\n");
      emit("set key {} box ls 100 opaque Left reverse noenhanced samplen 2 spacing 1.1 width 1\n", where);
    }
  } else {
    emit("unset key\n");
  }
  if (f.heatmap) {
    emit("unset grid\nset tics out front nomirror\n");
    if (!f.ytics) emit("unset ytics\n");  // rows named by labels instead (rope layouts --cache)
    if (!f.xtics.empty()) {
      std::vector<std::string> ticks;
      for (const auto& [at, label] : f.xtics) ticks.push_back(fmt::format("{} {}", quote(label), num(at)));
      emit("set xtics ({})\n", fmt::join(ticks, ", "));
    }
  } else if (f.diagram) {
    emit("unset xtics\nunset ytics\nunset grid\nunset border\nset size ratio -1  # one unit as long on x as on y\n");
  } else if (!f.ytics) {
    emit("unset ytics\nset grid xtics back lt 1 lc rgb '{}' lw 1\n", kGridGrey);
  } else {
    emit("set grid xtics ytics back lt 1 lc rgb '{}' lw 1\n", kGridGrey);
  }
  emit("set style textbox opaque noborder margins 1, 1\n");
}

void write_axes(std::string& out, const Figure& f, bool cjk_one_font) {
  auto emit = [&out](auto&&... args) {
    fmt::format_to(std::back_inserter(out), std::forward<decltype(args)>(args)...);
  };
  // An autoscaled linear x axis ends at the data (a curve over 0…4096 should not run on to 4500); y
  // keeps gnuplot's widening to the next tick, which leaves headroom for the key.
  if (autoscaled_x(f)) emit("set autoscale xfix\n");
  if (f.log_x) log_axis(out, f, true, cjk_one_font);
  if (f.log_y) log_axis(out, f, false, cjk_one_font);
  if (f.heatmap) heatmap_axes(out, f, *f.heatmap);
  if (f.xrange && !f.log_x) emit("set xrange [{}:{}]\n", num(f.xrange->first), num(f.xrange->second));
  if (f.yrange && !f.log_y) emit("set yrange [{}:{}]\n", num(f.yrange->first), num(f.yrange->second));
}

void write_annotations(std::string& out, const Figure& f) {
  auto emit = [&out](auto&&... args) {
    fmt::format_to(std::back_inserter(out), std::forward<decltype(args)>(args)...);
  };
  int object = kMissingObject;  // the heatmap's hatching is object 1
  for (const Rect& r : f.rects) {
    const char* fill = r.fill >= 0 ? color_of(r.fill) : "#f2f2f2";
    const char* border = r.border >= 0 ? color_of(r.border) : "#bbbbbb";
    emit(
        "set object {} rect from first {}, first {} to first {}, first {} fc rgb '{}' fs solid 1.0 border lc rgb '{}' "
        "lw {} back\n",
        ++object, num(r.x0), num(r.y0), num(r.x1), num(r.y1), fill, border, r.border >= 0 ? 4 : 1);
  }
  int arrow = 0;
  int label = 0;
  for (const ReferenceLine& r : f.lines) {
    const bool vertical = r.axis == ReferenceLine::Axis::X;
    if (!inside(vertical ? f.xrange : f.yrange, r.value)) continue;  // gnuplot would draw it outside the frame
    const char* line_color = r.color >= 0 ? color_of(r.color) : kReferenceGrey;
    const char* text_color = r.color >= 0 ? color_of(r.color) : kReferenceTextGrey;
    const std::string v = num(r.value);
    if (vertical) {
      emit("set arrow {} from first {}, graph 0 to first {}, graph 1 nohead dt 2 lw 2 lc rgb '{}' back\n", ++arrow, v,
           v, line_color);
    } else {
      emit("set arrow {} from graph 0, first {} to graph 1, first {} nohead dt 2 lw 2 lc rgb '{}' back\n", ++arrow, v,
           v, line_color);
    }
    if (r.label.empty()) continue;
    if (vertical) {
      // Reads upwards along the left of the line, ending near the top.
      emit(
          "set label {} {} at first {}, graph 0.97 right rotate by 90 offset character -1.5, 0 tc rgb '{}' boxed front "
          "noenhanced\n",
          ++label, quote(r.label), v, text_color);
    } else {
      emit("set label {} {} at graph 0.02, first {} left offset character 0, 0.8 tc rgb '{}' boxed front noenhanced\n",
           ++label, quote(r.label), v, text_color);
    }
  }
  for (const Label& l : f.labels) {
    const char* anchor = l.anchor == Label::Anchor::Left     ? "left"
                         : l.anchor == Label::Anchor::Center ? "center"
                                                             : "right";
    if (l.arrow_x) {
      // Drawn before the label, whose opaque box then hides the start of the arrow.
      emit(
          "set arrow {} from first {}, first {} to first {}, first {} head filled size screen 0.015, 20 lw 1.5 lc rgb "
          "'#333333' front\n",
          ++arrow, num(l.x), num(l.y), num(*l.arrow_x), num(*l.arrow_y));
    }
    emit("set label {} {} at first {}, first {} {} boxed front noenhanced\n", ++label, quote(l.text), num(l.x),
         num(l.y), anchor);
  }
}

/// What gnuplot 5.4's dumb terminal draws one character off: the key's title ' ' below the plot lands on the
/// tick labels' line and blanks a digit (the tick 30 read "3"), so the key has no title there and the x label
/// sits on its own line; a horizontal reference line to graph 1 runs one character past the right border
/// (which it then lacks on that line), so it ends a character short.
std::string text_fixes(const Figure& f) {
  std::string out;
  const bool any_key =
      std::any_of(f.series.begin(), f.series.end(), [](const Series& s) { return !s.label.empty(); }) ||
      std::any_of(f.bands.begin(), f.bands.end(), [](const Band& b) { return !b.label.empty(); });
  if (f.key == Figure::Key::Below && any_key) {
    out += "set key title ''\n";
    if (!f.xlabel.empty()) out += "set xlabel offset 0,0\n";
  }
  int arrow = 0;
  for (const ReferenceLine& r : f.lines) {
    const bool vertical = r.axis == ReferenceLine::Axis::X;
    if (!inside(vertical ? f.xrange : f.yrange, r.value)) continue;  // as write_annotations numbers them
    ++arrow;
    if (!vertical) {
      out += fmt::format("set arrow {} from graph 0, first {} to graph 0.985, first {}\n", arrow, num(r.value),
                         num(r.value));
    }
  }
  return out;
}

void write_outputs(std::string& out, const Figure& f, const std::vector<std::string>& plots,
                   const std::vector<Output>& outputs, const Style& style) {
  auto emit = [&out](auto&&... args) {
    fmt::format_to(std::back_inserter(out), std::forward<decltype(args)>(args)...);
  };
  for (const Output& o : outputs) {
    std::vector<std::string> drawn = plots;
    std::string before;
    std::string after;
    if (f.heatmap) heatmap_for_output(o.format, *f.heatmap, drawn, before, after);
    if (o.format == Format::Text || o.format == Format::TextColor) before += text_fixes(f);
    emit("\n# {}\n{}\nset output {}\n{}plot {}\nunset output\n{}", format_name(o.format),
         terminal_line(o.format, style), quote(o.path), before, fmt::join(drawn, ", \\\n     "), after);
  }
}

namespace {

/// The figure with every text in_cjk_font().
Figure in_cjk_font(const Figure& figure) {
  Figure f = figure;
  for (std::string* t : {&f.title, &f.xlabel, &f.ylabel}) *t = plot::in_cjk_font(*t);
  for (Series& s : f.series) s.label = plot::in_cjk_font(s.label);
  for (Band& b : f.bands) b.label = plot::in_cjk_font(b.label);
  for (ReferenceLine& r : f.lines) r.label = plot::in_cjk_font(r.label);
  for (Label& l : f.labels) l.text = plot::in_cjk_font(l.text);
  if (f.heatmap) f.heatmap->colorbar_label = plot::in_cjk_font(f.heatmap->colorbar_label);
  return f;
}

}  // namespace

}  // namespace script

namespace script {

std::vector<std::string> write_data_and_settings(std::string& out, const Figure& figure, const Style& style,
                                                 bool one_font) {
  const bool cjk_one_font = style.lang == "zh" && one_font;
  const Figure f = cjk_one_font ? in_cjk_font(figure) : figure;
  out += "reset\nset encoding utf8\n\n";
  const std::vector<std::string> plots = write_data(out, f);  // the data
  out += "\n";                                                // then the settings
  write_texts_and_key(out, f, style);
  write_axes(out, f, cjk_one_font);
  write_annotations(out, f);
  return plots;
}

}  // namespace script

std::string gnuplot_script(const Figure& f, const std::vector<Output>& outputs, const Style& style) {
  validate(f, outputs, style);
  std::string out;
  out += "# Figure written by rope. Run it with: gnuplot FILE\n";
  out += "# Every text is single-quoted and 'noenhanced', so _ ^ { } @ & are printed as typed.\n";
  // libgd draws each text in one font: where a GIF or a sixel image is among the outputs, every output gets the
  // texts that font can draw.
  const bool one_font = std::any_of(outputs.begin(), outputs.end(), [](const Output& o) {
    return o.format == Format::Gif || o.format == Format::Sixel;
  });
  const std::vector<std::string> plots = script::write_data_and_settings(out, f, style, one_font);
  script::write_outputs(out, f, plots, outputs, style);
  return out;
}

}  // namespace rope::plot
