// The printers of rope sections (sections_report.hpp): the text, the CSV and the figures.
#include "rope/report/sections_report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/io/csv.hpp"
#include "rope/report/axes_grid_report.hpp"
#include "rope/report/model_text.hpp"
#include "rope/report/printing.hpp"
#include "rope/report/rope_text.hpp"
#include "rope/report/text.hpp"

namespace rope {

namespace {

/// The gap between two frames of the latent grid, in cells; the dials per row of a grid frame; a dial's points.
constexpr double kGridGap = 0.6;
constexpr int kDialsPerRow = 16;
constexpr int kDialPoints = 36;

/// "as chunked at every pair", or "as interleaved, except pairs 61, 62: e" (the pairs where llama.cpp's map
/// leaves HF's, with the axes llama.cpp gives them).
std::string sections_ggml_difference(const AxisMap& ggml, const AxisMap& hf, const std::string& name,
                                     const std::string& hf_name, const Text& t) {
  std::vector<int> pairs;
  std::string axes;
  for (std::size_t j = 0; j < ggml.pair_axis.size(); ++j) {
    if (ggml.pair_axis[j] == hf.pair_axis[j]) continue;
    pairs.push_back(static_cast<int>(j));
    const std::string letter(axis_letter(ggml.pair_axis[j]));
    if (axes.find(letter) == std::string::npos) axes += (axes.empty() ? "" : ", ") + letter;
  }
  if (pairs.empty()) return name + t.tr("every pair as {0}", hf_name);
  return name + t.tr("as {0}, except pairs {1}, which turn with {2} (A4)", hf_name, pair_list(pairs), axes);
}

std::string sections_from(const SectionsRun& run, const Text& t) {
  switch (run.from) {
    case SectionsFrom::QwenDefault:
      return t.tr("Qwen3-VL's default");
    case SectionsFrom::Typed:
      return option_name("sections");
    case SectionsFrom::Model:
      break;
  }
  return run.spec.name;
}

const char* sections_vision_letter(const VisionPairs& p, Eigen::Index j) {
  return p.axis[static_cast<std::size_t>(j)] == 0 ? "h" : "w";
}

std::string sections_list(const SectionsRun& run) { return fmt::format("{}", fmt::join(run.sections, ", ")); }

void print_vision_sections(std::ostream& out, const SectionsRun& run, const Text& t) {
  const RopeSpec& spec = run.spec;
  out << t.tr("2-D vision RoPE of {0}: d = {1}, base = {2}\n\n", model_name(spec, t.lang()), spec.rotary_dim,
              format_number(spec.config.base));
  print_axis_summary(out, *spec.axes, spec.params.inv_freq, t.lang());
  out << t.tr("\nthe same d and base in the six implementations (docs/multi-axis.md §6):\n");
  const std::size_t layout_width = (t.lang() == Lang::Zh) ? 24 : 16;
  out << "  " << pad(t.tr("kind"), 11) << pad(t.tr("eq."), 6) << pad(t.tr("layout"), layout_width)
      << pad(t.tr("from"), 7) << pad(t.tr("λ of h (patches)"), 22) << t.tr("λ of w (patches)") << '\n';
  for (const VisionPairs& p : run.towers) {
    const AxisMap map = vision_axis_map(p);
    const std::vector<AxisRange> r = axis_ranges(p.theta, map);
    const auto range = [](const AxisRange& a) { return fmt::format("{:.6g} … {:.6g}", a.shortest, a.longest); };
    const std::string layout = p.per_block ? t.tr("half, per axis") : layout_name(p.layout, t);
    out << "  " << pad(to_string(p.kind), 11) << pad(map.vision_equation, 6) << pad(layout, layout_width)
        << pad(format_number(p.offset), 7) << pad(range(r[0]), 20) << "  " << range(r[1])
        << (p.kind == run.chosen ? "  ←" : "") << '\n';
  }
  out << t.tr(
      "\neach axis gets its own ladder base^(−4k/d), the same wavelengths for rows and columns, except Pixtral (V3):\n"
      "the row takes the even and the column the odd frequencies of the head's ladder base^(−2i/d);\n"
      "Llama 4 (V4) gives the column the first pairs and counts patches from 1;\n"
      "Gemma 4 (V6) gives the column the first block of channels and the row the second, rotate_half inside each\n");
}

std::string grid_map_name(const SectionsRun& run, const Text& t);

/// --grid's paragraph: the grid, the map it reads and which pairs turn two patches of one row apart.
void print_sections_grid(std::ostream& out, const SectionsRun& run, const Text& t) {
  if (!run.grid) return;
  const AxesGridRun& g = *run.grid;
  out << t.tr("\nlatent grid {0}×{1}×{2} (frames × rows × columns), {3}:\n", g.frames, g.rows, g.columns,
              grid_map_name(run, t));
  out << "  " << axes_grid_sentence(g).in(t.lang()) << '\n';
  if (!g.differing.empty()) out << t.tr("  the pairs that turn them apart: {0}\n", pair_list(g.differing));
  // The next row's and frame's patch too, where the grid has them (the next column's is the sentence above).
  for (const AxesGridNeighbour& n : g.neighbours) {
    if (n.axis == 2) continue;
    out << "  " << axes_grid_neighbour_sentence(g, n).in(t.lang()) << '\n';
    if (!n.differing.empty()) out << t.tr("  the pairs that turn them apart: {0}\n", pair_list(n.differing));
  }
}

/// A diffusion transformer's latent grid (grid_rope.hpp): its own map alone, each axis its own ladder.
void print_grid_model_sections(std::ostream& out, const SectionsRun& run, const Text& t) {
  const std::string from = sections_from(run, t);
  const int pairs = run.pairs();
  const AxisMap& map = run.maps.front().map;
  out << t.tr("latent-grid RoPE of {0} over {1} pairs, d = {2}, base = {3}: pairs per axis [{4}] ({5})\n\n", from,
              pairs, 2 * pairs, format_number(run.spec.config.base), sections_list(run), fmt::join(map.names, ", "));
  print_axis_summary(out, map, run.theta, t.lang());
  if (run.model_map)
    out << t.tr("\nthe two channels of a pair in {0}: {1}\n", from, layout_description(run.spec).in(t.lang()));
  print_sections_grid(out, run, t);
}

void print_mrope_sections(std::ostream& out, const SectionsRun& run, const Text& t) {
  if (run.maps.size() == 1 && run.maps.front().map.grid()) return print_grid_model_sections(out, run, t);
  const std::string from = sections_from(run, t);
  const int pairs = run.pairs();
  out << t.tr(
      "M-RoPE sections [{0}] ({1}) over {2} pairs, d = {3}, base = {4}:\n{5}\n\n", sections_list(run), from, pairs,
      2 * pairs, format_number(run.spec.config.base),
      run.ernie
          ? t.tr("ERNIE-4.5-VL's map of its sections (h, w, t) = [{0}] below Qwen's two maps of as many pairs per axis",
                 fmt::join(run.ernie->source.sections, ", "))
      : run.bailing ? t.tr("Bailing's map of its sections (t, h, w) below Qwen's two maps of the same sections")
      : run.pangu
          ? t.tr("openPangu-VL's greedy map of its sections (t, h, w) below Qwen's two maps of the same sections")
      : !run.four ? t.tr("the same sections, chunked and interleaved")
      : run.hf    ? t.tr("llama.cpp's four slots t, h, w, e next to HF's maps of the first three")
                  : t.tr("llama.cpp's four slots t, h, w, e (HF's maps need three sections adding up to d/2)"));
  for (const SectionsMap& r : run.maps) {
    print_axis_summary(out, r.map, run.theta, t.lang());
    out << '\n';
  }
  for (const SectionsMap& r : run.maps)
    out << pad(r.pattern.in(t.lang()), (t.lang() == Lang::Zh) ? 8 : 13) << axis_pattern(r.map) << '\n';
  // The map says which axis a pair turns with; the layout, which two channels the pair is (GLM-4.1V interleaved,
  // GLM-4.5V half, with the same sections).
  if (run.model_map)
    out << t.tr("\nthe two channels of a pair in {0}: {1}\n", from, layout_description(run.spec).in(t.lang()));
  if (run.hf && !run.ernie && !run.bailing) {
    // What llama.cpp does with the same sections: where its map leaves HF's (the "e" slot of (A4)).
    out << t.tr("\nllama.cpp, with the sections as a converted GGUF has them ([{0}]):\n",
                fmt::join(run.ggml_sections, ", "));
    out << "  " << sections_ggml_difference(run.mrope, run.maps[0].map, "MROPE (qwen2vl):  ", t.tr("chunked"), t)
        << '\n';
    out << "  " << sections_ggml_difference(run.imrope, run.maps[1].map, "IMROPE (qwen3vl): ", t.tr("interleaved"), t)
        << '\n';
  }
  out << t.tr(
      "\nthe frequencies fall with the pair index: chunks give each axis one band of wavelengths,\n"
      "interleaving gives every axis pairs from the whole range (docs/multi-axis.md)\n");
  if (run.ernie) {
    out << t.tr(
        "ERNIE-4.5-VL gives height and width the fastest pairs alternately and the time the slowest band:\n"
        "the opposite of Qwen2-VL's chunks, which give the time the fastest (docs/multi-axis.md (A8))\n");
  }
  if (run.pangu && run.pangu_differs >= 0) {
    out << t.tr(
        "openPangu-VL's greedy order is Qwen3-VL's interleaved order on pairs 0 … {0} and parts from it at pair {1}\n"
        "(docs/multi-axis.md (A10))\n",
        run.pangu_differs - 1, run.pangu_differs);
  }
  if (run.bailing) {
    out << t.tr(
        "Bailing gives height and width the fastest pairs alternately and the time the slowest band, as ERNIE-4.5-VL\n"
        "does with its sections written t, h, w (docs/multi-axis.md (A9))\n");
  }
  print_sections_grid(out, run, t);
}

plot::Figure mrope_sections_figure(const SectionsRun& run, const Text& t) {
  const std::vector<SectionsMap>& rows = run.maps;
  const Eigen::VectorXd& theta = run.theta;
  plot::Figure fig;
  fig.title = t.tr("Which pair turns with which axis: sections [{0}], d = {1}", sections_list(run), 2 * theta.size());
  fig.xlabel = t.tr("wavelength λⱼ = 2π/θⱼ (positions): pair j = 0 at the left, the last pair at the right");
  fig.ylabel = "";
  fig.log_x = true;
  const int n = static_cast<int>(rows.size());
  // Room above the top row for the key: three axes fit beside two rows, the fourth (e) needs half a row more.
  fig.yrange = {{-0.8, n > 2 ? n + 0.4 : n - 0.1}};
  fig.ytics = false;  // the rows are labelled
  // The labels start at the shortest wavelength that can be drawn: a pair whose 2π/θ overflows (a factor
  // of 1e308) is not rotated and not drawn, as in rope wavelengths.
  double left = INFINITY;
  for (Eigen::Index j = 0; j < theta.size(); ++j) {
    if (const double lambda = kTwoPi / theta[j]; std::isfinite(lambda) && lambda > 0) left = std::min(left, lambda);
  }
  if (!std::isfinite(left)) {
    throw InvalidArgument(
        error_msg("no pair has a finite wavelength 2π/θ to draw (θ_0 = {0})", theta.size() > 0 ? theta[0] : 0.0));
  }
  bool in_key[kMaxAxes] = {};
  for (int r = 0; r < n; ++r) {
    const AxisMap& map = rows[static_cast<std::size_t>(r)].map;
    const double y = n - 1 - r;  // the first row at the top
    for (int a = 0; a < kMaxAxes; ++a) {
      std::vector<double> x;
      for (std::size_t j = 0; j < map.pair_axis.size(); ++j) {
        const double lambda = kTwoPi / theta[static_cast<Eigen::Index>(j)];
        if (map.pair_axis[j] == a && std::isfinite(lambda) && lambda > 0) x.push_back(lambda);  // else not drawn
      }
      if (x.empty()) continue;
      plot::Series s;
      if (!in_key[a]) s.label = axis_label(a, t.lang());
      in_key[a] = true;
      s.color = a;
      s.points = true;
      s.x = Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
      s.y = Eigen::VectorXd::Constant(s.x.size(), y);
      fig.series.push_back(s);
    }
    const std::string mark = run.marked && *run.marked == static_cast<std::size_t>(r) ? t.tr("  ← this model") : "";
    fig.labels.push_back({left, y + 0.35, rows[static_cast<std::size_t>(r)].label.in(t.lang()) + mark,
                          plot::Label::Anchor::Left, std::nullopt, std::nullopt});
  }
  fig.key = plot::Figure::Key::TopRight;
  return fig;
}

plot::Figure vision_sections_figure(const SectionsRun& run, const Text& t) {
  const std::vector<VisionPairs>& rows = run.towers;
  plot::Figure fig;
  const Eigen::Index pairs = rows.empty() ? 0 : rows.front().theta.size();
  fig.title = t.tr("Which pair turns with the row h or the column w of a patch: 2-D vision RoPE, d = {0}", 2 * pairs);
  fig.xlabel = t.tr("wavelength λⱼ = 2π/θⱼ (patches)");
  fig.ylabel = "";
  fig.log_x = true;
  const int n = static_cast<int>(rows.size());
  fig.yrange = {{-0.8, n - 0.1}};
  fig.ytics = false;
  double left = HUGE_VAL;
  for (const VisionPairs& p : rows) left = std::min(left, kTwoPi / p.theta.maxCoeff());
  for (int r = 0; r < n; ++r) {
    const VisionPairs& p = rows[static_cast<std::size_t>(r)];
    const double y = n - 1 - r;  // the first row at the top
    for (int a = 0; a < 2; ++a) {
      plot::Series s;
      if (r == 0) s.label = a == 0 ? t.tr("h (row)") : t.tr("w (column)");
      s.color = a + 1;  // the colours of h and w in rope sections' M-RoPE figure
      s.points = true;
      std::vector<double> x;
      for (Eigen::Index j = 0; j < p.theta.size(); ++j) {
        if (p.axis[static_cast<std::size_t>(j)] == a) x.push_back(kTwoPi / p.theta[j]);
      }
      s.x = Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
      // h a little above w: where both axes have the same wavelengths the two points stay visible
      s.y = Eigen::VectorXd::Constant(s.x.size(), a == 0 ? y + 0.12 : y - 0.12);
      fig.series.push_back(s);
    }
    const std::string eq = vision_axis_map(p).vision_equation;
    const std::string mark = p.kind == run.chosen ? t.tr("  ← this tower") : "";
    fig.labels.push_back({left, y + 0.42, fmt::format("{} {}{}", to_string(p.kind), eq, mark),
                          plot::Label::Anchor::Left, std::nullopt, std::nullopt});
  }
  fig.key = plot::Figure::Key::TopRight;
  return fig;
}

/// The latent grid of --grid: the frames side by side, rows × columns cells each, one unit a cell; `marked` cells
/// bordered in black and named by `names`.
void draw_grid_cells(plot::Figure& fig, const AxesGridRun& g, const std::vector<std::array<int, 3>>& marked,
                     const std::vector<std::string>& names, const Text& t) {
  for (int f = 0; f < g.frames; ++f) {
    const double left = f * (g.columns + kGridGap);
    fig.labels.push_back({left + g.columns / 2.0, g.rows + 0.45, t.tr("frame {0}", f), plot::Label::Anchor::Center,
                          std::nullopt, std::nullopt});
    for (int r = 0; r < g.rows; ++r) {
      for (int c = 0; c < g.columns; ++c) {
        const auto at = std::find(marked.begin(), marked.end(), std::array<int, 3>{f, r, c});
        plot::Rect cell{left + c + 0.04, g.rows - 1 - r + 0.04, left + c + 0.96, g.rows - r - 0.04};
        if (at != marked.end()) {
          cell.border = 6;  // black
          fig.labels.push_back({left + c + 0.5, g.rows - r - 0.5, names[static_cast<std::size_t>(at - marked.begin())],
                                plot::Label::Anchor::Center, std::nullopt, std::nullopt});
        }
        fig.rects.push_back(cell);
      }
    }
  }
}

double grid_width(const AxesGridRun& g) { return g.frames * g.columns + (g.frames - 1) * kGridGap; }

/// One series per axis: the points at (x[j], y[j]) of its pairs, coloured as in the ownership figure.
void add_axis_points(plot::Figure& fig, const AxesGridRun& g, const std::vector<double>& x,
                     const std::vector<double>& y, double size) {
  for (int a = 0; a < kMaxAxes; ++a) {
    std::vector<double> xs, ys;
    for (std::size_t j = 0; j < g.pair_axis.size(); ++j) {
      if (g.pair_axis[j] == a) xs.push_back(x[j]), ys.push_back(y[j]);
    }
    if (xs.empty()) continue;
    plot::Series s;
    s.color = a;
    s.points = true;
    s.line_width = size;
    s.x = Eigen::Map<const Eigen::VectorXd>(xs.data(), static_cast<Eigen::Index>(xs.size()));
    s.y = Eigen::Map<const Eigen::VectorXd>(ys.data(), static_cast<Eigen::Index>(ys.size()));
    fig.series.push_back(s);
  }
}

/// A key entry alone: one large point outside the figure's ranges, which gnuplot clips, so that the key shows a
/// sample as large as a cell while the cells themselves are rectangles.
void add_key_entry(plot::Figure& fig, const std::string& label, int color) {
  plot::Series s;
  s.label = label;
  s.color = color;
  s.points = true;
  s.line_width = 6.0;
  s.x = Eigen::VectorXd::Constant(1, -1e6);
  s.y = Eigen::VectorXd::Constant(1, -1e6);
  fig.series.push_back(s);
}

/// The key of the axes: "t (time): 24 pairs", … for the axes the map uses.
void add_axis_key(plot::Figure& fig, const AxesGridRun& g, const Text& t) {
  for (int a = 0; a < kMaxAxes; ++a) {
    const auto n = std::count(g.pair_axis.begin(), g.pair_axis.end(), a);
    if (n > 0) add_key_entry(fig, t.tr("{0}: {1} pairs", axis_label(a, t.lang()), n), a);
  }
}

/// "qwen3-vl-8b's own map (interleaved)" or "Qwen3-VL's interleave (A3) of the sections".
std::string grid_map_name(const SectionsRun& run, const Text& t) {
  const std::string& column = run.maps[run.grid_map].column;
  const std::string word = column == "chunked"       ? t.tr("chunked")
                           : column == "interleaved" ? t.tr("interleaved")
                                                     : column;
  // A diffusion transformer's grid: each axis its own block of pairs, its own ladder (grid_rope.hpp).
  if (run.marked && column == "grid")
    return t.tr("{0}'s axes on its latent grid, each its own block of pairs", sections_from(run, t));
  if (run.marked) return t.tr("{0}'s own map ({1})", sections_from(run, t), word);
  return t.tr("Qwen3-VL's interleave (A3) of the sections [{0}]", sections_list(run));
}

plot::Figure grid_figure(const SectionsRun& run, const Text& t) {
  const AxesGridRun& g = *run.grid;
  plot::Figure fig;
  fig.diagram = true;
  fig.title = t.tr("Which pairs turn p and p′ of one row apart: {0}", grid_map_name(run, t));
  fig.xlabel = axes_grid_sentence(g).in(t.lang());
  draw_grid_cells(fig, g, {g.first, g.second}, {"p", "p′"}, t);
  // The pairs below the grid, one cell each, coloured by the axis each reads; a black bar under each pair whose
  // angle differs between p and p′.
  const double width = grid_width(g);
  const auto pairs = static_cast<int>(g.pair_axis.size());
  const double step = width / pairs;
  std::vector<double> x, y, bar_x;
  for (int j = 0; j < pairs; ++j) {
    const int a = g.pair_axis[static_cast<std::size_t>(j)];
    fig.rects.push_back({j * step, -1.3, (j + 1) * step, -0.7, a, -1});
    x.push_back((j + 0.5) * step), y.push_back(-1.0);
  }
  for (const int j : g.differing) {
    fig.rects.push_back({j * step, -1.75, (j + 1) * step, -1.55, 6, -1});
    bar_x.push_back((j + 0.5) * step);
  }
  add_axis_points(fig, g, x, y, 0.5);
  add_axis_key(fig, g, t);
  if (!bar_x.empty()) add_key_entry(fig, t.tr("the angle differs between p and p′"), 6);
  fig.labels.push_back({0.0, -2.2, t.tr("pair {0}", 0), plot::Label::Anchor::Left, std::nullopt, std::nullopt});
  fig.labels.push_back(
      {width, -2.2, t.tr("pair {0}", pairs - 1), plot::Label::Anchor::Right, std::nullopt, std::nullopt});
  fig.xrange = {{-0.3, width + 0.3}};
  fig.yrange = {{-2.6, g.rows + 1.0}};
  fig.key = plot::Figure::Key::Below;
  return fig;
}

Value sections_axes_value(const std::vector<int>& pair_axis) {
  Value a = Value::array();
  for (const int axis : pair_axis) a.push_back(std::string(axis_letter(axis)));
  return a;
}

}  // namespace

Value sections_value(const SectionsRun& run) {
  Value v = Value::object();
  v["vision"] = run.vision;
  v["dim"] = run.vision ? run.spec.rotary_dim : 2 * run.pairs();
  v["base"] = run.spec.config.base;
  if (run.vision) {
    v["chosen"] = std::string(to_string(run.chosen));
    Value towers = Value::array();
    for (const VisionPairs& p : run.towers) {
      Value one = Value::object();
      one["kind"] = std::string(to_string(p.kind));
      Value theta = Value::array();
      for (Eigen::Index j = 0; j < p.theta.size(); ++j) theta.push_back(p.theta[j]);
      one["theta"] = theta;
      one["axes"] = sections_axes_value(vision_axis_map(p).pair_axis);
      towers.push_back(one);
    }
    v["towers"] = towers;
    return v;
  }
  v["sections"] = run.sections;
  v["from"] = std::string(run.from == SectionsFrom::Typed   ? "typed"
                          : run.from == SectionsFrom::Model ? "model"
                                                            : "default");
  Value maps = Value::array();
  for (const SectionsMap& m : run.maps) {
    Value one = Value::object();
    one["name"] = m.column;
    one["axes"] = sections_axes_value(m.map.pair_axis);
    maps.push_back(one);
  }
  v["maps"] = maps;
  if (run.grid) {
    v["grid"] = axes_grid_value(*run.grid);
    v["grid_map"] = run.maps[run.grid_map].column;
  }
  return v;
}

std::string sections_csv(const SectionsRun& run) {
  std::string csv;
  if (run.vision) {
    csv = "pair";
    for (const VisionPairs& p : run.towers) {
      std::string name = to_string(p.kind);
      for (char& c : name) c = c == '-' || c == '.' ? '_' : c;
      csv += fmt::format(",theta_{0},axis_{0}", name);
    }
    csv += '\n';
    for (Eigen::Index j = 0; j < run.towers.front().theta.size(); ++j) {
      csv += std::to_string(j);
      for (const VisionPairs& p : run.towers) {
        csv += fmt::format(",{},{}", format_number(p.theta[j]), sections_vision_letter(p, j));
      }
      csv += '\n';
    }
    return csv;
  }
  csv = "pair,theta,wavelength";
  for (const SectionsMap& r : run.maps) csv += "," + r.column;
  csv += '\n';
  for (int j = 0; j < run.pairs(); ++j) {
    csv += fmt::format("{},{},{}", j, format_number(run.theta[j]), format_number(kTwoPi / run.theta[j]));
    for (const SectionsMap& r : run.maps) {
      csv += fmt::format(",{}", axis_letter(r.map.pair_axis[static_cast<std::size_t>(j)]));
    }
    csv += '\n';
  }
  return csv;
}

void print_sections(std::ostream& out, const SectionsRun& run, const Text& t) {
  if (run.vision) {
    print_vision_sections(out, run, t);
  } else {
    print_mrope_sections(out, run, t);
  }
}

plot::Figure sections_figure(const SectionsRun& run, const Text& t) {
  if (run.grid) return grid_figure(run, t);
  return run.vision ? vision_sections_figure(run, t) : mrope_sections_figure(run, t);
}

std::vector<plot::Figure> sections_grid_frames(const SectionsRun& run, const Text& t) {
  if (!run.grid || run.grid->walk.empty())
    throw InvalidArgument(error_msg("the grid's walk is empty: nothing to animate"));
  const AxesGridRun& g = *run.grid;
  const double width = grid_width(g);
  const auto pairs = static_cast<int>(g.pair_axis.size());
  const int per_row = std::min(pairs, kDialsPerRow);
  const int dial_rows = (pairs + per_row - 1) / per_row;
  const double step = width / per_row;
  const double radius = 0.42 * step;
  std::vector<plot::Figure> frames;
  for (std::size_t k = 0; k < g.walk.size(); ++k) {
    const std::array<int, 3>& p = g.walk[k];
    plot::Figure fig;
    fig.diagram = true;
    fig.title = t.tr("p = ({0}, {1}, {2}): pair j turned by θⱼ·pₐ₍ⱼ₎, {3}", p[0], p[1], p[2], grid_map_name(run, t));
    draw_grid_cells(fig, g, {p}, {"p"}, t);
    std::vector<double> tip_x, tip_y;
    for (int j = 0; j < pairs; ++j) {
      const double cx = (j % per_row + 0.5) * step;
      const double cy = -0.8 - (j / per_row + 0.5) * step;
      plot::Series circle;  // the dial
      circle.color = 6;     // black, thin
      circle.line_width = 0.5;
      circle.x.resize(kDialPoints + 1), circle.y.resize(kDialPoints + 1);
      for (int i = 0; i <= kDialPoints; ++i) {
        const double u = kTwoPi * i / kDialPoints;
        circle.x[i] = cx + radius * std::cos(u), circle.y[i] = cy + radius * std::sin(u);
      }
      fig.series.push_back(circle);
      const double angle = g.walk_angles(static_cast<Eigen::Index>(k), j);
      plot::Series needle;
      needle.color = g.pair_axis[static_cast<std::size_t>(j)];
      needle.line_width = 3.5;
      needle.x = Eigen::Vector2d(cx, cx + radius * std::cos(angle));
      needle.y = Eigen::Vector2d(cy, cy + radius * std::sin(angle));
      fig.series.push_back(needle);
      tip_x.push_back(needle.x[1]), tip_y.push_back(needle.y[1]);
    }
    add_axis_points(fig, g, tip_x, tip_y, 1.2);  // a dot on each needle's tip
    add_axis_key(fig, g, t);
    fig.xrange = {{-0.3, width + 0.3}};
    fig.yrange = {{-0.8 - dial_rows * step - 0.3, g.rows + 1.0}};
    fig.key = plot::Figure::Key::Below;
    frames.push_back(std::move(fig));
  }
  return frames;
}

}  // namespace rope
