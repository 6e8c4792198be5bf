// Step 3 of identify.hpp: which rotated channels pair up, from how well a rotation per position maps each
// candidate pair of the dump before onto the dump after; and, when rounding hides the partners of the slowest
// pairs (a short 16-bit dump), the layout the others follow.
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "rope/analysis/identify/identify.hpp"
#include "rope/core/workers.hpp"

namespace rope {
namespace {

/// A pair is confident when every other partner of either channel costs this many times more.
constexpr double kPairingConfidence = 2.0;
/// Above this head dimension only candidate pairs are costed (pairing_costs): each channel's partners of least norm
/// mismatch, this many, and the pairs of the layouts they suggest, at most kWideDistances partner distances.
constexpr int kExactPairingDim = 1024;
constexpr int kWideCandidates = 8;
constexpr int kWideDistances = 4;

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
  const auto pair_cost = [&](int ca, int cb) {
    const double *xa = xs.data() + static_cast<std::size_t>(ca) * n, *ya = ys.data() + static_cast<std::size_t>(ca) * n;
    const double *xb = xs.data() + static_cast<std::size_t>(cb) * n, *yb = ys.data() + static_cast<std::size_t>(cb) * n;
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
    return energy > 0 ? residual / energy : 0.0;
  };
  Eigen::MatrixXd cost = Eigen::MatrixXd::Constant(d, d, INFINITY);
  if (d <= kExactPairingDim) {
    // Each row's pairs (ca, cb > ca) on a worker of its own: every cost is written once, by one task.
    for_each_task(d, [&](long row) {
      const int ca = static_cast<int>(row);
      for (int cb = ca + 1; cb < d; ++cb) cost(ca, cb) = cost(cb, ca) = pair_cost(ca, cb);
    });
    return cost;
  }
  // A wide table (LTX's 2048 and 4096 channels): every pair costed is d²/2 pairs × n vectors (57 s at d = 4096).
  // RoPE keeps each pair's norm, y_a² + y_b² = a²·(x_a² + x_b²) in every vector: with δ_c = y_c² − a²·x_c² over the
  // vectors, partners have δ_a + δ_b = 0, and ‖δ_a + δ_b‖² / (‖δ_a‖² + ‖δ_b‖²) = 1 + 2⟨δ_a, δ_b⟩ / (‖δ_a‖² + ‖δ_b‖²)
  // is 0 for them, about 1 for channels that turn independently. Its Gram matrix, a block of columns at a time,
  // keeps each channel's kWideCandidates least; only those pairs, each channel's neighbours (c, c + 1) and the pairs
  // at the distances the candidates' best partners lie apart (the half layouts pair_by_layout tries) are costed.
  Eigen::MatrixXd delta(static_cast<Eigen::Index>(n), d);
  for (int c = 0; c < d; ++c) {
    for (std::size_t k = 0; k < n; ++k) {
      const double x = xs[static_cast<std::size_t>(c) * n + k], y = ys[static_cast<std::size_t>(c) * n + k];
      delta(static_cast<Eigen::Index>(k), c) = y * y - a * a * x * x;
    }
  }
  const Eigen::VectorXd sq = delta.colwise().squaredNorm().transpose();
  std::vector<std::vector<std::pair<double, int>>> best(static_cast<std::size_t>(d));
  constexpr int kBlock = 256;
  for (int c0 = 0; c0 < d; c0 += kBlock) {
    const int w = std::min(kBlock, d - c0);
    const Eigen::MatrixXd gram = delta.transpose() * delta.middleCols(c0, w);  // d × w
    for (int j = 0; j < w; ++j) {
      const int cb = c0 + j;
      for (int ca = 0; ca < d; ++ca) {
        if (ca == cb) continue;
        const double norms = sq[ca] + sq[cb];
        const double score = norms > 0 ? 1 + 2 * gram(ca, j) / norms : 1.0;
        auto& list = best[static_cast<std::size_t>(cb)];
        if (static_cast<int>(list.size()) < kWideCandidates) {
          list.emplace_back(score, ca);
          std::push_heap(list.begin(), list.end());
        } else if (score < list.front().first) {
          std::pop_heap(list.begin(), list.end());
          list.back() = {score, ca};
          std::push_heap(list.begin(), list.end());
        }
      }
    }
  }
  const auto costed = [&](int ca, int cb) {
    if (ca == cb || ca < 0 || cb < 0 || ca >= d || cb >= d || std::isfinite(cost(ca, cb))) return;
    cost(ca, cb) = cost(cb, ca) = pair_cost(std::min(ca, cb), std::max(ca, cb));
  };
  for (int c = 0; c < d; ++c) {
    for (const auto& [score, other] : best[static_cast<std::size_t>(c)]) costed(c, other);
    costed(c, c + 1);
  }
  // The distances of each channel's cheapest partner among the candidates, the most frequent kWideDistances of them.
  std::vector<int> count(static_cast<std::size_t>(d), 0);
  for (int c = 0; c < d; ++c) {
    int partner = -1;
    double least = INFINITY;
    for (const auto& [score, other] : best[static_cast<std::size_t>(c)]) {
      if (cost(c, other) < least) least = cost(c, other), partner = other;
    }
    if (partner >= 0) ++count[static_cast<std::size_t>(std::abs(partner - c))];
  }
  std::vector<int> distances;
  for (int D = 2; D < d; ++D) {
    if (count[static_cast<std::size_t>(D)] > 0) distances.push_back(D);
  }
  std::stable_sort(distances.begin(), distances.end(), [&](int p, int q) {
    return count[static_cast<std::size_t>(p)] > count[static_cast<std::size_t>(q)];
  });
  if (distances.size() > static_cast<std::size_t>(kWideDistances)) distances.resize(kWideDistances);
  for (const int D : distances) {
    for (int c = 0; c + D < d; ++c) costed(c, c + D);
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
