// Step 4 of identify.hpp with a position per axis (M-RoPE): each pair's θ_j measured at every axis's positions,
// the axis whose positions fit its phases, and the sections and map the pairs' axes make (docs/multi-axis.md
// (A2), (A3)).
#include <algorithm>
#include <cmath>
#include <complex>
#include <fmt/format.h>
#include <numeric>

#include "rope/analysis/identify/identify.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {
using Complex = std::complex<double>;
}  // namespace

detail::AxisFit detail::fit_axis(const std::vector<double>& m, const std::vector<Complex>& u) {
  std::vector<std::size_t> order(m.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return std::abs(m[a]) < std::abs(m[b]); });
  std::vector<double> pm;
  std::vector<Complex> pz;
  for (const std::size_t s : order) {
    if (pm.size() >= detail::kMaxPeriodogramPositions) break;
    if (std::abs(u[s]) > 0) pm.push_back(m[s]), pz.push_back(u[s]);
  }
  bool ambiguous = false;
  double theta = detail::periodogram_peak(pm, pz, ambiguous);
  const double peak = theta;
  double smp = 0, smm = 0;
  std::vector<std::pair<double, double>> points;
  double at_zero = 0;  // Σ φ² of the indices at position 0: the pair should not have turned there
  long zeros = 0;
  for (const std::size_t s : order) {
    if (u[s] == 0.0) continue;
    if (m[s] == 0) {
      at_zero += std::arg(u[s]) * std::arg(u[s]), ++zeros;
      continue;
    }
    double phi = std::arg(u[s]);
    phi += kTwoPi * std::round((theta * m[s] - phi) / kTwoPi);
    smp += m[s] * phi, smm += m[s] * m[s];
    theta = smp / smm;
    points.emplace_back(m[s], phi);
  }
  detail::AxisFit f;
  f.theta = theta, f.peak = peak;
  if (points.empty()) return f;  // this axis never moves: it cannot be the pair's
  double rss = 0;
  for (const auto& [x, phi] : points) rss += (phi - theta * x) * (phi - theta * x);
  f.residual = std::sqrt(rss / static_cast<double>(points.size()));
  f.sigma = f.residual / std::sqrt(smm);
  f.misfit = std::sqrt((rss + at_zero) / static_cast<double>(points.size() + static_cast<std::size_t>(zeros)));
  return f;
}

void detail::measure_axis_frequencies(const DumpVectors& before, const DumpVectors& after,
                                      const std::vector<AxisPosition>& positions, Identification& id) {
  const int n = static_cast<int>(id.pairs.size());
  const int components = positions.front().count;
  const std::vector<std::vector<Complex>> u = pair_phasors(before, after, id);
  std::vector<std::vector<double>> m(static_cast<std::size_t>(components), std::vector<double>(positions.size()));
  double span = 1;
  for (std::size_t s = 0; s < positions.size(); ++s) {
    for (int a = 0; a < components; ++a)
      m[static_cast<std::size_t>(a)][s] = positions[s][a], span = std::max(span, std::abs(positions[s][a]));
  }
  Identification::Axes axes;
  std::string unclear;
  long unclear_count = 0;
  std::vector<double> peak(static_cast<std::size_t>(n)), phase(static_cast<std::size_t>(n)),
      weight(static_cast<std::size_t>(n));
  // Each pair's θ on every axis, its axis the one that fits best; the phases at θ·m give an offset common to every
  // pair and axis (Llama 4's patches count from 1), and with one the pairs are fitted again at m + k.
  const auto fit_pairs = [&](double k) {
    axes.pair_axis.assign(static_cast<std::size_t>(n), -1);
    id.theta = Eigen::VectorXd::Zero(n), id.angle_residual = Eigen::VectorXd::Zero(n),
    id.theta_sigma = Eigen::VectorXd::Zero(n);
    unclear.clear(), unclear_count = 0;
    for (auto& axis : m) {
      for (double& x : axis) x += k;
    }
    for (int j = 0; j < n; ++j) {
      const std::vector<Complex>& z = u[static_cast<std::size_t>(j)];
      std::vector<detail::AxisFit> fits;
      for (int a = 0; a < components; ++a) fits.push_back(detail::fit_axis(m[static_cast<std::size_t>(a)], z));
      int best = 0;
      for (int a = 1; a < components; ++a) {
        if (fits[static_cast<std::size_t>(a)].misfit < fits[static_cast<std::size_t>(best)].misfit) best = a;
      }
      const detail::AxisFit& f = fits[static_cast<std::size_t>(best)];
      // Axes whose positions are equal wherever the pair moves fit alike: then the positions cannot tell them apart.
      bool clear = std::isfinite(f.misfit);
      for (int a = 0; a < components; ++a) {
        if (a != best && !(fits[static_cast<std::size_t>(a)].misfit > detail::kAxisMargin * f.misfit + 1e-9))
          clear = false;
      }
      if (clear) {
        axes.pair_axis[static_cast<std::size_t>(j)] = best;
      } else if (unclear_count++ < 12) {
        unclear += (unclear.empty() ? "" : ", ") + std::to_string(j);
      }
      id.theta[j] = f.theta;
      id.angle_residual[j] = std::isfinite(f.residual) ? f.residual : 0.0;
      id.theta_sigma[j] = f.sigma;
      Complex acc = 0;  // c_j = arg Σ u·e^(−iθ_j m) is θ_j·k for an offset k
      double mass = 0;
      const std::vector<double>& at = m[static_cast<std::size_t>(best)];
      for (std::size_t s = 0; s < at.size(); ++s)
        acc += z[s] * std::polar(1.0, -f.peak * at[s]), mass += std::abs(z[s]);
      peak[static_cast<std::size_t>(j)] = f.peak, phase[static_cast<std::size_t>(j)] = std::arg(acc);
      weight[static_cast<std::size_t>(j)] = mass > 0 ? std::abs(acc) / mass : 0.0;
    }
  };
  fit_pairs(0);
  const long offset =
      detail::best_integer_shift(phase, peak, weight, std::min(kMaxPositionOffset, static_cast<long>(span) + 1));
  if (offset != 0) {
    fit_pairs(static_cast<double>(offset));
    id.position_offset = static_cast<double>(offset);
    const std::string term = fmt::format("{} {}", offset > 0 ? "+" : "−", std::abs(offset));
    id.notes.push_back(
        msg("positions shifted by {0} on every axis: the dump turns each pair by θ·(p {1}), p its axis's "
            "component of the position",
            fmt::format("{:+d}", offset), term));
  }
  if (unclear_count > 12) unclear += ", …";
  id.dump_positions = m.front();
  // Each pair's axis, "?" where the positions cannot tell; a tower's (row, column) are h and w.
  std::string pattern;
  for (const int a : axes.pair_axis)
    pattern += a < 0 ? std::string("?") : std::string(axis_letter(components == 2 ? a + 1 : a));
  if (unclear_count == n) {
    id.notes.push_back(
        msg("the positions cannot tell which axis pairs {0} turn by: their components are equal (or one "
            "never moves) wherever the dump turns them; give tokens whose t, h and w differ (an image's "
            "or a video's)",
            unclear));
  } else if (unclear_count > 0) {  // the slowest pairs of a 16-bit dump turn too little across a small image
    id.notes.push_back(
        msg("the positions cannot tell which axis pairs {0} turn by (they turn too little between tokens "
            "whose t, h and w differ): the axes found are {1}; a larger image or video tells the rest",
            unclear, pattern));
  } else if (components == 2) {  // (row, column): match_vision compares the vision maps (identify_vision.cpp)
    axes.sections.assign(2, 0);
    for (const int a : axes.pair_axis) ++axes.sections[static_cast<std::size_t>(a)];
  } else {
    axes.sections.assign(static_cast<std::size_t>(components), 0);
    for (const int a : axes.pair_axis) ++axes.sections[static_cast<std::size_t>(a)];
    for (const SectionOrder order :
         {SectionOrder::Chunked, SectionOrder::Interleaved, SectionOrder::Bailing, SectionOrder::PanguGreedy}) {
      try {
        if (make_axis_map({axes.sections, order}, n).pair_axis == axes.pair_axis) {
          axes.order = order;
          break;
        }
      } catch (const InvalidArgument&) {  // sections this map cannot lay out: not this map
      }
    }
    if (!axes.order) {
      id.notes.push_back(msg(
          "the pairs' axes follow neither Hugging Face's chunked map (A2) nor the interleaved one (A3): {0}", pattern));
    }
  }
  id.axes = axes;
  id.reversed = n > 0 && (id.theta.array() < 0).all();
  if (id.reversed) {
    id.notes.push_back(
        msg("every pair turns clockwise (θ < 0): the rotation is reversed, by −m·θ (sin's sign flipped, or "
            "the rotation's transpose applied)"));
  }
}

}  // namespace rope
