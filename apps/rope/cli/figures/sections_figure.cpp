#include "rope/report/rope_text.hpp"
#include "rope/cli/figures/sections_figure.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"

namespace rope::cli {

plot::Figure mrope_sections_figure(const FigureOptions& f, const std::vector<SectionsRow>& rows,
                                   const Eigen::VectorXd& theta, const std::string& sections,
                                   std::optional<std::size_t> marked) {
  plot::Figure fig;
  fig.title = f.tr("Which pair turns with which axis: sections [{0}], d = {1}", sections, 2 * theta.size());
  fig.xlabel = f.tr("wavelength λⱼ = 2π/θⱼ (positions): pair j = 0 at the left, the last pair at the right");
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
      if (!in_key[a]) s.label = rope::axis_label(a, f.lang);
      in_key[a] = true;
      s.color = a;
      s.points = true;
      s.x = Eigen::Map<const Eigen::VectorXd>(x.data(), static_cast<Eigen::Index>(x.size()));
      s.y = Eigen::VectorXd::Constant(s.x.size(), y);
      fig.series.push_back(s);
    }
    const std::string mark = marked && *marked == static_cast<std::size_t>(r) ? f.tr("  ← this model") : "";
    fig.labels.push_back({left, y + 0.35, rows[static_cast<std::size_t>(r)].label + mark, plot::Label::Anchor::Left,
                          std::nullopt, std::nullopt});
  }
  fig.key = plot::Figure::Key::TopRight;
  return fig;
}

plot::Figure vision_sections_figure(const FigureOptions& f, const std::vector<VisionPairs>& rows, VisionRope chosen) {
  plot::Figure fig;
  const Eigen::Index pairs = rows.empty() ? 0 : rows.front().theta.size();
  fig.title = f.tr("Which pair turns with the row h or the column w of a patch: 2-D vision RoPE, d = {0}", 2 * pairs);
  fig.xlabel = f.tr("wavelength λⱼ = 2π/θⱼ (patches)");
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
      if (r == 0) s.label = a == 0 ? f.tr("h (row)") : f.tr("w (column)");
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
    const std::string mark = p.kind == chosen ? f.tr("  ← this tower") : "";
    fig.labels.push_back({left, y + 0.42, fmt::format("{} {}{}", to_string(p.kind), eq, mark),
                          plot::Label::Anchor::Left, std::nullopt, std::nullopt});
  }
  fig.key = plot::Figure::Key::TopRight;
  return fig;
}

}  // namespace rope::cli
