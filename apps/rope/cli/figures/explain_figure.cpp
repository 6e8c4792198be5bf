#include "rope/cli/figures/explain_figure.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <fmt/format.h>
#include <tuple>

#include "rope/report/printing.hpp"
#include "rope/core/constants.hpp"
#include "rope/io/csv.hpp"

namespace rope::cli {

namespace {

using Complex = std::complex<double>;

// ---------------------------------------------------------------------------------------------
// The figure: q, k, R_M q = R(Mθ)q and R_N k as arrows from the origin, the arcs of the angles Mθ and Nθ,
// and the angle between the rotated vectors, which decides the score.

Eigen::Vector2d unit(double angle) { return {std::cos(angle), std::sin(angle)}; }

plot::Series segment(const Eigen::Vector2d& to, int color, bool dashed) {
  plot::Series s;
  s.x = Eigen::Vector2d(0.0, to[0]);
  s.y = Eigen::Vector2d(0.0, to[1]);
  s.color = color;
  s.dashed = dashed;
  s.line_width = dashed ? 2.5 : 3.5;
  return s;
}

/// An arc of radius r from angle `from` turning by `sweep` (drawn modulo a full turn).
plot::Series arc(double r, double from, double sweep, int color) {
  const double drawn = std::fmod(sweep, kTwoPi);
  const int n = 2 + static_cast<int>(std::ceil(std::abs(drawn) / kTwoPi * 180.0));
  plot::Series s;
  s.x.resize(n);
  s.y.resize(n);
  for (int i = 0; i < n; ++i) {
    const double a = from + drawn * i / (n - 1);
    s.x[i] = r * std::cos(a);
    s.y[i] = r * std::sin(a);
  }
  s.color = color;
  s.line_width = 2.0;
  return s;
}

}  // namespace

plot::Series arrowhead(const Eigen::Vector2d& tip, double size, int color) {
  const double back = std::atan2(-tip[1], -tip[0]);
  constexpr double kSpread = 25.0 * kTwoPi / 360.0;
  const Eigen::Vector2d left = tip + size * unit(back + kSpread);
  const Eigen::Vector2d right = tip + size * unit(back - kSpread);
  plot::Series s;
  s.x = Eigen::Vector3d(left[0], tip[0], right[0]);
  s.y = Eigen::Vector3d(left[1], tip[1], right[1]);
  s.color = color;
  s.line_width = 3.5;
  return s;
}

namespace {

plot::Label text_at(const Eigen::Vector2d& at, const std::string& text) {
  plot::Label l;
  l.x = at[0];
  l.y = at[1];
  l.text = text;
  l.anchor = plot::Label::Anchor::Center;
  return l;
}

}  // namespace

plot::Figure figure_of(const explain::Walkthrough& w, const FigureOptions& f) {
  const explain::Setup& s = w.setup;
  const explain::Step5& s5 = w.step5;
  // Equal ranges on a square figure with no legend: the plot area is close to square, so angles look
  // right. Every vector ends within `radius`, its name within about 0.8·lim: the bands near the top and
  // bottom edges are free for two lines of text.
  const double radius = std::max(s.q.norm(), s.k.norm());
  const double lim = 1.5 * radius;
  plot::Figure fig;
  fig.title =
      f.tr("RoPE in 2-D: q at M = {0}, k at N = {1}, θ = {2}", format_number(s.m), format_number(s.n), fx(s.theta));
  plane_axes(fig, f, lim);

  const double m_angle = s.m * s.theta;
  const double n_angle = s.n * s.theta;
  const double arg_q = w.step1.q.argument;
  const double arg_k = w.step1.k.argument;
  const double arg_q_rotated = std::arg(Complex(s5.q_rotated[0], s5.q_rotated[1]));
  fig.series.push_back(segment(s.q, 0, true));
  fig.series.push_back(segment(s5.q_rotated, 0, false));
  fig.series.push_back(segment(s.k, 1, true));
  fig.series.push_back(segment(s5.k_rotated, 1, false));
  const double r_m = 0.2 * radius;
  const double r_n = 0.45 * radius;
  const double r_between = 0.7 * radius;
  fig.series.push_back(arc(r_m, arg_q, m_angle, 0));
  fig.series.push_back(arc(r_n, arg_k, n_angle, 1));
  fig.series.push_back(arc(r_between, arg_q_rotated, s5.angle_between, 2));

  // Arrowheads: an open V in the vector's colour at each tip, then the names just beyond the tips and
  // the angles beside their arcs.
  const std::tuple<Eigen::Vector2d, std::string, int> tips[] = {
      {s.q, "q", 0}, {s5.q_rotated, "R_M q", 0}, {s.k, "k", 1}, {s5.k_rotated, "R_N k", 1}};
  for (const auto& [tip, name, color] : tips) fig.series.push_back(arrowhead(tip, 0.05 * lim, color));
  for (const auto& [tip, name, color] : tips) {
    fig.labels.push_back(text_at(tip + 0.12 * radius * tip.normalized(), name));
  }
  // Beside its arc, just outside, far enough that the text's box clears the arc (on the default square
  // figure a character is about 0.03·lim wide and 0.037·lim high), at the point of the arc farthest in
  // angle from the four vectors, among a few.
  const double directions[] = {arg_q, arg_k, arg_q_rotated, std::arg(Complex(s5.k_rotated[0], s5.k_rotated[1]))};
  // A label outside an inner arc must not fall inside the sector of an outer arc (the angle between the
  // rotated vectors, drawn farther out): there it would sit between two arcs and read as the outer one's.
  const double between_from = arg_q_rotated;
  const double between_sweep = std::fmod(s5.angle_between, kTwoPi);
  const auto in_between_sector = [&](double angle) {
    return std::abs(std::remainder(angle - between_from - between_sweep / 2, kTwoPi)) <= std::abs(between_sweep) / 2;
  };
  const auto arc_label = [&](double r, double from, double sweep, const std::string& text, bool inner) {
    const double drawn = std::fmod(sweep, kTwoPi);
    double at = from + drawn / 2;
    double best = -INFINITY;
    for (const double t : {0.5, 0.35, 0.65, 0.2, 0.8}) {
      double nearest = kTwoPi;
      for (const double d : directions)
        nearest = std::min(nearest, std::abs(std::remainder(from + t * drawn - d, kTwoPi)));
      if (inner && in_between_sector(from + t * drawn)) nearest -= kTwoPi;  // only if nothing else is left
      if (nearest > best + 1e-9) best = nearest, at = from + t * drawn;
    }
    const double half_width = 0.5 * 0.03 * lim * static_cast<double>(columns(text));
    const double half_height = 0.5 * 0.037 * lim;
    const double clear = std::max(std::abs(std::cos(at)) * half_width, std::abs(std::sin(at)) * half_height);
    fig.labels.push_back(text_at((r + 0.02 * lim + clear) * unit(at), text));
  };
  // An angle of a turn or more is drawn modulo 2π; the label keeps the whole angle.
  arc_label(r_m, arg_q, m_angle, fmt::format("Mθ = {}", fx(m_angle)), true);
  arc_label(r_n, arg_k, n_angle, fmt::format("Nθ = {}", fx(n_angle)), true);
  arc_label(r_between, arg_q_rotated, s5.angle_between, fmt::format("{} rad", fx(s5.angle_between)), false);
  fig.labels.push_back(text_at({0.0, 0.9 * lim}, f.tr("dashed: q, k;  solid: rotated by Mθ, Nθ")));
  fig.labels.push_back(
      text_at({0.0, -0.9 * lim}, f.tr("⟨R_M q, R_N k⟩ = |q|·|k|·cos({0}) = {1}", fx(s5.angle_between), fx(s5.score))));
  return fig;
}

void plane_axes(plot::Figure& fig, const FigureOptions& f, double lim) {
  fig.xlabel = f.tr("first component (real part)");
  fig.ylabel = f.tr("second component (imaginary part)");
  fig.xrange = {-lim, lim};
  fig.yrange = {-lim, lim};
  for (const auto axis : {plot::ReferenceLine::Axis::X, plot::ReferenceLine::Axis::Y}) {
    plot::ReferenceLine r;
    r.axis = axis;
    fig.lines.push_back(r);
  }
}

}  // namespace rope::cli
