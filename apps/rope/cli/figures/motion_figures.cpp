#include "rope/cli/figures/motion_figures.hpp"
#include "rope/cli/figures/explain_figure.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/analysis/teaching/motion.hpp"
#include "rope/report/printing.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/io/csv.hpp"

namespace rope::cli {

namespace {

plot::Series hand(double angle, double length, int color, double width) {
  plot::Series s;
  s.x = Eigen::Vector2d(0.0, length * std::cos(angle));
  s.y = Eigen::Vector2d(0.0, length * std::sin(angle));
  s.color = color;
  s.line_width = width;
  return s;
}

plot::Label text_at(double x, double y, const std::string& text,
                    plot::Label::Anchor anchor = plot::Label::Anchor::Center) {
  plot::Label l;
  l.x = x;
  l.y = y;
  l.text = text;
  l.anchor = anchor;
  return l;
}

/// Where a label goes: the first of `spots` at least `gap` from every point of `taken`, else the spot farthest
/// from them (a hand's number beside its tip, moved aside when q's, k's or another hand's label is there).
Eigen::Vector2d clear_spot(const std::vector<Eigen::Vector2d>& spots, const std::vector<Eigen::Vector2d>& taken,
                           double gap) {
  const auto nearest = [&taken](const Eigen::Vector2d& at) {
    double d = INFINITY;
    for (const Eigen::Vector2d& other : taken) d = std::min(d, (at - other).norm());
    return d;
  };
  Eigen::Vector2d best = spots.front();
  double best_distance = -1;
  for (const Eigen::Vector2d& at : spots) {
    const double d = nearest(at);
    if (d >= gap) return at;
    if (d > best_distance) best = at, best_distance = d;
  }
  return best;
}

}  // namespace

std::vector<plot::Figure> explain_frames(const explain::Setup& s, const FigureOptions& f) {
  const Eigen::VectorXd theta = frequencies(s.d, s.base);
  const int pairs = static_cast<int>(theta.size());
  const int hands = std::min(pairs, kMaxHands);
  Eigen::VectorXd shown(hands);  // θ_i of the pairs drawn as hands
  std::vector<int> index(static_cast<std::size_t>(hands));
  for (int j = 0; j < hands; ++j) {
    index[j] = hands == 1 ? 0 : static_cast<int>(std::lround(static_cast<double>(j) * (pairs - 1) / (hands - 1)));
    shown[j] = theta[index[j]];
  }
  const std::vector<motion::PlaneFrame> frames =
      motion::plane_frames(s.q, s.k, s.m, s.n, s.theta, shown, f.frame_count());
  const double radius = std::max(s.q.norm(), s.k.norm());
  const double lim = 1.5 * radius;
  std::vector<plot::Figure> out;
  for (const motion::PlaneFrame& p : frames) {
    plot::Figure fig;
    fig.title = f.tr("RoPE turning: c = {0}, q at M + c = {1}, k at N + c = {2}", format_number(p.shift),
                     format_number(s.m + p.shift), format_number(s.n + p.shift));
    plane_axes(fig, f, lim);
    // The clock hands first, thin, under q and k: pair i at (M + c)·θ_i, the fast ones longest.
    for (int j = 0; j < hands; ++j) {
      const double length = radius * (hands == 1 ? 0.9 : 0.9 - 0.5 * j / (hands - 1));
      fig.series.push_back(hand(p.hand_angles[j], length, 2 + j, 2.5));
    }
    for (const auto& [v, color] : {std::pair{&p.q_rotated, 0}, std::pair{&p.k_rotated, 1}}) {
      plot::Series s;  // from the origin to the rotated vector, as computed
      s.x = Eigen::Vector2d(0.0, (*v)[0]);
      s.y = Eigen::Vector2d(0.0, (*v)[1]);
      s.color = color;
      s.line_width = 4.0;
      fig.series.push_back(s);
      fig.series.push_back(arrowhead(*v, 0.05 * lim, color));  // as in explain's figure
    }
    // Labels: q and k beyond their tips; each hand's number beyond its tip, or beside it when a label placed
    // before is nearer than kLabelGap·radius (about two letter heights at any figure size).
    std::vector<Eigen::Vector2d> taken;
    for (const auto& [v, name] : {std::pair{&p.q_rotated, "q"}, std::pair{&p.k_rotated, "k"}}) {
      taken.push_back(*v + 0.15 * radius * v->normalized());
      fig.labels.push_back(text_at(taken.back()[0], taken.back()[1], name));
    }
    for (int j = 0; j < hands; ++j) {
      const double length = radius * (hands == 1 ? 0.9 : 0.9 - 0.5 * j / (hands - 1));
      const Eigen::Vector2d u(std::cos(p.hand_angles[j]), std::sin(p.hand_angles[j])), side(-u[1], u[0]);
      const Eigen::Vector2d tip = (length + 0.08 * radius) * u;
      taken.push_back(clear_spot({tip, tip + 0.14 * radius * side, tip - 0.14 * radius * side, tip + 0.16 * radius * u,
                                  0.6 * length * u + 0.1 * radius * side, 0.6 * length * u - 0.1 * radius * side},
                                 taken, kLabelGap * radius));
      fig.labels.push_back(text_at(taken.back()[0], taken.back()[1], fmt::format("{}", index[j])));
    }
    fig.labels.push_back(
        text_at(0.0, 0.9 * lim, f.tr("thick: q, k at θ = {0};  thin: pair i at θᵢ, d = {1}", fx(s.theta), s.d)));
    fig.labels.push_back(
        text_at(0.0, -0.9 * lim, f.tr("q→k: {0} rad, score {1}, in every frame", fx(p.angle_between), fx(p.score))));
    out.push_back(std::move(fig));
  }
  return out;
}

std::vector<plot::Figure> wavelength_frames(const FigureOptions& f, const Eigen::VectorXd& theta,
                                            const std::string& name, double m_max) {
  const Eigen::VectorXd lambda = wavelengths(theta);
  const Eigen::Index half = theta.size();
  double lo = INFINITY;
  double hi = m_max;
  for (Eigen::Index i = 0; i < half; ++i) {
    if (std::isfinite(lambda[i]) && lambda[i] > 0) lo = std::min(lo, lambda[i]), hi = std::max(hi, lambda[i]);
  }
  std::vector<plot::Figure> out;
  for (const long position : motion::geometric_integer_sweep(1, std::lround(m_max), f.frame_count())) {
    const auto m = static_cast<double>(position);
    const std::vector<bool> done = motion::completed_turn(theta, m);
    plot::Figure fig;
    fig.title = f.tr("RoPE wavelengths, {0}: position m = {1}", name, position);
    fig.xlabel = f.tr("pair index i");
    fig.ylabel = f.tr("wavelength λᵢ (positions per full turn)");
    fig.log_y = true;
    fig.key = plot::Figure::Key::Below;
    plot::Series turned{f.tr("turned at least once (λᵢ <= m)"), {}, {}, 1};
    plot::Series waiting{f.tr("not yet a full turn"), {}, {}, 5};
    std::vector<double> tx, ty, wx, wy;
    for (Eigen::Index i = 0; i < half; ++i) {
      if (!std::isfinite(lambda[i])) continue;
      (done[i] ? tx : wx).push_back(static_cast<double>(i));
      (done[i] ? ty : wy).push_back(lambda[i]);
    }
    for (auto [s, x, y] : {std::tuple{&turned, &tx, &ty}, std::tuple{&waiting, &wx, &wy}}) {
      s->x = Eigen::Map<const Eigen::VectorXd>(x->data(), static_cast<Eigen::Index>(x->size()));
      s->y = Eigen::Map<const Eigen::VectorXd>(y->data(), static_cast<Eigen::Index>(y->size()));
      s->points = true;
      // Both entries in every frame, so the legend does not jump: an empty set is one point left of the
      // shown pairs, outside the plot.
      if (s->x.size() == 0) s->x = Eigen::VectorXd::Constant(1, -10.0), s->y = Eigen::VectorXd::Ones(1);
      fig.series.push_back(*s);
    }
    fig.lines.push_back({plot::ReferenceLine::Axis::Y, m, fmt::format("m = {}", position), 6});
    fig.xrange = std::pair{-0.5, static_cast<double>(half) - 0.5};
    fig.yrange = std::pair{std::min(lo, 1.0) / 2, hi * 4};
    out.push_back(std::move(fig));
  }
  return out;
}

void as_shift_frames(std::vector<plot::Figure>& frames, const std::vector<long>& shifts, const FigureOptions& f,
                     std::optional<double> shared_top) {
  double top = shared_top.value_or(0.0);
  for (const plot::Figure& fig : frames) {
    if (!shared_top && fig.heatmap && fig.heatmap->z.size() > 0) {  // NaN: a masked cell
      top = std::max(top, fig.heatmap->z.array().isNaN().select(-INFINITY, fig.heatmap->z.array()).maxCoeff());
    }
  }
  for (std::size_t k = 0; k < frames.size(); ++k) {
    // In the axis label: the title is long already.
    frames[k].xlabel = f.tr("{0}   (every position + {1})", frames[k].xlabel, shifts[k]);
    if (frames[k].heatmap) frames[k].heatmap->zrange = std::pair{0.0, top > 0 ? top : 1.0};
  }
}

void share_y_range(std::vector<plot::Figure>& frames) {
  double lo = INFINITY;
  double hi = -INFINITY;
  for (const plot::Figure& fig : frames) {
    for (const plot::Series& s : fig.series) {
      for (Eigen::Index i = 0; i < s.y.size(); ++i) {
        if (std::isfinite(s.y[i]) && (!fig.log_y || s.y[i] > 0)) lo = std::min(lo, s.y[i]), hi = std::max(hi, s.y[i]);
      }
    }
    for (const plot::Band& b : fig.bands) {
      for (Eigen::Index i = 0; i < b.lower.size(); ++i) {
        if (std::isfinite(b.lower[i])) lo = std::min(lo, b.lower[i]);
        if (std::isfinite(b.upper[i])) hi = std::max(hi, b.upper[i]);
      }
    }
  }
  if (!(lo <= hi)) return;
  const bool log = !frames.empty() && frames.front().log_y;
  const std::pair<double, double> range =
      log ? std::pair{lo / 1.5, hi * 1.5}
          : std::pair{lo - 0.05 * (hi - lo + (hi == lo)), hi + 0.15 * (hi - lo + (hi == lo))};
  for (plot::Figure& fig : frames) fig.yrange = range;
}

}  // namespace rope::cli
