// identify_run.hpp one_turn_reading: a K cache whose keys all turned by the same angles (one δ for the whole cache,
// rope check's shift-map-one-delta) where the positions given (a shift map's new − old per key) differ: δ and the
// ladder's base measured from the one angle every pair turns by.
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "rope/analysis/identify/identify.hpp"
#include "rope/analysis/identify/identify_run.hpp"
#include "rope/core/constants.hpp"

namespace rope {
namespace {

using Complex = std::complex<double>;

}  // namespace

std::optional<IdentifyRun::OneTurn> one_turn_reading(const DumpVectors& before, const DumpVectors& after,
                                                     const std::vector<double>& given, Identification& id) {
  const int n = static_cast<int>(id.pairs.size());
  if (id.layout == PairLayout::None || n < kOneTurnMinPairs || !id.group_pairs.empty() ||
      static_cast<long>(given.size()) != before.seq)
    return std::nullopt;
  const auto [lo, hi] = std::minmax_element(given.begin(), given.end());
  if (*lo == *hi) return std::nullopt;  // one position given: an offset, which the identification reads
  Identification all = id;
  all.left_out.clear();
  const std::vector<std::vector<Complex>> u = detail::pair_phasors(before, after, all);
  // Every pair's angle the same at every index: the phasors' resultant within kOneTurnCoherence of their summed
  // lengths (1 − cos of the angles' spread, weighted by length).
  std::vector<double> phi(static_cast<std::size_t>(n)), spread(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    Complex sum = 0;
    double length = 0;
    for (const Complex& z : u[static_cast<std::size_t>(j)]) sum += z, length += std::abs(z);
    if (!(length > 0) || 1 - std::abs(sum) / length > kOneTurnCoherence) return std::nullopt;
    phi[static_cast<std::size_t>(j)] = std::arg(sum);
    double squares = 0;
    for (const Complex& z : u[static_cast<std::size_t>(j)]) {
      const double a = std::arg(z * std::conj(sum));
      squares += std::abs(z) * a * a;
    }
    spread[static_cast<std::size_t>(j)] = std::sqrt(squares / length);
  }
  // Unwrapped from the slowest pair, which turns by less than π (|δ|·θ_min < π): each faster pair's angle taken on the
  // branch nearest the line ln|Φ_j| = α + β·j through the pairs unwrapped so far (weights Φ_j², the angles' absolute
  // error alike), the two slowest taken as they are.
  std::vector<double> unwrapped(static_cast<std::size_t>(n));
  const double sign = phi[static_cast<std::size_t>(n - 1)] < 0 ? -1.0 : 1.0;
  std::vector<double> js, logs, weights;
  for (int j = n - 1; j >= 0; --j) {
    double a = phi[static_cast<std::size_t>(j)];
    if (js.size() >= 2) {
      const auto [alpha, beta] = detail::line_fit(js, logs, weights);
      const double predicted = sign * std::exp(alpha + beta * j);
      a += kTwoPi * std::round((predicted - a) / kTwoPi);
    }
    if (!(sign * a > 0)) return std::nullopt;
    unwrapped[static_cast<std::size_t>(j)] = a;
    js.push_back(j), logs.push_back(std::log(sign * a)), weights.push_back(a * a);
  }
  const auto [alpha, beta] = detail::line_fit(js, logs, weights);
  const double dim = id.family_dim > 0 ? id.family_dim : 2.0 * n;
  const double base = std::exp(-beta * dim / 2);
  // δ: pair 0's turn (θ_0 = 1 on every ladder through 1), the nearest integer where within kOneTurnMisfit of it.
  const double turn0 = unwrapped[0];
  const double delta = std::abs(turn0 - std::round(turn0)) <= kOneTurnMisfit ? std::round(turn0) : turn0;
  double misfit = 0;
  for (int j = 0; j < n; ++j) {
    const double fit = delta * std::pow(base, -2.0 * j / dim);
    misfit = std::max(misfit, std::abs(unwrapped[static_cast<std::size_t>(j)] - fit));
  }
  if (!(misfit <= kOneTurnMisfit) || !(base > 1)) return std::nullopt;
  // The identification at the positions so measured: every key at δ, θ_j = Φ_j / δ.
  Identification found = id;
  found.theta.resize(n), found.theta_sigma.resize(n), found.angle_residual.resize(n);
  Eigen::VectorXd sigma_ln(n);
  const double keys = static_cast<double>(before.seq);
  for (int j = 0; j < n; ++j) {
    const auto i = static_cast<std::size_t>(j);
    found.theta[j] = unwrapped[i] / delta;
    found.angle_residual[j] = spread[i];
    found.theta_sigma[j] = spread[i] / std::abs(delta) / std::sqrt(keys);
    sigma_ln[j] = found.theta_sigma[j] / std::abs(found.theta[j]);
  }
  found.notes.clear();
  found.fits = detail::fit_families(found.theta, sigma_ln, found.notes);
  found.fit = found.fits.front();
  found.position_offset = 0;
  found.jumps.clear();
  found.held_from = -1;
  found.held_position = 0;
  found.order_offset.reset();
  found.group_offsets.clear();
  found.undetermined.clear();
  found.reversed = false;
  found.offset_beyond_span = false;
  found.fast_math_bias.reset();
  found.fast_math_toward_zero = false;
  found.dump_positions.assign(given.size(), delta);
  id = std::move(found);
  return IdentifyRun::OneTurn{delta, base, misfit};
}

}  // namespace rope
