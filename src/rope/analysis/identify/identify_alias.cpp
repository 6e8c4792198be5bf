// identify.hpp detail::resolve_cluster_aliases: θ_j of positions in two clusters far apart (0 … 15 and 130816 …
// 131071), where the near cluster turns a pair too little to say which of the frequencies θ_j + k·2π/m_c (m_c the far
// cluster's centre) its far phases belong to, chosen by how the far cluster's phases advance across it.
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "rope/analysis/identify/identify.hpp"
#include "rope/core/constants.hpp"

namespace rope {

void detail::resolve_cluster_aliases(const std::vector<std::vector<std::complex<double>>>& u,
                                     const std::vector<double>& p, Identification& id) {
  const int n = static_cast<int>(id.theta.size());
  // The largest gap between consecutive |m| (m ≠ 0), taken where the positions on either side of it span a
  // kAliasGapRatio-th of it or less and hold at least kAliasClusterPositions distinct values each: two clusters.
  std::vector<double> m_abs;
  for (const double m : p) {
    if (m != 0) m_abs.push_back(std::abs(m));
  }
  std::sort(m_abs.begin(), m_abs.end());
  double gap = 0;
  std::size_t after = 0;
  for (std::size_t k = 1; k < m_abs.size(); ++k) {
    if (m_abs[k] - m_abs[k - 1] > gap) gap = m_abs[k] - m_abs[k - 1], after = k;
  }
  if (after < 1 || !(gap > kAliasGapRatio * (m_abs[after - 1] - m_abs.front() + 1)) ||
      !(gap > kAliasGapRatio * (m_abs.back() - m_abs[after] + 1)))
    return;
  const auto distinct = [&](std::size_t from, std::size_t to) {
    long count = 1;
    for (std::size_t k = from + 1; k < to; ++k) count += m_abs[k] != m_abs[k - 1];
    return count;
  };
  if (distinct(after, m_abs.size()) < kAliasClusterPositions || distinct(0, after) < kAliasClusterPositions) return;
  // The frequencies the near cluster cannot tell apart: θ_j + k·step, which turn the far cluster's centre m_c alike.
  double centre = 0;
  for (std::size_t k = after; k < m_abs.size(); ++k) centre += m_abs[k];
  centre /= static_cast<double>(m_abs.size() - after);
  const double step = kTwoPi / centre;
  for (int j = 0; j < n; ++j) {
    const std::vector<std::complex<double>>& z = u[static_cast<std::size_t>(j)];
    // cost(θ): Σ |z|·(1 − cos(arg z − θ·m)) / Σ |z| over the indices at m ≠ 0
    const auto cost = [&](double theta) {
      double sum = 0, mass = 0;
      for (std::size_t s = 0; s < p.size(); ++s) {
        if (p[s] == 0 || z[s] == 0.0) continue;
        const double a = std::abs(z[s]);
        sum += a * (1 - std::cos(std::arg(z[s]) - theta * p[s])), mass += a;
      }
      return mass > 0 ? sum / mass : INFINITY;
    };
    std::vector<std::pair<double, int>> costs;
    for (int k = -kAliasCandidates; k <= kAliasCandidates; ++k) costs.emplace_back(cost(id.theta[j] + k * step), k);
    std::sort(costs.begin(), costs.end());
    const auto [best, k] = costs[0];
    if (!(costs[1].first >= kAliasMargin * best)) {  // no one frequency of the comb fits best: θ_j not determined
      if (std::find(id.undetermined.begin(), id.undetermined.end(), j) == id.undetermined.end())
        id.undetermined.push_back(j);
      id.theta_sigma[j] = std::max(id.theta_sigma[j], step / 2);
      continue;
    }
    if (k == 0) continue;
    // Least squares through the origin at the phases unwrapped around the chosen frequency.
    const double seed = id.theta[j] + k * step;
    double smp = 0, smm = 0;
    std::vector<std::pair<double, double>> points;
    for (std::size_t s = 0; s < p.size(); ++s) {
      if (p[s] == 0 || z[s] == 0.0) continue;
      double phi = std::arg(z[s]);
      phi += kTwoPi * std::round((seed * p[s] - phi) / kTwoPi);
      smp += p[s] * phi, smm += p[s] * p[s];
      points.emplace_back(p[s], phi);
    }
    const double theta = smp / smm;
    double rss = 0;
    for (const auto& [m, phi] : points) rss += (phi - theta * m) * (phi - theta * m);
    id.theta[j] = theta;
    id.angle_residual[j] = std::sqrt(rss / static_cast<double>(points.size()));
    id.theta_sigma[j] = id.angle_residual[j] / std::sqrt(smm);
  }
  std::sort(id.undetermined.begin(), id.undetermined.end());
}

}  // namespace rope
