// The sweeps of decay_sweep.hpp: (M11) and (M14) at evenly spaced distances by angle addition from anchors, the
// pairs' sums over 8 distances at a time (vectorized, a copy per x86-64 level), the anchors over threads for a long
// curve. Compiled without FMA contraction, as decay.cpp (src/CMakeLists.txt), so that the values do not depend on the
// CPU.
#include "rope/analysis/calculators/decay_sweep.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "rope/analysis/calculators/decay.hpp"
#include "rope/core/simd.hpp"
#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#include "rope/core/workers.hpp"
#endif

namespace rope {
namespace {

constexpr int kLanes = 8;  // distances per vectorized sweep over the pairs
/// Terms below which one thread sweeps alone (2^21, about 1.5 ms of one core). Above it plain threads take blocks of
/// anchors from a counter (core/workers.hpp): a thread that has finished is joined, where an OpenMP team's would spin
/// at its barrier while the other, on a loaded machine, waits its turn.
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

Eigen::VectorXd decay_bound_linspace(const Eigen::VectorXd& theta, double stop, long points) {
  return anchored_sweep(theta, stop, points, decay_lanes, [&](double m) { return decay_bound(theta, m); });
}

Eigen::VectorXd ones_score_linspace(const Eigen::VectorXd& theta, double stop, long points) {
  return anchored_sweep(theta, stop, points, ones_lanes, [&](double m) { return ones_score(theta, m); });
}

}  // namespace rope
