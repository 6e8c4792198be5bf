// Step 3 of identify.hpp: which rotated channels pair up, from how well a rotation per position maps each
// candidate pair of the dump before onto the dump after; and, when rounding hides the partners of the slowest
// pairs (a short 16-bit dump), the layout the others follow.
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "rope/analysis/identify/identify.hpp"

namespace rope {
namespace {

/// A pair is confident when every other partner of either channel costs this many times more.
constexpr double kPairingConfidence = 2.0;

}  // namespace

Eigen::MatrixXd detail::pairing_costs(const DumpVectors& before, const DumpVectors& after, double a,
                                      const std::vector<long>& vectors) {
  const int d = before.d;
  // The vectors grouped by sequence index (they share a position, hence a rotation of each pair).
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t k = 0; k < vectors.size(); ++k) {
    const long s = vectors[k] / std::max(1L, before.groups());
    if (runs.empty() || vectors[runs.back().first] / std::max(1L, before.groups()) != s) runs.emplace_back(k, k);
    runs.back().second = k + 1;
  }
  // The sampled vectors' channels copied channel by channel (channel c's values at [c·n, (c + 1)·n)): a pair's
  // loops then read two contiguous rows, where a vector's channels ca and cb lay d apart in every vector, most of
  // identify's time. The same products and sums in the same order as over the dump itself.
  const std::size_t n = vectors.size();
  std::vector<double> xs(static_cast<std::size_t>(d) * n), ys(static_cast<std::size_t>(d) * n);
  for (std::size_t k = 0; k < n; ++k) {
    const double* x = before.values.data() + vectors[k] * d;
    const double* y = after.values.data() + vectors[k] * d;
    for (int c = 0; c < d; ++c)
      xs[static_cast<std::size_t>(c) * n + k] = x[c], ys[static_cast<std::size_t>(c) * n + k] = y[c];
  }
  Eigen::MatrixXd cost = Eigen::MatrixXd::Constant(d, d, INFINITY);
  for (int ca = 0; ca < d; ++ca) {
    const double *xa = xs.data() + static_cast<std::size_t>(ca) * n, *ya = ys.data() + static_cast<std::size_t>(ca) * n;
    for (int cb = ca + 1; cb < d; ++cb) {
      const double *xb = xs.data() + static_cast<std::size_t>(cb) * n,
                   *yb = ys.data() + static_cast<std::size_t>(cb) * n;
      double residual = 0, energy = 0;
      for (const auto& [first, last] : runs) {
        // min over the angle φ of Σ |z_after − a·e^(iφ)·z_before|², at φ = arg Σ conj(z_before)·z_after; summed term by
        // term (not as Σ|z_after|² + a²|z_before|² − 2a·|Σ …|, which cancels to the rounding of float64 for slow pairs)
        std::complex<double> u = 0;
        for (std::size_t k = first; k < last; ++k) {
          u += std::conj(std::complex<double>(xa[k], xb[k])) * std::complex<double>(ya[k], yb[k]);
        }
        const std::complex<double> turn = std::abs(u) > 0 ? a * u / std::abs(u) : std::complex<double>(a);
        for (std::size_t k = first; k < last; ++k) {
          const std::complex<double> x(xa[k], xb[k]), y(ya[k], yb[k]);
          residual += std::norm(y - turn * x), energy += std::norm(y) + a * a * std::norm(x);
        }
      }
      cost(ca, cb) = cost(cb, ca) = energy > 0 ? residual / energy : 0.0;
    }
  }
  return cost;
}

detail::Pairing detail::pair_channels(const Eigen::MatrixXd& cost, const std::vector<int>& rotated) {
  const auto r = static_cast<Eigen::Index>(rotated.size());
  Pairing p;
  // Each rotated channel's cheapest partner among the rotated ones.
  std::vector<int> best(static_cast<std::size_t>(cost.rows()), -1);
  for (const int a : rotated) {
    double least = INFINITY;
    for (const int b : rotated) {
      if (b != a && cost(a, b) < least) least = cost(a, b), best[static_cast<std::size_t>(a)] = b;
    }
  }
  // The cheapest cost of channel a with any channel, rotated or not, other than `not_this`.
  const auto other = [&](int a, int not_this) {
    double m = INFINITY;
    for (Eigen::Index k = 0; k < cost.cols(); ++k) {
      if (k != not_this && k != a) m = std::min(m, cost(a, k));
    }
    return m;
  };
  bool mutual = r % 2 == 0;
  for (const int a : rotated) {
    const int b = best[static_cast<std::size_t>(a)];
    if (b < 0 || best[static_cast<std::size_t>(b)] != a) {
      mutual = false;
      continue;
    }
    if (a > b) continue;
    if (std::min(other(a, b), other(b, a)) >= kPairingConfidence * cost(a, b)) p.confident.emplace_back(a, b);
    p.pairs.emplace_back(a, b);
  }
  if (!mutual) p.pairs.clear();
  return p;
}

std::optional<detail::LayoutPairing> detail::pair_by_layout(const Eigen::MatrixXd& cost,
                                                            const std::vector<int>& rotated, int d,
                                                            const std::vector<std::pair<int, int>>& confident,
                                                            double bound) {
  if (confident.empty()) return std::nullopt;
  std::vector<char> moves(static_cast<std::size_t>(d), 0);
  for (const int c : rotated) moves[static_cast<std::size_t>(c)] = 1;
  // The pairs from the first rotated channel o on: 0, or after pass-through channels (DeepSeek's q = cat(q_nope,
  // q_pe)).
  const int o = rotated.front();
  const int max_channel = rotated.back() - o;
  for (const bool half : {false, true}) {
    const int h = half ? confident.front().second - confident.front().first : 1;  // the partner's distance
    if (half && (h < 2 || 2 * h > d - o || max_channel >= 2 * h)) continue;
    const auto pair_of = [&](int j) {
      return half ? std::make_pair(o + j, o + j + h) : std::make_pair(o + 2 * j, o + 2 * j + 1);
    };
    const auto index_of = [&](int c) { return half ? (c - o) % h : (c - o) / 2; };
    bool fits = true;
    for (const auto& p : confident) fits = fits && pair_of(index_of(p.first)) == p;
    if (!fits) continue;
    // The pairs up to the last one with a channel that moves (every pair of a partial rotary half block).
    int last = 0;
    for (const int c : rotated) last = std::max(last, index_of(c));
    if (half && 2 * h < d - o) last = h - 1;
    LayoutPairing out;
    for (int j = 0; j <= last; ++j) {
      const auto [a, b] = pair_of(j);
      if (b >= d) {
        fits = false;
        break;
      }
      // A pair both of whose channels move must keep its norm within the dump's rounding.
      if (moves[static_cast<std::size_t>(a)] && moves[static_cast<std::size_t>(b)] && cost(a, b) > bound) {
        fits = false;
        break;
      }
      out.pairs.emplace_back(a, b);
      if (std::find(confident.begin(), confident.end(), std::make_pair(a, b)) == confident.end())
        out.unresolved.push_back(j);
    }
    if (fits) return out;
  }
  return std::nullopt;
}

}  // namespace rope
