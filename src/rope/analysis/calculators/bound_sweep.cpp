// The sweep of bound_sweep.hpp: B(m) over blocks of K consecutive m by angle addition, a matrix product per batch of
// blocks (C3), the blocks whose lower bound (C4) exceeds the smallest value found so far skipped, and the bases of a
// scan over threads.
#include "rope/analysis/calculators/bound_sweep.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <fmt/format.h>
#include <limits>
#include <numeric>
#include <thread>

#include "rope/core/constants.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/types.hpp"

namespace rope {

namespace {

/// K: consecutive m per block of (C3) and (C4). Small blocks make the lower bound (C4) tight (few
/// pairs sweep a half turn in 31 steps), large ones make the product (C3) efficient; 32 measured best.
constexpr long kBlock = 32;
/// Blocks evaluated by one matrix product.
constexpr Eigen::Index kBatch = 64;
/// The lower-bound pass carries each pair's anchor e^{i·m0·θ} from block to block by one complex
/// multiplication and recomputes it with std::cos/std::sin every kReanchor blocks, so its error stays
/// below about 64·4ε per pair.
constexpr long kReanchor = 64;
/// Slack per pair added to the best value before a block is skipped: 30 times that error, so that the
/// skipped blocks provably cannot hold the minimum.
constexpr double kSkipMarginPerPair = 1e-12;

/// The block evaluation (C3): table(k, i) = cos(kθ_i), table(k, n + i) = −sin(kθ_i) for k < K, and
/// for block j the anchor column (cos(m0θ_i); sin(m0θ_i)), m0 = jK, so that table · anchor holds
/// B(m0), …, B(m0 + K − 1).
class BlockEvaluator {
 public:
  explicit BlockEvaluator(const Eigen::VectorXd& theta) : theta_(theta), n_(theta.size()), table_(kBlock, 2 * n_) {
    for (long k = 0; k < kBlock; ++k) {
      for (Eigen::Index i = 0; i < n_; ++i) {
        const double angle = static_cast<double>(k) * theta_[i];
        table_(k, i) = std::cos(angle);
        table_(k, n_ + i) = -std::sin(angle);
      }
    }
  }

  /// Fills column `col` of `anchors` for block j, with one std::cos and std::sin per pair: the angle
  /// is rounded as in the direct form, fl(m0·θ_i).
  void anchor(long j, Eigen::MatrixXd& anchors, Eigen::Index col) const {
    const double m0 = static_cast<double>(j * kBlock);
    for (Eigen::Index i = 0; i < n_; ++i) {
      const double angle = m0 * theta_[i];
      anchors(i, col) = std::cos(angle);
      anchors(n_ + i, col) = std::sin(angle);
    }
  }

  /// values.col(c) = B over block blocks[c], for c < count.
  void evaluate(const long* blocks, Eigen::Index count, Eigen::MatrixXd& anchors, Eigen::MatrixXd& values) const {
    for (Eigen::Index c = 0; c < count; ++c) anchor(blocks[c], anchors, c);
    values.leftCols(count).noalias() = table_ * anchors.leftCols(count);
  }

  Eigen::Index pairs() const { return n_; }

 private:
  const Eigen::VectorXd& theta_;
  Eigen::Index n_;
  Eigen::MatrixXd table_;
};

/// For every block j the lower bound (C4) of B over m ∈ [jK, jK + K − 1]: the sum over pairs of the
/// minimum of cos over the arc [m0θ_i, (m0 + K − 1)θ_i], which is −1 if the arc is at least a half
/// turn or passes through π, else the smaller end.
std::vector<double> block_lower_bounds(const Eigen::VectorXd& theta, long blocks) {
  // Pairs whose arc spans a half turn or more contribute −1 to every block; the others are tracked.
  std::vector<double> slow;
  double fast_pairs = 0;
  for (Eigen::Index i = 0; i < theta.size(); ++i) {
    if (static_cast<double>(kBlock - 1) * theta[i] >= kPi) {
      fast_pairs += 1;
    } else {
      slow.push_back(theta[i]);
    }
  }
  const Eigen::Index n = static_cast<Eigen::Index>(slow.size());
  const Eigen::ArrayXd th = Eigen::Map<const Eigen::ArrayXd>(slow.data(), n);
  const Eigen::ArrayXd step_c = (static_cast<double>(kBlock) * th).cos(),
                       step_s = (static_cast<double>(kBlock) * th).sin();
  const Eigen::ArrayXd end_c = (static_cast<double>(kBlock - 1) * th).cos(),
                       end_s = (static_cast<double>(kBlock - 1) * th).sin();
  Eigen::ArrayXd c(n), s(n), value(n);
  std::vector<double> lower(static_cast<std::size_t>(blocks));
  for (long j = 0; j < blocks; ++j) {
    if (j % kReanchor == 0) {
      const double m0 = static_cast<double>(j * kBlock);
      for (Eigen::Index i = 0; i < n; ++i) {
        c[i] = std::cos(m0 * th[i]);
        s[i] = std::sin(m0 * th[i]);
      }
    }
    // One pass over the pairs: the arc's end, the bound, the next anchor (× e^{iKθ}). An arc shorter
    // than a half turn passes through π exactly when it leaves the upper half plane for the lower
    // one (turning counter-clockwise it cannot reach the lower half through 0); s ≥ 0 and se ≤ 0 is
    // min(s, −se) ≥ 0, one comparison, so that the loop vectorizes.
    // Raw pointers, not Eigen's operator[]: the same arithmetic, but a build that does not inline (the sanitizer
    // tree's -O1) called a function for every element, most of `rope lesson`'s time there.
    double *cp = c.data(), *sp = s.data(), *vp = value.data();
    const double *ec = end_c.data(), *es = end_s.data(), *tc = step_c.data(), *ts = step_s.data();
    for (Eigen::Index i = 0; i < n; ++i) {
      const double ce = cp[i] * ec[i] - sp[i] * es[i];  // cos and sin at the block's last m
      const double se = sp[i] * ec[i] + cp[i] * es[i];
      const double through_pi = std::min(sp[i], -se) >= 0.0 ? -1.0 : 1.0;
      vp[i] = std::min(std::min(cp[i], ce), through_pi);
      const double cn = cp[i] * tc[i] - sp[i] * ts[i];
      sp[i] = sp[i] * tc[i] + cp[i] * ts[i];
      cp[i] = cn;
    }
    lower[static_cast<std::size_t>(j)] = value.sum() - fast_pairs;
  }
  return lower;
}

long block_count(long L) { return L / kBlock + 1; }

}  // namespace

Eigen::VectorXd bound_sums(const Eigen::VectorXd& theta, long L) {
  check_bound_context(L);
  check_bound_theta(theta);
  const BlockEvaluator eval(theta);
  const long blocks = block_count(L);
  Eigen::VectorXd out(L + 1);
  Eigen::MatrixXd anchors(2 * eval.pairs(), kBatch), values(kBlock, kBatch);
  std::vector<long> ids(kBatch);
  for (long first = 0; first < blocks; first += kBatch) {
    const Eigen::Index count = std::min<long>(kBatch, blocks - first);
    std::iota(ids.begin(), ids.end(), first);
    eval.evaluate(ids.data(), count, anchors, values);
    for (Eigen::Index c = 0; c < count; ++c) {
      const long m0 = (first + c) * kBlock;
      for (long k = 0; k < kBlock && m0 + k <= L; ++k) out[m0 + k] = values(k, c);
    }
  }
  return out;
}

BoundMinimum bound_minimum(const Eigen::VectorXd& theta, long L) {
  check_bound_context(L);
  check_bound_theta(theta);
  const BlockEvaluator eval(theta);
  const long blocks = block_count(L);
  const std::vector<double> lower = block_lower_bounds(theta, blocks);  // (C4)
  const double margin = kSkipMarginPerPair * static_cast<double>(theta.size());

  BoundMinimum best{std::numeric_limits<double>::infinity(), -1};
  Eigen::MatrixXd anchors(2 * eval.pairs(), kBatch), values(kBlock, kBatch);
  const auto run = [&](const long* ids, Eigen::Index count) {
    eval.evaluate(ids, count, anchors, values);
    for (Eigen::Index c = 0; c < count; ++c) {
      const long m0 = ids[c] * kBlock;
      const double* column = values.data() + c * values.rows();  // column-major: block c's values in a row
      for (long k = 0; k < kBlock && m0 + k <= L; ++k) {
        const double v = column[k];
        if (v < best.value || (v == best.value && m0 + k < best.at)) best = {v, m0 + k};
      }
    }
  };
  // The blocks with the smallest lower bounds first: they give a small best value early.
  std::vector<long> order(static_cast<std::size_t>(blocks));
  std::iota(order.begin(), order.end(), 0L);
  const auto by_bound = [&](long a, long b) {
    return lower[static_cast<std::size_t>(a)] < lower[static_cast<std::size_t>(b)] ||
           (lower[static_cast<std::size_t>(a)] == lower[static_cast<std::size_t>(b)] && a < b);
  };
  const std::size_t head = std::min<std::size_t>(kBatch, order.size());
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(head) - 1, order.end(), by_bound);
  run(order.data(), static_cast<Eigen::Index>(head));
  // Every other block that could hold a value ≤ best, in order of its bound; stop at the first
  // whose bound exceeds the best value found so far.
  std::vector<long> rest;
  for (std::size_t p = head; p < order.size(); ++p) {
    if (lower[static_cast<std::size_t>(order[p])] <= best.value + margin) rest.push_back(order[p]);
  }
  std::sort(rest.begin(), rest.end(), by_bound);
  for (std::size_t p = 0; p < rest.size(); p += kBatch) {
    if (lower[static_cast<std::size_t>(rest[p])] > best.value + margin) break;
    run(rest.data() + p, static_cast<Eigen::Index>(std::min<std::size_t>(kBatch, rest.size() - p)));
  }
  return best;
}

BoundScan scan_bound(int d, long L, double lo, double hi, int per_decade) {
  check_dimension(d);
  check_bound_context(L);
  BoundScan scan;
  scan.dim = d;
  scan.context = L;
  scan.per_decade = per_decade;
  scan.bases = base_grid(lo, hi, per_decade);
  const std::size_t count = scan.bases.size();
  const double terms = (d / 2.0) * (static_cast<double>(L) + 1) * static_cast<double>(count);
  if (terms > kMaxBoundWork) {
    throw InvalidArgument(error_msg(
        "the scan would evaluate (d/2)·(L+1)·(grid points) = {0} terms, more than {1}: lower d, L or the grid",
        fmt::format("{:.3g}", terms), fmt::format("{:g}", kMaxBoundWork)));
  }
  std::vector<Eigen::VectorXd> thetas;
  thetas.reserve(count);
  for (double b : scan.bases) thetas.push_back(frequencies(d, b));
  scan.minimum.resize(count);
  // Each base is independent: workers take the next base from a shared counter. The result does
  // not depend on the number of workers.
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> failed(count);
  const auto work = [&] {
    for (std::size_t b; (b = next.fetch_add(1)) < count;) {
      try {
        scan.minimum[b] = bound_minimum(thetas[b], L);
      } catch (...) {
        failed[b] = std::current_exception();
      }
    }
  };
  const unsigned workers =
      std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(count)));
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  for (const auto& e : failed) {
    if (e) std::rethrow_exception(e);
  }

  for (std::size_t b = 0; b < count; ++b) {
    if (!scan.minimum[b].passes()) continue;
    if (b == 0 || !scan.minimum[b - 1].passes()) {
      scan.pass_intervals.push_back({scan.bases[b], scan.bases[b]});
    } else {
      scan.pass_intervals.back().second = scan.bases[b];
    }
  }
  if (!scan.pass_intervals.empty()) {
    scan.smallest_passing = scan.pass_intervals.front().first;
    if (scan.minimum.back().passes()) scan.always_passes_from = scan.pass_intervals.back().first;
  }
  return scan;
}

}  // namespace rope
