#include "rope/analysis/calculators/decay.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>
#include <fmt/format.h>

#include "rope/core/error.hpp"
#include "rope/core/random.hpp"
#include "rope/core/simd.hpp"
#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#include "rope/core/workers.hpp"
#endif

namespace rope {

double decay_bound(const Eigen::VectorXd& theta, double m) {
  const Eigen::Index half = theta.size();
  double re = 0.0;
  double im = 0.0;
  double total = 0.0;
  // (M11): the inner sums for j and j+1 differ by one term, so keep the running sum S_j = Σ_{i<=j}.
  for (Eigen::Index i = 0; i < half; ++i) {
    const double angle = m * theta[i];
    re += std::cos(angle);
    im += std::sin(angle);
    total += std::hypot(re, im);
  }
  return total / static_cast<double>(half);
}

Eigen::VectorXd decay_bound(const Eigen::VectorXd& theta, const Eigen::VectorXd& distances) {
  Eigen::VectorXd f(distances.size());
  for (Eigen::Index k = 0; k < distances.size(); ++k) f[k] = decay_bound(theta, distances[k]);
  return f;
}

namespace {

void check_linspace(double stop, long points) {
  if (points < 1) {
    throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", "number of points", 1, points));
  }
  if (!std::isfinite(stop) || stop < 0.0) {
    throw InvalidArgument(error_msg("maximum distance must be a finite number >= 0 (got {0})", stop));
  }
}

constexpr int kLanes = 8;  // distances per vectorized sweep over the pairs
/// Terms below which one thread sweeps alone (2^21, about 1.5 ms of one core). Above it the anchors are shared by
/// plain threads taking blocks from a counter (core/workers.hpp), not an OpenMP team: `rope decay` at 100 000 points
/// × 64 pairs (6.4·10^6 terms, ~5 ms) spent more CPU in OpenMP's barrier (a finished thread spinning while the other,
/// on a loaded machine, waits its turn) than the second thread saved (issue 78 item 5: 41 ms of CPU with two OpenMP
/// threads, 29 ms with one); a joined thread does not spin.
constexpr double kParallelWork = 1 << 21;
/// Anchors a worker takes at a time.
constexpr long kAnchorBlock = 8;

/// f at the kLanes distances whose terms are A_i·B_{b+l,i}, l = 0 … kLanes−1 (decay_bound_linspace):
/// B is stored transposed, bt[i·K + b], so the lanes are contiguous.
ROPE_CLONES void decay_lanes(const double* a_cos, const double* a_sin, const double* bt_cos, const double* bt_sin,
                             int half, long anchor, long b, double* f) {
  double re[kLanes] = {}, im[kLanes] = {}, total[kLanes] = {};
  for (int i = 0; i < half; ++i) {
    const double ac = a_cos[i], as = a_sin[i];
    const double* bc = bt_cos + i * anchor + b;
    const double* bs = bt_sin + i * anchor + b;
    for (int l = 0; l < kLanes; ++l) {
      re[l] += ac * bc[l] - as * bs[l];  // Re e^{i(aKΔ + bΔ)θ_i}, (M11)'s running sum
      im[l] += as * bc[l] + ac * bs[l];
      total[l] += __builtin_sqrt(re[l] * re[l] + im[l] * im[l]);
    }
  }
  for (int l = 0; l < kLanes; ++l) f[l] = total[l] / static_cast<double>(half);
}

}  // namespace

long decay_anchor(long points) {
  // About √points, so that the directly computed rows (points/K anchors + K steps) are fewest; a
  // multiple of the lane count, at most kDecayAnchor.
  long k = static_cast<long>(std::ceil(std::sqrt(static_cast<double>(points)) / kLanes)) * kLanes;
  return std::clamp(k, static_cast<long>(kLanes), kDecayAnchor);
}

namespace {

/// The anchored angle-addition sweep of decay_bound_linspace and ones_score_linspace: at the distance
/// k·Δ = (aK + b)·Δ every term is A_{a,i}·B_{b,i} with A = e^{i·aKΔ·θ_i} (computed directly per anchor)
/// and B = e^{i·bΔ·θ_i} (a table of K columns); `lanes` turns kLanes such distances into values, and
/// `direct` gives the value at one distance (the last point is computed directly, exactly at `stop`).
template <typename Lanes, typename Direct>
Eigen::VectorXd anchored_sweep(const Eigen::VectorXd& theta, double stop, long points, Lanes lanes, Direct direct) {
  check_linspace(stop, points);
  Eigen::VectorXd out(points);
  if (points < 2) {
    out[0] = direct(0.0);  // linspace(stop, 1) is {0}
    return out;
  }
  const int half = static_cast<int>(theta.size());
  const double step = stop / static_cast<double>(points - 1);  // linspace's k-th distance is k·step, the last stop
  const long K = decay_anchor(points);
  std::vector<double> bt_cos(half * K), bt_sin(half * K);
  for (int i = 0; i < half; ++i) {
    for (long b = 0; b < K; ++b) {
      const double angle = (static_cast<double>(b) * step) * theta[i];
      bt_cos[i * K + b] = std::cos(angle);
      bt_sin[i * K + b] = std::sin(angle);
    }
  }
  const long anchors = (points + K - 1) / K;
  const auto sweep = [&](long a) {
    std::vector<double> a_cos(half), a_sin(half);
    const double m = a * K == points - 1 ? stop : static_cast<double>(a * K) * step;  // linspace(stop, points)[a·K]
    for (int i = 0; i < half; ++i) {
      a_cos[i] = std::cos(m * theta[i]);
      a_sin[i] = std::sin(m * theta[i]);
    }
    const long first = a * K;
    const long last = std::min(points, first + K);
    double values[kLanes];
    for (long k = first; k < last; k += kLanes) {
      lanes(a_cos.data(), a_sin.data(), bt_cos.data(), bt_sin.data(), half, K, k - first, values);
      for (long l = 0; l < kLanes && k + l < last; ++l) out[k + l] = values[l];
    }
  };
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  for (long a = 0; a < anchors; ++a) sweep(a);  // the live page's WebAssembly has no threads
#else
  // Threads only for enough work (kParallelWork); each anchor's values are the same whichever thread sweeps it.
  const long blocks = (anchors + kAnchorBlock - 1) / kAnchorBlock;
  std::atomic<long> next{0};
  run_workers(static_cast<double>(points) * half >= kParallelWork ? worker_count(blocks) : 1, [&](int) {
    for (long b = next++; b < blocks; b = next++) {
      for (long a = b * kAnchorBlock; a < std::min(anchors, (b + 1) * kAnchorBlock); ++a) sweep(a);
    }
  });
#endif
  out[points - 1] = direct(stop);  // exactly at `stop`, as linspace's last distance
  return out;
}

}  // namespace

Eigen::VectorXd decay_bound_linspace(const Eigen::VectorXd& theta, double stop, long points) {
  return anchored_sweep(theta, stop, points, decay_lanes, [&](double m) { return decay_bound(theta, m); });
}

double ones_score(const Eigen::VectorXd& theta, double m) {
  double sum = 0.0;
  for (Eigen::Index i = 0; i < theta.size(); ++i) sum += std::cos(m * theta[i]);
  return 2.0 * sum;  // (M14): both channels of pair i contribute cos(mθ_i)
}

namespace {

/// 2·Σ_i Re(A_i·B_{b+l,i}) at kLanes distances: the all-ones score (M14) by the same anchors.
ROPE_CLONES void ones_lanes(const double* a_cos, const double* a_sin, const double* bt_cos, const double* bt_sin,
                            int half, long anchor, long b, double* s) {
  double sum[kLanes] = {};
  for (int i = 0; i < half; ++i) {
    const double ac = a_cos[i], as = a_sin[i];
    const double* bc = bt_cos + i * anchor + b;
    const double* bs = bt_sin + i * anchor + b;
    for (int l = 0; l < kLanes; ++l) sum[l] += ac * bc[l] - as * bs[l];  // cos((aK + b)Δ·θ_i)
  }
  for (int l = 0; l < kLanes; ++l) s[l] = 2.0 * sum[l];
}

}  // namespace

Eigen::VectorXd ones_score_linspace(const Eigen::VectorXd& theta, double stop, long points) {
  return anchored_sweep(theta, stop, points, ones_lanes, [&](double m) { return ones_score(theta, m); });
}

Eigen::VectorXd ones_score(const Eigen::VectorXd& theta, const Eigen::VectorXd& distances) {
  Eigen::VectorXd s(distances.size());
  for (Eigen::Index k = 0; k < distances.size(); ++k) s[k] = ones_score(theta, distances[k]);
  return s;
}

double decay_work(DecayPath path, long points, long pairs, long samples) {
  double per_term = 1.0;
  switch (path) {
    case DecayPath::Recurrence:
      per_term = 1.0;
      break;
    case DecayPath::OnesDirect:
      per_term = 4.0;
      break;
    case DecayPath::BoundDirect:
      per_term = 10.0;
      break;
    case DecayPath::Random:
      per_term = 10.0 + 0.5 * static_cast<double>(samples);
      break;
  }
  return static_cast<double>(points) * static_cast<double>(pairs) * per_term;
}

void check_decay_work(DecayPath path, long points, long pairs, long samples, long curves) {
  const double work = static_cast<double>(curves) * decay_work(path, points, pairs, samples);
  if (work > kMaxDecayWork) {
    throw InvalidArgument(error_msg(
        "{0} {1} × d/2 = {2} pairs × {3} curves is {4} units of work, over the limit of {5} (kMaxDecayWork, about "
        "30 s): use fewer points, a smaller {6}, or fewer curves ({7} values, {8})",
        option_name("points"), points, pairs, curves, fmt::format("{:.3g}", work), fmt::format("{:g}", kMaxDecayWork),
        option_name("dim"), option_name("base"), option_name("frames")));
  }
}

RandomScores random_scores(const Eigen::VectorXd& theta, const Eigen::VectorXd& distances, long samples,
                           std::uint64_t seed) {
  const Eigen::Index half = theta.size();
  if (samples < 2) throw InvalidArgument(error_msg("{0} must be >= {1} (got {2})", "samples", 2, samples));
  const double work = static_cast<double>(samples) * static_cast<double>(distances.size()) * static_cast<double>(half);
  if (work > kMaxRandomWork) {
    throw InvalidArgument(error_msg("samples × points × d/2 = {0} exceeds the limit {1}: use fewer samples or points",
                                    fmt::format("{:.3g}", work), fmt::format("{:.0e}", kMaxRandomWork)));
  }
  // (M15): A(s, i) and B(s, i) for each sample s; q and k are drawn pair by pair.
  Random rng(seed);
  Eigen::MatrixXd A(samples, half), B(samples, half);
  for (long s = 0; s < samples; ++s) {
    for (Eigen::Index i = 0; i < half; ++i) {
      const double qa = rng.normal(), qb = rng.normal(), ka = rng.normal(), kb = rng.normal();
      A(s, i) = qa * ka + qb * kb;
      B(s, i) = qa * kb - qb * ka;
    }
  }
  RandomScores out{Eigen::VectorXd(distances.size()), Eigen::VectorXd(distances.size())};
  Eigen::VectorXd c(half), sn(half);
  for (Eigen::Index k = 0; k < distances.size(); ++k) {
    for (Eigen::Index i = 0; i < half; ++i) {
      c[i] = std::cos(distances[k] * theta[i]);
      sn[i] = std::sin(distances[k] * theta[i]);
    }
    const Eigen::VectorXd scores = A * c + B * sn;
    const double mean = scores.mean();
    out.mean[k] = mean;
    out.stddev[k] = std::sqrt((scores.array() - mean).square().sum() / static_cast<double>(samples - 1));
  }
  return out;
}

Eigen::VectorXd logspace(double stop, long points) {
  if (points < 2) throw InvalidArgument(error_msg("a log-spaced grid needs >= 2 points (got {0})", points));
  if (!std::isfinite(stop) || !(stop > 1.0)) {
    throw InvalidArgument(error_msg("a log-spaced grid needs a maximum distance > 1 (got {0})", stop));
  }
  Eigen::VectorXd x(points);
  const double step = std::log10(stop) / static_cast<double>(points - 1);
  for (long k = 0; k < points; ++k) x[k] = std::pow(10.0, static_cast<double>(k) * step);
  x[0] = 1.0;
  x[points - 1] = stop;
  return x;
}

Eigen::VectorXd linspace(double stop, long points) {
  check_linspace(stop, points);
  Eigen::VectorXd x(points);
  if (points == 1) {
    x[0] = 0.0;
    return x;
  }
  const double step = stop / static_cast<double>(points - 1);
  for (long k = 0; k < points; ++k) x[k] = static_cast<double>(k) * step;
  x[points - 1] = stop;
  return x;
}

}  // namespace rope
