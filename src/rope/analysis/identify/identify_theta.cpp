// Step 4 of identify.hpp: each pair's θ_j from its phases at any integer positions (a periodogram), the
// restarts and jumps of the positions, their common offset, and the final least-squares θ_j.
#include <algorithm>
#include <cmath>
#include <complex>
#include <fmt/format.h>
#include <numeric>
#include <optional>

#include "rope/analysis/identify/identify.hpp"
#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/workers.hpp"
#include "rope/io/csv.hpp"

namespace rope {
namespace {

using Complex = std::complex<double>;

/// Most grid points of a periodogram: positions spread up to about 83,000 around their centre are resolved
/// (beyond, the grid may step over the peak; the least-squares step refines what it finds).
constexpr long kMaxGrid = 1L << 20;
/// Most restarts or jumps reported.
constexpr std::size_t kMaxJumps = 64;

double wrap(double a) { return a - kTwoPi * std::round(a / kTwoPi); }

/// The median (or the largest) over the pairs of |c_j − θ_j·k| wrapped to (−π, π]: how far a step of k misses the
/// turns c_j.
double miss_of(const std::vector<double>& c, const std::vector<double>& theta, double k, bool median) {
  std::vector<double> miss;
  for (std::size_t j = 0; j < c.size(); ++j) miss.push_back(std::abs(wrap(c[j] - theta[j] * k)));
  if (!median) return *std::max_element(miss.begin(), miss.end());
  std::nth_element(miss.begin(), miss.begin() + static_cast<long>(miss.size() / 2), miss.end());
  return miss[miss.size() / 2];
}

/// |Σ u_k e^(−iθ m_k)|.
double power(const std::vector<double>& m, const std::vector<Complex>& u, double theta) {
  Complex acc = 0;
  for (std::size_t k = 0; k < m.size(); ++k) acc += u[k] * std::polar(1.0, -theta * m[k]);
  return std::abs(acc);
}

}  // namespace

long detail::best_integer_shift(const std::vector<double>& c, const std::vector<double>& theta,
                                const std::vector<double>& w, long range) {
  // cost(k) = Σ w_j − Re Σ_j w_j·e^(i(c_j − θ_j·k)), the exponential as the product of an exact one at the start
  // of each block of kBlock shifts and a table of exact ones within it (two roundings), since a sparse dump searches
  // 2^17 shifts for 64 pairs, where one cos each would be most of its identify.
  constexpr long kBlock = 256;
  const std::size_t n = c.size();
  double total = 0;
  for (std::size_t j = 0; j < n; ++j) total += w[j];
  std::vector<double> table_re(n * kBlock), table_im(n * kBlock);  // e^(−iθ_j·t), t = 0 … kBlock − 1
  for (std::size_t j = 0; j < n; ++j) {
    for (long t = 0; t < kBlock; ++t) {
      const Complex z = std::polar(1.0, -theta[j] * static_cast<double>(t));
      table_re[j * kBlock + static_cast<std::size_t>(t)] = z.real();
      table_im[j * kBlock + static_cast<std::size_t>(t)] = z.imag();
    }
  }
  // cost(k) for k = k0 … k0 + kBlock − 1 (those within ±range).
  std::vector<double> base_re(n), base_im(n), block(static_cast<std::size_t>(kBlock));
  const auto costs = [&](long k0) {
    for (std::size_t j = 0; j < n; ++j) {
      const Complex z = std::polar(w[j], c[j] - theta[j] * static_cast<double>(k0));
      base_re[j] = z.real(), base_im[j] = z.imag();
    }
    std::fill(block.begin(), block.end(), total);
    for (std::size_t j = 0; j < n; ++j) {
      const double* re = &table_re[j * kBlock];
      const double* im = &table_im[j * kBlock];
      const double br = base_re[j], bi = base_im[j];
      for (long t = 0; t < kBlock; ++t) block[static_cast<std::size_t>(t)] -= br * re[t] - bi * im[t];
    }
  };
  std::vector<double> cost(static_cast<std::size_t>(2 * range + 1));  // cost(k) at k + range
  for (long k0 = -range; k0 <= range; k0 += kBlock) {
    costs(k0);
    for (long t = 0; t < kBlock && k0 + t <= range; ++t)
      cost[static_cast<std::size_t>(k0 + t + range)] = block[static_cast<std::size_t>(t)];
  }
  const auto at = [&](long k) { return cost[static_cast<std::size_t>(k + range)]; };
  const double at_zero = at(0);
  long best = 0;
  double best_cost = at_zero;
  for (long a = 1; a <= range; ++a) {
    for (const long k : {a, -a}) {
      const double v = at(k);
      if (v < best_cost - 1e-12) best = k, best_cost = v;
    }
  }
  return best_cost < 0.5 * at_zero ? best : 0;
}

namespace {

/// Grids up to this many points are scanned whole (the positions' spread is then at most about 650): a sparse
/// dump's larger spread goes to sparse_peak first.
constexpr long kDenseGrid = 8192;
/// Most candidates sparse_peak follows: 2π/Δ over the two closest positions (Δ apart) in [−π, π].
constexpr double kMaxCandidates = 1 << 16;
/// sparse_peak answers only for phasors this coherent at its peak, |Σ u e^(−iθm)| >= it·Σ|u| (a RoPE dump's
/// are within its rounding of 1); below, the dense grid decides.
constexpr double kCoherent = 0.95;

/// The local maximum of |Σ u e^(−iθm')| in [a, b] (golden section, 60 steps).
double refine(const std::vector<double>& m, const std::vector<Complex>& u, double a, double b) {
  const double r = (std::sqrt(5.0) - 1) / 2;
  double x1 = b - r * (b - a), x2 = a + r * (b - a), f1 = power(m, u, x1), f2 = power(m, u, x2);
  for (int it = 0; it < 60; ++it) {
    if (f1 > f2)
      b = x2, x2 = x1, f2 = f1, x1 = b - r * (b - a), f1 = power(m, u, x1);
    else
      a = x1, x1 = x2, f1 = f2, x2 = a + r * (b - a), f2 = power(m, u, x2);
  }
  return 0.5 * (a + b);
}

/// The periodogram's peak without its grid, for positions spread far apart (a sparse spot-check: 48 positions
/// up to 131071 ask the grid for 8·10^5 points per pair): a θ where the phasors add up turns the two closest
/// positions (Δ apart, the smallest gap) by θ·Δ, their phase difference ψ up to 2πn, so the candidates are
/// (ψ + 2πn)/Δ in [−π, π]; each is carried out to the other positions in order of their distance from the
/// first of the two (small gaps first), θ the least-squares slope of the unwrapped phase differences, and
/// refined on |Σ u e^(−iθm')| within one grid step `h`. The same peak and the same ambiguity as the grid's
/// (another local maximum outside the main lobe at 98 %, the slowest of them then): nullopt when the best
/// candidate is not coherent (kCoherent) or there are too many, and the grid decides.
std::optional<double> sparse_peak(const std::vector<double>& m, const std::vector<Complex>& u, double h, double lobe,
                                  bool& ambiguous) {
  // The phasors by position (those of one position add up), increasing.
  std::vector<std::size_t> idx(m.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return m[a] < m[b]; });
  std::vector<double> pm;
  std::vector<Complex> pu;
  double mass = 0;
  for (const std::size_t k : idx) {
    if (!pm.empty() && pm.back() == m[k])
      pu.back() += u[k];
    else
      pm.push_back(m[k]), pu.push_back(u[k]);
    mass += std::abs(u[k]);
  }
  if (pm.size() < 2 || !(mass > 0)) return std::nullopt;
  std::size_t first = 0;
  for (std::size_t k = 1; k + 1 < pm.size(); ++k) {
    if (pm[k + 1] - pm[k] < pm[first + 1] - pm[first]) first = k;
  }
  const double gap = pm[first + 1] - pm[first];
  if (gap * 2 > kMaxCandidates || std::abs(pu[first]) == 0) return std::nullopt;
  // Phase differences to the first of the two, by distance.
  std::vector<std::pair<double, double>> steps;  // (m − m_first, arg(u·conj u_first))
  for (std::size_t k = 0; k < pm.size(); ++k) {
    if (k != first && std::abs(pu[k]) > 0)
      steps.emplace_back(pm[k] - pm[first], std::arg(pu[k] * std::conj(pu[first])));
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const auto& a, const auto& b) { return std::abs(a.first) < std::abs(b.first); });
  const double psi = std::arg(pu[first + 1] * std::conj(pu[first]));
  std::vector<std::pair<double, double>> peaks;  // (θ, |Σ u e^(−iθm)|), each candidate's
  const auto n_lo = static_cast<long>(std::floor((-kPi * gap - psi) / kTwoPi)) - 1;
  const auto n_hi = static_cast<long>(std::ceil((kPi * gap - psi) / kTwoPi)) + 1;
  double top = 0;
  for (long n = n_lo; n <= n_hi; ++n) {
    double theta = (psi + kTwoPi * static_cast<double>(n)) / gap, smp = 0, smm = 0;
    if (std::abs(theta) > kPi + kTwoPi / gap) continue;
    for (const auto& [dm, phi] : steps) {
      const double unwrapped = phi + kTwoPi * std::round((theta * dm - phi) / kTwoPi);
      smp += dm * unwrapped, smm += dm * dm;
      theta = smp / smm;
    }
    theta = wrap(theta);
    const double p = power(m, u, theta);
    peaks.emplace_back(theta, p);
    top = std::max(top, p);
  }
  // The candidates within 90 % of the best, each on its own local maximum; one per lobe.
  std::vector<std::pair<double, double>> kept;
  for (const auto& [theta, p] : peaks) {
    if (p < 0.9 * top) continue;
    const double at = refine(m, u, theta - h, theta + h);
    const double value = power(m, u, at);
    bool seen = false;
    for (auto& k : kept) {
      if (std::abs(wrap(k.first - at)) <= lobe) {
        seen = true;
        if (value > k.second) k = {wrap(at), value};
      }
    }
    if (!seen) kept.emplace_back(wrap(at), value);
  }
  if (kept.empty()) return std::nullopt;
  auto best =
      *std::max_element(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  if (best.second < kCoherent * mass) return std::nullopt;
  const double peak = best.second;
  for (const auto& k : kept) {
    if (std::abs(wrap(k.first - best.first)) > lobe && k.second >= 0.98 * peak) ambiguous = true;
  }
  if (ambiguous) {  // of the peaks as high, the slowest turn: RoPE's θ are at most 1
    for (const auto& k : kept) {
      if (k.second >= 0.98 * peak && std::abs(k.first) < std::abs(best.first)) best = k;
    }
  }
  return best.first;
}

/// Largest turn of a pair from one index to the next (rad) that counts as none: a float32 dump turns within 1e-6, a
/// bf16 one within a few 1e-3 (its phasors sum over the heads), a pair of θ_0 = 1 by 1.
constexpr double kStill = 0.02;

/// The first index of the run of indices, to the end of the dump and at least 2 long, where the given positions
/// advance (by any step) and no pair turns from one index to the next, after indices where some pair did turn: where a
/// cos/sin cache clamped to its last row stops turning the vectors (docs/check.md's cos-sin-cache-short); nullopt
/// otherwise.
std::optional<long> held_index(const std::vector<std::vector<Complex>>& u, const std::vector<double>& positions) {
  const long seq = static_cast<long>(positions.size());
  const auto still = [&](long s) {
    if (positions[static_cast<std::size_t>(s)] == positions[static_cast<std::size_t>(s - 1)]) return false;
    for (const auto& pair : u) {
      const Complex a = pair[static_cast<std::size_t>(s)], b = pair[static_cast<std::size_t>(s - 1)];
      if (std::abs(a) > 0 && std::abs(b) > 0 && std::abs(std::arg(a * std::conj(b))) > kStill) return false;
    }
    return true;
  };
  long from = seq;
  while (from > 1 && still(from - 1)) --from;
  if (seq - from < 2 || from <= 1) return std::nullopt;
  for (long s = 1; s < from; ++s) {
    if (!still(s)) return from;
  }
  return std::nullopt;
}

}  // namespace

double detail::periodogram_peak(const std::vector<double>& m, const std::vector<Complex>& u, bool& ambiguous) {
  ambiguous = false;
  double span = 1, lo = INFINITY, hi = -INFINITY;
  for (const double x : m) span = std::max(span, std::abs(x)), lo = std::min(lo, x), hi = std::max(hi, x);
  if (m.empty()) return 0.0;
  if (hi == lo) {  // one position: its phase alone, θ known modulo 2π/|m|
    Complex sum = 0;
    for (const Complex& z : u) sum += z;
    ambiguous = std::abs(lo) > 3;  // θ <= 1 is within (−π/|m|, π/|m|] only for |m| <= 3
    return lo != 0 ? std::arg(sum) / lo : 0.0;
  }
  // |Σ u e^(−iθm)| does not change when every m moves by the same amount: the grid resolves the positions'
  // spread around their centre, however large they are.
  const double centre = std::round((lo + hi) / 2);
  span = std::max(1.0, std::max(hi - centre, centre - lo));
  const long grid = std::min(kMaxGrid, static_cast<long>(std::ceil(4 * kPi * span)) + 1);
  const double h = kTwoPi / static_cast<double>(grid);
  const double spread = std::max(1.0, hi - lo);
  if (grid > kDenseGrid) {
    std::vector<double> centred(m.size());
    for (std::size_t k = 0; k < m.size(); ++k) centred[k] = m[k] - centre;
    if (const std::optional<double> theta = sparse_peak(centred, u, h, kTwoPi / spread + h, ambiguous)) return *theta;
    ambiguous = false;
  }
  // The phasors of one position add up before the walk (as sparse_peak's do): an image's or a video's positions
  // repeat along each axis (every patch of a row has its row's h), so a multi-axis dump walks a few distinct
  // positions instead of up to kMaxPeriodogramPositions; the sum is the same up to the order of its additions.
  std::vector<std::size_t> order(m.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return m[a] < m[b]; });
  std::vector<double> pm;
  std::vector<Complex> pu;
  for (const std::size_t k : order) {
    if (!pm.empty() && pm.back() == m[k])
      pu.back() += u[k];
    else
      pm.push_back(m[k]), pu.push_back(u[k]);
  }
  // u_k·e^(−iθm'_k) along the grid by one rotation per step, m' = m − centre: every phasor's walk at once, one grid
  // point after the other (its real and imaginary parts in arrays of their own, so that the compiler turns the
  // independent walks together: a walk of its own was one serial chain of complex products, most of identify's time).
  const std::size_t n = pm.size();
  std::vector<double> zr(n), zi(n), sr(n), si(n), size(n);
  for (std::size_t k = 0; k < n; ++k) {
    const double mk = pm[k] - centre;
    const Complex z = pu[k] * std::polar(1.0, kPi * mk), step = std::polar(1.0, -h * mk);
    zr[k] = z.real(), zi[k] = z.imag(), sr[k] = step.real(), si[k] = step.imag(), size[k] = std::abs(pu[k]);
  }
  std::vector<Complex> acc(static_cast<std::size_t>(grid), 0.0);
  for (long g = 0; g < grid; ++g) {
    double ar[4] = {0, 0, 0, 0}, ai[4] = {0, 0, 0, 0};  // four partial sums: the additions need not wait in turn
    std::size_t k = 0;
    for (; k + 4 <= n; k += 4) {
      for (std::size_t l = 0; l < 4; ++l) ar[l] += zr[k + l], ai[l] += zi[k + l];
    }
    for (; k < n; ++k) ar[0] += zr[k], ai[0] += zi[k];
    acc[static_cast<std::size_t>(g)] = Complex((ar[0] + ar[1]) + (ar[2] + ar[3]), (ai[0] + ai[1]) + (ai[2] + ai[3]));
    for (k = 0; k < n; ++k) {
      const double re = zr[k] * sr[k] - zi[k] * si[k];
      zi[k] = zr[k] * si[k] + zi[k] * sr[k], zr[k] = re;
    }
    if ((g & 1023) == 1023) {  // keep each |z| from drifting: back to |u_k|
      for (k = 0; k < n; ++k) {
        const double r = std::hypot(zr[k], zi[k]), scale = r > 0 ? size[k] / r : 0.0;
        zr[k] *= scale, zi[k] *= scale;
      }
    }
  }
  long best = 0;
  for (long g = 1; g < grid; ++g) {
    if (std::norm(acc[static_cast<std::size_t>(g)]) > std::norm(acc[static_cast<std::size_t>(best)])) best = g;
  }
  // Compared as squared magnitudes (std::norm): |acc| >= 0.98·peak is norm >= 0.98²·peak², and a grid of 10^6 points
  // took a quarter of identify's time in std::abs's hypot.
  const double peak_norm = std::norm(acc[static_cast<std::size_t>(best)]), high = 0.98 * 0.98 * peak_norm;
  // Another peak outside the main lobe (half-width 2π/spread) as high: θ is not determined.
  const long lobe = static_cast<long>(std::ceil(kTwoPi / spread / h)) + 1;
  for (long g = 0; g < grid && peak_norm > 0; ++g) {
    long dist = std::abs(g - best);
    dist = std::min(dist, grid - dist);
    if (dist > lobe && std::norm(acc[static_cast<std::size_t>(g)]) >= high) ambiguous = true;
  }
  if (ambiguous) {  // of the peaks as high, the slowest turn: RoPE's θ are at most 1
    const auto at = [&](long g) { return std::norm(acc[static_cast<std::size_t>((g + grid) % grid)]); };
    for (long g = 0; g < grid; ++g) {
      const double theta = -kPi + h * static_cast<double>(g), current = -kPi + h * static_cast<double>(best);
      if (at(g) >= high && at(g) >= at(g - 1) && at(g) >= at(g + 1) && std::abs(theta) < std::abs(current)) best = g;
    }
  }
  // Golden-section refinement within one grid step of the best point.
  return wrap(refine(m, u, -kPi + h * static_cast<double>(best - 1), -kPi + h * static_cast<double>(best + 1)));
}

std::vector<char> detail::majority_groups(const DumpVectors& before, const DumpVectors& after,
                                          const Identification& id) {
  const int n = static_cast<int>(id.pairs.size());
  const long groups = before.groups();
  if (groups < 3 || n < 1) return {};
  const auto pairs_of = [&](long g) -> const std::vector<std::pair<int, int>>& {
    return id.group_pairs.empty() ? id.pairs : id.group_pairs[static_cast<std::size_t>(g)];
  };
  for (long r = 0; r < std::min<long>(groups, 3); ++r) {
    std::vector<char> agree(static_cast<std::size_t>(groups), 0);
    long count = 0;
    for (long g = 0; g < groups; ++g) {
      double dot = 0, mass = 0;
      for (long s = 0; s < before.seq; ++s) {
        if (!id.left_out.empty() && (id.left_out[static_cast<std::size_t>(s * groups + g)] ||
                                     id.left_out[static_cast<std::size_t>(s * groups + r)]))
          continue;
        const double *xg = before.vector(s, g), *yg = after.vector(s, g);
        const double *xr = before.vector(s, r), *yr = after.vector(s, r);
        for (int j = 0; j < n; ++j) {
          const auto [a, b] = pairs_of(g)[static_cast<std::size_t>(j)];
          const auto [c, e] = pairs_of(r)[static_cast<std::size_t>(j)];
          const Complex ug = std::conj(Complex(xg[a], xg[b])) * Complex(yg[a], yg[b]);
          const Complex ur = std::conj(Complex(xr[c], xr[e])) * Complex(yr[c], yr[e]);
          dot += (ug * std::conj(ur)).real(), mass += std::abs(ug) * std::abs(ur);
        }
      }
      agree[static_cast<std::size_t>(g)] = mass > 0 && dot >= (1 - 1e-3) * mass;
      count += agree[static_cast<std::size_t>(g)];
    }
    if (2 * count > groups) return count == groups ? std::vector<char>{} : agree;
  }
  return {};
}

std::vector<std::vector<Complex>> detail::pair_phasors(const DumpVectors& before, const DumpVectors& after,
                                                       const Identification& id, const std::vector<char>* include) {
  const int n = static_cast<int>(id.pairs.size());
  std::vector<std::vector<Complex>> u(static_cast<std::size_t>(n),
                                      std::vector<Complex>(static_cast<std::size_t>(before.seq)));
  for (long s = 0; s < before.seq; ++s) {
    for (long g = 0; g < before.groups(); ++g) {
      if (include && !include->empty() && !(*include)[static_cast<std::size_t>(g)]) continue;
      if (!id.left_out.empty() && id.left_out[static_cast<std::size_t>(s * before.groups() + g)]) continue;
      const double* x = before.vector(s, g);
      const double* y = after.vector(s, g);
      const auto& pairs = id.group_pairs.empty() ? id.pairs : id.group_pairs[static_cast<std::size_t>(g)];
      for (int j = 0; j < n; ++j) {
        const auto [a, b] = pairs[static_cast<std::size_t>(j)];
        u[j][static_cast<std::size_t>(s)] += std::conj(Complex(x[a], x[b])) * Complex(y[a], y[b]);
      }
    }
  }
  return u;
}

void detail::find_group_offsets(const DumpVectors& before, const DumpVectors& after, Identification& id) {
  const int n = static_cast<int>(id.pairs.size());
  const long groups = before.groups();
  if (groups < 2 || n < 2 || id.theta.size() != n || id.dump_positions.size() != static_cast<std::size_t>(before.seq))
    return;
  const double allowed = 1 - std::cos(0.3);  // the weighted mean of 1 − cos c_j that a fit leaves
  std::vector<double> theta(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) theta[static_cast<std::size_t>(j)] = id.theta[j];
  // e^(−iθ_j·m_s), shared by the groups.
  std::vector<Complex> turn(static_cast<std::size_t>(n * before.seq));
  for (long s = 0; s < before.seq; ++s) {
    for (int j = 0; j < n; ++j)
      turn[static_cast<std::size_t>(s * n + j)] =
          std::polar(1.0, -theta[static_cast<std::size_t>(j)] * id.dump_positions[static_cast<std::size_t>(s)]);
  }
  const auto miss = [&](const std::vector<double>& c, const std::vector<double>& w, double k) {
    double sum = 0, total = 0;
    for (int j = 0; j < n; ++j) {
      const auto i = static_cast<std::size_t>(j);
      sum += w[i] * (1 - std::cos(c[i] - theta[i] * k)), total += w[i];
    }
    return total > 0 ? sum / total : 0.0;
  };
  // The groups whose phases miss the positions found, with their phases and weights; only when some but at most
  // kMaxOffsetGroups of them miss is each searched (each search 2·kMaxPositionOffset + 1 shifts × pairs).
  struct Missing {
    long group;
    std::vector<double> c, w;
  };
  std::vector<Missing> missing;
  for (long g = 0; g < groups; ++g) {
    const auto& pairs = id.group_pairs.empty() ? id.pairs : id.group_pairs[static_cast<std::size_t>(g)];
    std::vector<Complex> acc(static_cast<std::size_t>(n), 0.0);
    std::vector<double> mass(static_cast<std::size_t>(n), 0.0);
    for (long s = 0; s < before.seq; ++s) {
      if (!id.left_out.empty() && id.left_out[static_cast<std::size_t>(s * groups + g)]) continue;
      const double* x = before.vector(s, g);
      const double* y = after.vector(s, g);
      for (int j = 0; j < n; ++j) {
        const auto [a, b] = pairs[static_cast<std::size_t>(j)];
        const Complex u = std::conj(Complex(x[a], x[b])) * Complex(y[a], y[b]);
        acc[static_cast<std::size_t>(j)] += u * turn[static_cast<std::size_t>(s * n + j)];
        mass[static_cast<std::size_t>(j)] += std::abs(u);
      }
    }
    std::vector<double> c(static_cast<std::size_t>(n)), w(static_cast<std::size_t>(n));
    for (std::size_t j = 0; j < c.size(); ++j)
      c[j] = std::arg(acc[j]), w[j] = mass[j] > 0 ? std::abs(acc[j]) / mass[j] : 0.0;
    if (miss(c, w, 0) > allowed) missing.push_back({g, std::move(c), std::move(w)});
    if (static_cast<long>(missing.size()) > kMaxOffsetGroups) return;
  }
  if (missing.empty() || static_cast<long>(missing.size()) == groups) return;
  for (const Missing& m : missing) {
    const long k = detail::best_integer_shift(m.c, theta, m.w, kMaxPositionOffset);
    if (k != 0 && miss(m.c, m.w, static_cast<double>(k)) <= allowed)
      id.group_offsets.push_back({m.group, static_cast<double>(k)});
  }
}

void detail::measure_frequencies(const DumpVectors& before, const DumpVectors& after, const std::vector<double>& given,
                                 Identification& id) {
  const int n = static_cast<int>(id.pairs.size());
  const long seq = before.seq;
  // Heads that turn otherwise than most (at positions of their own: find_group_offsets names them) left out.
  const std::vector<char> majority = majority_groups(before, after, id);
  const std::vector<std::vector<Complex>> u = pair_phasors(before, after, id, &majority);
  // Positions held (a cos/sin cache read with its index clamped to its last row): from that index on, every vector is
  // turned as at the last position before it, so the dump's positions are those, and the rest is measured on them.
  std::vector<double> positions = given;
  if (const std::optional<long> from = held_index(u, given)) {
    id.held_from = *from;
    id.held_position = given[static_cast<std::size_t>(*from - 1)];
    std::fill(positions.begin() + *from, positions.end(), id.held_position);
  }
  // The periodogram's positions: the ones of smallest |m|.
  std::vector<long> order(static_cast<std::size_t>(seq));
  std::iota(order.begin(), order.end(), 0L);
  std::stable_sort(order.begin(), order.end(), [&](long p, long q) {
    return std::abs(positions[static_cast<std::size_t>(p)]) < std::abs(positions[static_cast<std::size_t>(q)]);
  });
  std::vector<long> subset(order.begin(),
                           order.begin() + static_cast<long>(std::min(order.size(), detail::kMaxPeriodogramPositions)));
  std::vector<double> coarse(static_cast<std::size_t>(n), 0.0);
  // The periodogram of each pair at positions `at` (over the subset), flagging the pairs it cannot determine.
  // Each pair's periodogram is a task of its own (for_each_task).
  const auto estimate = [&](const std::vector<double>& at, bool flag) {
    std::vector<char> ambiguous(static_cast<std::size_t>(n), 0);
    for_each_task(n, [&](long j) {
      std::vector<double> m;
      std::vector<Complex> z;
      for (const long s : subset) {
        if (std::abs(u[j][static_cast<std::size_t>(s)]) > 0)
          m.push_back(at[static_cast<std::size_t>(s)]), z.push_back(u[j][static_cast<std::size_t>(s)]);
      }
      bool amb = false;
      coarse[static_cast<std::size_t>(j)] = periodogram_peak(m, z, amb);
      ambiguous[static_cast<std::size_t>(j)] = amb ? 1 : 0;
    });
    for (int j = 0; j < n && flag; ++j) {
      if (ambiguous[static_cast<std::size_t>(j)]) id.undetermined.push_back(j);
    }
  };
  estimate(positions, true);
  // Jumps: where the given positions step by 1, each pair turns by θ_j per step; the mean turn of those steps
  // (a restart is one step among many) is θ_j, and a step that turns otherwise in most pairs is a jump.
  std::vector<double> p = positions;
  double span = 1;  // jumps and offsets searched within the span of the positions
  for (const double x : positions) span = std::max(span, std::abs(x));
  std::vector<Complex> turn(static_cast<std::size_t>(n), 0.0);
  long unit_steps = 0;
  const auto step_turn = [&](int j, long s) {
    const Complex a = u[j][static_cast<std::size_t>(s)], b = u[j][static_cast<std::size_t>(s - 1)];
    return std::abs(a) > 0 && std::abs(b) > 0 ? a * std::conj(b) / (std::abs(a) * std::abs(b)) : Complex(0.0);
  };
  for (int pass = 0; pass < 2; ++pass) {  // the second without the steps that turn otherwise than the first's mean
    std::vector<Complex> sum(static_cast<std::size_t>(n), 0.0);
    unit_steps = 0;
    for (long s = 1; s < seq; ++s) {
      if (positions[static_cast<std::size_t>(s)] - positions[static_cast<std::size_t>(s - 1)] != 1) continue;
      if (pass == 1) {
        long off = 0;
        for (int j = 0; j < n; ++j) off += std::abs(std::arg(step_turn(j, s) * std::conj(turn[j]))) > 0.3;
        if (2 * off > n) continue;
      }
      ++unit_steps;
      for (int j = 0; j < n; ++j) sum[j] += step_turn(j, s);
    }
    turn = sum;
  }
  std::vector<int> reliable;  // pairs that turn enough per step to show a jump
  for (int j = 0; j < n; ++j) {
    if (std::abs(std::arg(turn[j])) > 1e-2 && std::abs(turn[j]) > 0.5 * static_cast<double>(unit_steps))
      reliable.push_back(j);
  }
  if (unit_steps >= 3 && reliable.size() >= 3) {
    std::vector<double> th(reliable.size()), sigma(reliable.size());
    for (std::size_t k = 0; k < reliable.size(); ++k) {
      th[k] = std::arg(turn[reliable[k]]);
      // The spread of th_k: its unit steps' circular deviation √(−2 ln R) (R their mean resultant length) over
      // √(steps). A step of the given positions predicts the pair's turn as th_k·step, to within sigma_k·|step|.
      const double r = std::min(1.0, std::abs(turn[reliable[k]]) / static_cast<double>(unit_steps));
      sigma[k] = std::sqrt(-2 * std::log(r) / static_cast<double>(unit_steps));
    }
    // The reliable pairs whose turn over `step` th predicts within kStepPrecision (a step far beyond the unit steps,
    // 15 to 130816 in a bf16 dump, multiplies th's error with it: no pair is then judged, and no jump said), with
    // their turns c from index `from` to index `to`.
    constexpr double kStepPrecision = 0.1;
    std::vector<double> c, thk, w;
    const auto judged = [&](long from, long to, double step) {
      c.clear(), thk.clear();
      for (std::size_t k = 0; k < reliable.size(); ++k) {
        if (!(sigma[k] * std::abs(step) <= kStepPrecision)) continue;
        const Complex a = u[reliable[k]][static_cast<std::size_t>(to)],
                      b = u[reliable[k]][static_cast<std::size_t>(from)];
        c.push_back(std::arg(a * std::conj(b)));
        thk.push_back(th[k]);
      }
      w.assign(c.size(), 1.0);
      return c.size() >= 3;
    };
    double shift = 0;            // the correction carried to later indices
    std::vector<double> jumped;  // each jump's correction
    // An index whose vectors were all left out (identify.hpp, left_out) has no phase: it keeps the shift carried, and
    // the next index steps from the last one that has a phase.
    const auto measured = [&](long s) {
      return std::all_of(reliable.begin(), reliable.end(),
                         [&](int j) { return std::abs(u[j][static_cast<std::size_t>(s)]) > 0; });
    };
    long last = 0;
    for (long s = 1; s < seq && id.jumps.size() < kMaxJumps; ++s) {
      if (!measured(s) || !measured(last)) {
        p[static_cast<std::size_t>(s)] = positions[static_cast<std::size_t>(s)] + shift;
        if (measured(s)) last = s;
        continue;
      }
      const long prev = last;
      last = s;
      const double step = positions[static_cast<std::size_t>(s)] - positions[static_cast<std::size_t>(prev)];
      if (judged(prev, s, step) && miss_of(c, thk, step, true) > 0.3) {
        long true_step =
            detail::best_integer_shift(c, thk, w, std::min(kMaxPositionOffset, static_cast<long>(span) + 1));
        // No step within the positions' span turns the pairs as the dump does (its median pair missing by over 0.3
        // rad): a batch row or packed sequence whose start was left out (row 1 at 5000 + i given 0 … 63),
        // searched over the whole range, and taken where every reliable pair fits it within 0.15 rad (with at least
        // 6 pairs: a chance fit among the 2^17 steps is then below 2·10^−3), so that the jump's size is the dump's.
        // The per-step turns th carry the bias of the restarts they average, which a step within the span bears.
        if (c.size() >= 6 && miss_of(c, thk, static_cast<double>(true_step), true) > 0.3) {
          const long wide = detail::best_integer_shift(c, thk, w, kMaxPositionOffset);
          if (miss_of(c, thk, static_cast<double>(wide), false) < 0.15) true_step = wide;
        }
        if (static_cast<double>(true_step) != step) {
          id.jumps.push_back(s);
          jumped.push_back(static_cast<double>(true_step) - step);
          shift += static_cast<double>(true_step) - step;
        }
      }
      p[static_cast<std::size_t>(s)] = positions[static_cast<std::size_t>(s)] + shift;
    }
    // One index that departs and the next that steps back by as much is no restart: some elements of that vector
    // departing (a kernel's stores racing, not its positions): both dropped, that index at the positions given.
    std::vector<long> kept;
    for (std::size_t k = 0; k < id.jumps.size(); ++k) {
      if (k + 1 < id.jumps.size() && id.jumps[k + 1] == id.jumps[k] + 1 && jumped[k + 1] == -jumped[k]) {
        p[static_cast<std::size_t>(id.jumps[k])] -= jumped[k];
        ++k;
        continue;
      }
      kept.push_back(id.jumps[k]);
    }
    // A run of jumps at consecutive indices is no restart where the indices after it step from the index before it as
    // the given positions do: the run's own vectors departed in some elements (stores racing) and no position moved;
    // its indices are put back at the given positions (shifted as the index before it). Judged over the first three
    // indices after the run, by their turns from the index before it (the median reliable pair within 0.3 rad): all of
    // them, at least two (a real jump's later indices may coincide with the given steps, a context-parallel rank's
    // chunks: one of three rarely all).
    std::vector<long> confirmed;
    for (std::size_t k = 0; k < kept.size();) {
      std::size_t end = k + 1;
      while (end < kept.size() && kept[end] == kept[end - 1] + 1) ++end;
      const long first = kept[k], last = kept[end - 1];
      long given_fit = 0, checked = 0;
      for (long t = last + 1; t <= last + 3 && t < seq && first > 0; ++t) {
        const double step = positions[static_cast<std::size_t>(t)] - positions[static_cast<std::size_t>(first - 1)];
        if (!judged(first - 1, t, step)) continue;
        given_fit += miss_of(c, thk, step, true) <= 0.3;
        ++checked;
      }
      if (checked >= 2 && given_fit == checked) {
        const double before = p[static_cast<std::size_t>(first - 1)] - positions[static_cast<std::size_t>(first - 1)];
        for (long i = first; i <= last; ++i)
          p[static_cast<std::size_t>(i)] = positions[static_cast<std::size_t>(i)] + before;
      } else {
        confirmed.insert(confirmed.end(), kept.begin() + static_cast<long>(k), kept.begin() + static_cast<long>(end));
      }
      k = end;
    }
    id.jumps = std::move(confirmed);
  }
  if (!id.jumps.empty()) estimate(p, false);  // θ_j again on the dump's own positions
  // One offset common to every pair: c_j = arg Σ u·e^(−iθ_j m) is θ_j·k.
  {
    std::vector<double> c(static_cast<std::size_t>(n)), w(static_cast<std::size_t>(n));
    double total = 0;
    for (int j = 0; j < n; ++j) {
      Complex acc = 0;
      double mass = 0;
      for (long s = 0; s < seq; ++s) {
        acc += u[j][static_cast<std::size_t>(s)] * std::polar(1.0, -coarse[j] * p[static_cast<std::size_t>(s)]);
        mass += std::abs(u[j][static_cast<std::size_t>(s)]);
      }
      c[j] = std::arg(acc), w[j] = mass > 0 ? std::abs(acc) / mass : 0.0;
      total += w[j];
    }
    if (total > 0) {
      id.position_offset = static_cast<double>(
          detail::best_integer_shift(c, coarse, w, std::min(kMaxPositionOffset, static_cast<long>(span) + 1)));
      // The phases fit no offset within the positions' span (their weighted mean 1 − cos c_j beyond that of 0.3 rad):
      // positions forgotten or offset far beyond them (a dump at 40000 + i given 0 … n − 1): the whole
      // range is searched, so that the angles are fitted at the dump's own positions and not by a wrong base.
      double miss = 0;
      for (int j = 0; j < n; ++j) miss += w[j] * (1 - std::cos(c[j] - coarse[j] * id.position_offset));
      if (miss > (1 - std::cos(0.3)) * total) {
        id.position_offset = static_cast<double>(detail::best_integer_shift(c, coarse, w, kMaxPositionOffset));
        id.offset_beyond_span = id.position_offset != 0 && std::abs(id.position_offset) > span;
      }
    }
  }
  for (double& x : p) x += id.position_offset;
  id.dump_positions = p;
  // Least squares through the origin, unwrapping in order of |m'| from the periodogram's θ_j.
  std::stable_sort(order.begin(), order.end(), [&](long a, long b) {
    return std::abs(p[static_cast<std::size_t>(a)]) < std::abs(p[static_cast<std::size_t>(b)]);
  });
  id.theta = Eigen::VectorXd::Zero(n);
  id.angle_residual = Eigen::VectorXd::Zero(n);
  id.theta_sigma = Eigen::VectorXd::Zero(n);
  for (int j = 0; j < n; ++j) {
    std::vector<std::pair<double, double>> points;  // (m', unwrapped φ)
    double smp = 0, smm = 0, theta = coarse[j];
    for (const long s : order) {
      const double m = p[static_cast<std::size_t>(s)];
      const Complex z = u[j][static_cast<std::size_t>(s)];
      if (m == 0 || z == 0.0) continue;
      double phi = std::arg(z);
      phi += kTwoPi * std::round((theta * m - phi) / kTwoPi);
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
  detail::resolve_cluster_aliases(u, p, id);  // two clusters far apart: the frequency the far one's phases fit
  // What the positions and the signs say.
  if (!id.undetermined.empty()) {
    std::string list;
    for (std::size_t k = 0; k < id.undetermined.size() && k < 12; ++k)
      list += (k ? ", " : "") + std::to_string(id.undetermined[k]);
    if (id.undetermined.size() > 12) list += ", …";
    id.notes.push_back(
        msg("the positions cannot determine θ of pairs {0}: another frequency fits their phases as well "
            "(too few positions, or all a multiple of some step apart)",
            list));
  }
  // The positions the tokens' order plus one constant where the given ones need jumps: that constant is the reading
  // (one parameter), not the jumps and the offset that coincide with it.
  if (!id.jumps.empty() && p.size() >= 2 && p.front() != 0) {
    bool order = true;
    for (std::size_t i = 1; i < p.size() && order; ++i) order = p[i] == p.front() + static_cast<double>(i);
    if (order) id.order_offset = p.front();
  }
  if (id.order_offset) {
    id.notes.push_back(
        msg("the dump's positions are the tokens' order plus {0} ({0} … {1}): one constant over the tokens' order, "
            "where the positions given would need jumps at {2} indices (a context-parallel rank that numbered its "
            "tokens across the ranks? rope check names it positions-offset, found order_offset)",
            format_number(*id.order_offset), format_number(p.back()), id.jumps.size()));
  }
  for (const long s : id.order_offset ? std::vector<long>{} : id.jumps) {
    const auto i = static_cast<std::size_t>(s);
    // The dump's position equal to the one given there: the dump departs from the given positions before this index
    // and comes back to them here, which the departure's own note says ("0, not 0" said nothing).
    if (p[i] == positions[i] + id.position_offset) continue;
    if (p[i] <= p[i - 1]) {
      id.notes.push_back(
          msg("the positions restart at index {0}: the dump's position there is {1}, not {2} (chunked prefill "
              "or packed sequences; not a drift)",
              s, p[i], positions[i] + id.position_offset));
    } else {
      id.notes.push_back(msg("the positions jump at index {0}: the dump's position there is {1}, not {2}", s, p[i],
                             positions[i] + id.position_offset));
    }
  }
  if (id.held_from >= 0 && id.held_position != given[static_cast<std::size_t>(id.held_from)]) {
    const auto i = static_cast<std::size_t>(id.held_from);
    id.notes.push_back(
        msg("the positions stop at index {0}: from there on every vector is turned at position {1}, not {2} and beyond "
            "(a cos/sin cache of {3} positions read with its index clamped to its last row?)",
            id.held_from, id.held_position + id.position_offset, given[i] + id.position_offset,
            id.held_position + id.position_offset + 1));
  }
  if (id.offset_beyond_span) {
    id.notes.push_back(
        msg("the angles look like {0} + index, far beyond the positions given (from {1}): the positions are missing "
            "or offset; give the dump's own ({2})",
            format_number(positions.front() + id.position_offset), format_number(positions.front()),
            option_name("positions")));
  }
  if (id.position_offset != 0 && !id.order_offset) {
    const std::string k = fmt::format("{:+}", id.position_offset);
    const std::string term = fmt::format("{} {}", id.position_offset > 0 ? "+" : "−", std::abs(id.position_offset));
    id.notes.push_back(
        id.position_offset > 0
            ? msg("positions shifted by {0}: the dump rotates the vector at position m by (m {1})·θ, and "
                  "position 0 is rotated",
                  k, term)
            : msg("positions shifted by {0}: the dump rotates the vector at position m by (m {1})·θ", k, term));
  }
  // The signs that count: θ_j beyond 3σ of zero (a pair that turns too little to show in a short 16-bit dump has
  // either).
  int negative = 0, positive = 0;
  for (int j = 0; j < n; ++j) {
    if (std::abs(id.theta[j]) > 3 * id.theta_sigma[j]) (id.theta[j] < 0 ? negative : positive) += 1;
  }
  id.reversed = negative > 0 && positive == 0;
  if (id.reversed) {
    id.notes.push_back(
        msg("every pair turns clockwise (θ < 0): the rotation is reversed, by −m·θ (sin's sign flipped, or "
            "the rotation's transpose applied)"));
  } else if (negative > 0) {
    id.notes.push_back(msg("some pairs turn clockwise (negative θ): the sign convention of sin is reversed there"));
  }
}

}  // namespace rope
