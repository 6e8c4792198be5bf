// Steps 1–4 of identify.hpp: rotated channels, attention factor, pairing, per-pair frequencies.
#include <algorithm>
#include <cmath>
#include <complex>
#include <fmt/format.h>
#include <numeric>

#include "rope/analysis/identify.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"

namespace rope {
namespace {

/// Vectors used to find the pairing (spread over the dump): enough to see every pair move.
constexpr long kPairingSample = 256;

PairLayout classify(const std::vector<std::pair<int, int>>& pairs, const std::vector<int>& rotated, int d, int& family_dim,
                    std::vector<Message>& notes) {
  const int r = static_cast<int>(rotated.size());
  family_dim = r;
  bool prefix = true;
  for (int i = 0; i < r; ++i) prefix = prefix && rotated[i] == i;
  bool interleaved = true, half = true, whole_half = true;
  for (std::size_t j = 0; j < pairs.size(); ++j) {
    const auto [a, b] = pairs[j];
    interleaved = interleaved && a == 2 * static_cast<int>(j) && b == a + 1;
    half = half && a == static_cast<int>(j) && b == a + r / 2;
    whole_half = whole_half && a == static_cast<int>(j) && b == a + d / 2;
  }
  if (prefix && interleaved) return PairLayout::Interleaved;
  if (prefix && half) return PairLayout::Half;
  if (whole_half) {
    family_dim = d;
    notes.push_back({msg("pairs (j, j + {0}) over the whole head: pairs {1} to {2} keep frequency 0 (proportional "
                                 "RoPE, or partial rotary in the half layout of the whole head)", d / 2, pairs.size(), d / 2 - 1)});
    return PairLayout::Half;
  }
  return PairLayout::Other;
}

}  // namespace

Identification identify_rope(const DumpVectors& before, const DumpVectors& after, const std::vector<double>& positions) {
  if (before.seq != after.seq || before.groups() != after.groups() || before.d != after.d) {
    throw InvalidArgument(error_msg("the dumps before and after differ in shape"));
  }
  if (static_cast<long>(positions.size()) != before.seq) {
    throw InvalidArgument(error_msg("{0} positions for a dump of {1} sequence positions", positions.size(), before.seq));
  }
  if (std::all_of(positions.begin(), positions.end(), [](double p) { return p == 0; })) {
    throw InvalidArgument(error_msg("every position is 0, where RoPE is the identity: nothing can be identified"));
  }
  Identification id;
  const int d = before.d;
  if (d > kMaxIdentifyDim) {
    throw InvalidArgument(error_msg("the head dimension d = {0} is above the {1} rope identify pairs up", d, kMaxIdentifyDim));
  }
  id.d = d;
  const long vectors = before.seq * before.groups();
  const double eps = kToleranceSafety * std::max(epsilon(after.dtype), epsilon(before.dtype));
  // 1. Rotated channels.
  std::vector<char> moved(static_cast<std::size_t>(d), 0);
  for (long v = 0; v < vectors; ++v) {
    const double* x = before.values.data() + v * d;
    const double* y = after.values.data() + v * d;
    for (int c = 0; c < d; ++c) {
      if (std::abs(y[c] - x[c]) > eps * std::max(std::abs(x[c]), std::abs(y[c]))) moved[c] = 1;
    }
  }
  for (int c = 0; c < d; ++c) {
    if (moved[c]) id.rotated.push_back(c);
  }
  id.rotary_dim = static_cast<int>(id.rotated.size());
  if (id.rotated.empty()) {
    id.notes.push_back({msg("no channel changes: the dump after equals the dump before")});
    return id;
  }
  // 2. Attention factor.
  double sx = 0, sy = 0;
  for (long v = 0; v < vectors; ++v) {
    for (const int c : id.rotated) {
      const double x = before.values[static_cast<std::size_t>(v * d + c)], y = after.values[static_cast<std::size_t>(v * d + c)];
      sx += x * x, sy += y * y;
    }
  }
  id.attention_factor = sx > 0 ? std::sqrt(sy / sx) : 1.0;
  const double a2 = id.attention_factor * id.attention_factor;
  // 3. Pairing, on a sample of the vectors at non-zero positions.
  std::vector<long> sample;
  {
    std::vector<long> moving;
    for (long s = 0; s < before.seq; ++s) {
      if (positions[static_cast<std::size_t>(s)] != 0) moving.push_back(s);
    }
    const long per = std::max(1L, static_cast<long>(moving.size()) * before.groups() / kPairingSample);
    for (long k = 0; k < static_cast<long>(moving.size()) * before.groups(); k += per) {
      sample.push_back(moving[static_cast<std::size_t>(k / before.groups())] * before.groups() + k % before.groups());
    }
  }
  const int r = id.rotary_dim;
  std::vector<int> partner(static_cast<std::size_t>(d), -1);
  for (int ia = 0; ia < r; ++ia) {
    double best = INFINITY;
    for (int ib = 0; ib < r; ++ib) {
      if (ib == ia) continue;
      const int a = id.rotated[ia], b = id.rotated[ib];
      double cost = 0, scale = 0;
      for (const long v : sample) {
        const double* x = before.values.data() + v * d;
        const double* y = after.values.data() + v * d;
        const double want = a2 * (x[a] * x[a] + x[b] * x[b]);
        const double diff = y[a] * y[a] + y[b] * y[b] - want;
        cost += diff * diff, scale += want * want;
      }
      cost = scale > 0 ? cost / scale : cost;
      if (cost < best) best = cost, partner[a] = b;
    }
  }
  bool consistent = true;
  for (const int a : id.rotated) consistent = consistent && partner[a] >= 0 && partner[partner[a]] == a;
  if (!consistent || r % 2 != 0) {
    id.layout = PairLayout::None;
    id.notes.push_back({msg("no pairing of the rotated channels keeps every pair's norm: this is not a rotation of pairs")});
    return id;
  }
  for (const int a : id.rotated) {
    if (a < partner[a]) id.pairs.emplace_back(a, partner[a]);
  }
  int family_dim = r;
  id.layout = classify(id.pairs, id.rotated, d, family_dim, id.notes);
  id.family_dim = family_dim;
  const int n = static_cast<int>(id.pairs.size());
  for (long v = 0; v < vectors; ++v) {
    const double* x = before.values.data() + v * d;
    const double* y = after.values.data() + v * d;
    for (const auto& [a, b] : id.pairs) {
      const double nx = std::hypot(x[a], x[b]);
      if (nx > 0) id.norm_residual = std::max(id.norm_residual, std::abs(std::hypot(y[a], y[b]) - id.attention_factor * nx) / nx);
    }
  }
  // 4. Frequencies: the angle at each position, unwrapped along increasing positions.
  std::vector<long> order(static_cast<std::size_t>(before.seq));
  std::iota(order.begin(), order.end(), 0L);
  std::stable_sort(order.begin(), order.end(), [&](long p, long q) {
    return std::abs(positions[static_cast<std::size_t>(p)]) < std::abs(positions[static_cast<std::size_t>(q)]);
  });
  id.theta = Eigen::VectorXd::Zero(n);
  id.angle_residual = Eigen::VectorXd::Zero(n);
  id.theta_sigma = Eigen::VectorXd::Zero(n);
  for (int j = 0; j < n; ++j) {
    const auto [a, b] = id.pairs[j];
    std::vector<std::pair<double, double>> points;  // (m, unwrapped φ)
    double smp = 0, smm = 0, theta = 0;
    for (const long s : order) {
      const double m = positions[static_cast<std::size_t>(s)];
      if (m == 0) continue;
      std::complex<double> acc = 0;
      for (long g = 0; g < before.groups(); ++g) {
        const double* x = before.vector(s, g);
        const double* y = after.vector(s, g);
        acc += std::conj(std::complex<double>(x[a], x[b])) * std::complex<double>(y[a], y[b]);
      }
      if (acc == 0.0) continue;
      double phi = std::arg(acc);
      if (smm > 0) phi += kTwoPi * std::round((theta * m - phi) / kTwoPi);
      smp += m * phi, smm += m * m;
      theta = smp / smm;
      points.emplace_back(m, phi);
    }
    id.theta[j] = theta;
    double rss = 0;
    for (const auto& [m, phi] : points) rss += (phi - theta * m) * (phi - theta * m);
    id.angle_residual[j] = points.empty() ? 0.0 : std::sqrt(rss / static_cast<double>(points.size()));
    id.theta_sigma[j] = smm > 0 ? id.angle_residual[j] / std::sqrt(smm) : INFINITY;
  }
  if ((id.theta.array() < 0).any()) {
    id.notes.push_back({msg("some pairs turn clockwise (negative θ): the sign convention of sin is reversed there")});
  }
  // 5. Family, over the pairs of the family's dimension (zero-frequency pairs of a proportional head added).
  const Eigen::VectorXd measured = id.theta.cwiseAbs();
  Eigen::VectorXd sigma_ln(n);
  for (int j = 0; j < n; ++j) sigma_ln[j] = measured[j] > 0 ? id.theta_sigma[j] / measured[j] : INFINITY;
  if (family_dim != r) {  // proportional: fit only the rotated pairs, over the whole head's ladder
    id.fits = detail::fit_families(measured, sigma_ln, id.notes);
    for (FamilyFit& f : id.fits) {  // the ladder of the whole head: base^(−2j/d)
      f.base = std::pow(f.base, static_cast<double>(family_dim) / (2.0 * n));
      f.theta = family_theta(f, family_dim / 2).head(n);
    }
  } else {
    id.fits = detail::fit_families(measured, sigma_ln, id.notes);
  }
  id.fit = id.fits.front();
  if (id.fit.family == Family::Yarn && std::abs(id.attention_factor - (0.1 * std::log(id.fit.factor) + 1)) < 2e-3) {
    id.notes.push_back({msg("the attention factor {0:.4f} is YaRN's default 0.1·ln f + 1 for f = {1:.4g}", id.attention_factor, id.fit.factor)});
  }
  return id;
}

}  // namespace rope
