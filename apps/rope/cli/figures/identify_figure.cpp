#include "rope/cli/figures/identify_figure.hpp"

#include <cmath>
#include <fmt/format.h>

namespace rope::cli {

plot::Figure identify_figure(const FigureOptions& f, const Identification& id) {
  const Text t = f.tr();
  plot::Figure fig;
  fig.title = id.vision ? t.tr("Measured frequencies θ_j and the fitted 2-D vision RoPE {0} {1}", id.vision->kind,
                               id.vision->equation)
                        : t.tr("Measured frequencies θ_j and the fitted {0} family", to_string(id.fit.family));
  fig.xlabel = t.tr("pair j");
  fig.ylabel = t.tr("θ_j (rad per position)");
  fig.log_y = true;
  // A vision tower's second axis restarts its ladder at the top: the key goes where its slow pairs leave room.
  fig.key = id.vision ? plot::Figure::Key::TopRight : plot::Figure::Key::BottomLeft;
  const int n = static_cast<int>(id.theta.size());
  std::vector<double> xs, ys;
  for (int j = 0; j < n; ++j) {
    if (std::abs(id.theta[j]) > 0) xs.push_back(j), ys.push_back(std::abs(id.theta[j]));
  }
  Eigen::VectorXd pairs(n);
  for (int j = 0; j < n; ++j) pairs[j] = j;
  if (id.vision && id.vision->theta.size() == n) {  // each axis its own ladder: no single plain RoPE to compare with
    plot::Series fit;
    fit.label =
        t.tr("fitted {0}, base {1:.6g} (residual {2:.2g})", id.vision->kind, id.vision->base, id.vision->residual);
    fit.x = pairs;
    fit.y = id.vision->theta;
    fit.color = 1;
    fig.series.push_back(fit);
  } else if (id.fit.theta.size() == n && (id.fit.theta.array() > 0).all()) {
    plot::Series plain;
    FamilyFit def = id.fit;
    def.family = Family::Default;
    plain.label = t.tr("plain RoPE, base {0:.6g}", id.fit.base);
    plain.x = pairs;
    plain.y = family_theta(def, std::max(n, id.family_dim / 2)).head(n);
    plain.dashed = true;
    plain.color = 2;
    fig.series.push_back(plain);
    plot::Series fit;
    fit.label = t.tr("fitted {0} (residual {1:.2g})", to_string(id.fit.family), id.fit.residual);
    fit.x = pairs;
    fit.y = id.fit.theta;
    fit.color = 1;
    fig.series.push_back(fit);
  }
  plot::Series measured;
  measured.label = t.tr("measured");
  measured.x = Eigen::Map<const Eigen::VectorXd>(xs.data(), static_cast<Eigen::Index>(xs.size()));
  measured.y = Eigen::Map<const Eigen::VectorXd>(ys.data(), static_cast<Eigen::Index>(ys.size()));
  measured.points = true;
  measured.color = 0;
  fig.series.push_back(measured);
  return fig;
}

}  // namespace rope::cli
