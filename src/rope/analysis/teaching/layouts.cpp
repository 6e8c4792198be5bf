#include "rope/analysis/teaching/layouts.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "rope/core/apply.hpp"
#include "rope/core/constants.hpp"
#include "rope/io/csv.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/rotation.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {

namespace {

void check_settings(const LayoutsSettings& s) {
  check_dimension(s.dim, kMaxLayoutsDim);
  if (s.inv_freq) {
    if (2 * s.inv_freq->size() != s.dim) {
      throw InvalidArgument(error_msg("layouts: {0} frequencies given for dimension {1}", s.inv_freq->size(), s.dim));
    }
  } else {
    check_base(s.base);
  }
  for (const auto& [name, value] : {std::pair{"m", s.m}, std::pair{"n", s.n}}) {
    if (!std::isfinite(value) || std::abs(value) > kMaxLayoutsPosition) {
      throw InvalidArgument(error_msg("{0} must be a finite number between {1} and {2} (got {3})",
                                      fmt::format("position {}", name), fmt::format("-{:g}", kMaxLayoutsPosition),
                                      fmt::format("{:g}", kMaxLayoutsPosition), value));
    }
  }
  for (const auto& [name, v] : {std::pair{"query q", &s.q}, std::pair{"key k", &s.k}}) {
    if (!*v) continue;
    if ((*v)->size() != s.dim) {
      throw InvalidArgument(error_msg("the {0} must have d = {1} numbers (got {2})", name, s.dim, (*v)->size()));
    }
    if (!(*v)->allFinite()) throw InvalidArgument(error_msg("the {0} must hold finite numbers", name));
  }
  if (s.max_distance < 0 || s.max_distance > kMaxLayoutsDistance) {
    throw InvalidArgument(
        error_msg("max-distance must be between {0} and {1} (got {2})", 0, kMaxLayoutsDistance, s.max_distance));
  }
}

/// x in the half layout: (P x)_c = x_{perm[c]}. A copy, no arithmetic.
Eigen::VectorXd permute(const Eigen::VectorXd& x, const std::vector<int>& perm) {
  Eigen::VectorXd y(x.size());
  for (Eigen::Index c = 0; c < x.size(); ++c) y[c] = x[perm[static_cast<std::size_t>(c)]];
  return y;
}

/// Running maximum of one identity check.
class IdentityRow {
 public:
  explicit IdentityRow(Layout layout) { check_.layout = layout; }
  void add(double lhs, double rhs, double budget) {
    ++check_.samples;
    check_.check.difference = std::max(check_.check.difference, std::abs(lhs - rhs));
    budget_ = std::max(budget_, budget);
  }
  LayoutIdentityCheck result(int d, double scale) const {
    LayoutIdentityCheck c = check_;
    c.check.scale = scale;
    c.check.tolerance = relative_tolerance(machine_epsilon<double>(), d, budget_);  // (M13)
    return c;
  }

 private:
  LayoutIdentityCheck check_;
  double budget_ = 0.0;
};

}  // namespace

std::vector<int> layout_perm(int d) {
  check_dimension(d);
  std::vector<int> perm(static_cast<std::size_t>(d));
  for (int i = 0; i < d / 2; ++i) {
    perm[static_cast<std::size_t>(i)] = 2 * i;              // (P x)_i = x_{2i}          (M6)
    perm[static_cast<std::size_t>(i + d / 2)] = 2 * i + 1;  // (P x)_{i+d/2} = x_{2i+1}
  }
  return perm;
}

LayoutScores layout_scores(const Eigen::VectorXd& theta, const Eigen::VectorXd& q, const Eigen::VectorXd& k, double m,
                           double n) {
  if (q.size() != 2 * theta.size() || k.size() != 2 * theta.size()) {
    throw InvalidArgument(
        error_msg("q and k must have length d = 2 × {0} (got {1} and {2})", theta.size(), q.size(), k.size()));
  }
  const std::vector<int> perm = layout_perm(static_cast<int>(q.size()));
  const Eigen::VectorXd Pq = permute(q, perm);
  const Eigen::VectorXd Pk = permute(k, perm);
  LayoutScores s;
  s.interleaved = pair_dot(apply_rotary(q, theta, m, Layout::Interleaved),
                           apply_rotary(k, theta, n, Layout::Interleaved), Layout::Interleaved);
  s.mixed = pair_dot(apply_rotary(q, theta, m, Layout::Half), apply_rotary(k, theta, n, Layout::Half), Layout::Half);
  s.fixed = pair_dot(apply_rotary(Pq, theta, m, Layout::Half), apply_rotary(Pk, theta, n, Layout::Half), Layout::Half);
  return s;
}

bool LayoutsDemo::passed() const {
  return max_fixed_change == 0.0 && conjugation_error == 0.0 && identity_interleaved.check.passed() &&
         identity_half.check.passed();
}

LayoutsDemo layouts_demo(const LayoutsSettings& s) {
  check_settings(s);
  LayoutsDemo demo;
  demo.settings = s;
  const int d = s.dim;
  demo.dim = d;
  demo.theta = s.inv_freq ? *s.inv_freq : frequencies(d, s.base);
  const Eigen::VectorXd& theta = demo.theta;

  Random rng(s.seed);
  demo.q.resize(d);
  demo.k.resize(d);
  for (int c = 0; c < d; ++c) demo.q[c] = rng.normal();
  for (int c = 0; c < d; ++c) demo.k[c] = rng.normal();
  if (s.q) demo.q = *s.q;
  if (s.k) demo.k = *s.k;
  const Eigen::VectorXd& q = demo.q;
  const Eigen::VectorXd& k = demo.k;
  const std::vector<int> perm = layout_perm(d);
  const Eigen::VectorXd Pq = permute(q, perm);
  const Eigen::VectorXd Pk = permute(k, perm);

  IdentityRow identity_int(Layout::Interleaved);
  IdentityRow identity_half(Layout::Half);
  // (M8) on one pair of positions, in both layouts; M = |m| + |n| + |n − m| (M13).
  const auto check_identity = [&](double m, double n, const LayoutScores& scores) {
    const double budget = std::abs(m) + std::abs(n) + std::abs(n - m);
    identity_int.add(scores.interleaved,
                     pair_dot(q, apply_rotary(k, theta, n - m, Layout::Interleaved), Layout::Interleaved), budget);
    identity_half.add(scores.mixed, pair_dot(q, apply_rotary(k, theta, n - m, Layout::Half), Layout::Half), budget);
  };

  demo.at = layout_scores(theta, q, k, s.m, s.n);
  check_identity(s.m, s.n, demo.at);
  demo.max_fixed_change = std::abs(demo.at.fixed - demo.at.interleaved);

  // The sweep: the query's rotations are the same for every δ.
  const Eigen::Index rows = s.max_distance + 1;
  demo.distances.resize(rows);
  demo.score_interleaved.resize(rows);
  demo.score_mixed.resize(rows);
  demo.score_fixed.resize(rows);
  const Eigen::VectorXd q_int = apply_rotary(q, theta, s.m, Layout::Interleaved);
  const Eigen::VectorXd q_half = apply_rotary(q, theta, s.m, Layout::Half);
  const Eigen::VectorXd Pq_half = apply_rotary(Pq, theta, s.m, Layout::Half);
  double sum_change = 0.0;
  for (Eigen::Index r = 0; r < rows; ++r) {
    const double delta = static_cast<double>(r);
    const double n = s.m + delta;
    LayoutScores scores;
    scores.interleaved = pair_dot(q_int, apply_rotary(k, theta, n, Layout::Interleaved), Layout::Interleaved);
    scores.mixed = pair_dot(q_half, apply_rotary(k, theta, n, Layout::Half), Layout::Half);
    scores.fixed = pair_dot(Pq_half, apply_rotary(Pk, theta, n, Layout::Half), Layout::Half);
    demo.distances[r] = delta;
    demo.score_interleaved[r] = scores.interleaved;
    demo.score_mixed[r] = scores.mixed;
    demo.score_fixed[r] = scores.fixed;
    const double change = std::abs(scores.mixed - scores.interleaved);
    demo.max_mixed_change = std::max(demo.max_mixed_change, change);
    sum_change += change;
    demo.max_fixed_change = std::max(demo.max_fixed_change, std::abs(scores.fixed - scores.interleaved));
    check_identity(s.m, n, scores);
  }
  demo.mean_mixed_change = sum_change / static_cast<double>(rows);

  const double scale = q.norm() * k.norm();
  demo.identity_interleaved = identity_int.result(d, scale);
  demo.identity_half = identity_half.result(d, scale);

  // (M6) on the dense matrices: P only moves entries, so the difference is exactly 0.
  const Eigen::PermutationMatrix<Eigen::Dynamic> P = layout_permutation(d);
  for (double p : {s.m, s.n}) {
    const Eigen::MatrixXd conjugated = P * rotation_matrix<double>(theta, p, Layout::Interleaved) * P.transpose();
    const Eigen::MatrixXd half = rotation_matrix<double>(theta, p, Layout::Half);
    demo.conjugation_error = std::max(demo.conjugation_error, (half - conjugated).cwiseAbs().maxCoeff());
  }
  return demo;
}

LayoutCache layout_cache(const Eigen::VectorXd& theta, int positions) {
  const int half = static_cast<int>(theta.size());
  if (half < 1) throw InvalidArgument(error_msg("the cos/sin cache needs at least one frequency"));
  if (positions < 1 || positions > 4096) {
    throw InvalidArgument(error_msg("{0} must be between {1} and {2} (got {3})", "positions", 1, 4096, positions));
  }
  const int d = 2 * half;
  LayoutCache cache;
  cache.dim = d;
  cache.positions = positions;
  const auto table = [&](CacheTable kind, int width, auto pair_of, int a, int b) {
    LayoutCacheTable t;
    t.kind = kind;
    t.cos.resize(positions, width);
    t.sin.resize(positions, width);
    t.angle.resize(positions, width);
    for (int m = 0; m < positions; ++m) {
      for (int c = 0; c < width; ++c) {
        const double angle = m * theta[pair_of(c)];
        t.cos(m, c) = std::cos(angle);
        t.sin(m, c) = std::sin(angle);
        t.angle(m, c) = std::remainder(angle, 2 * kPi) / kPi;  // (−π, π] over π
      }
    }
    t.partner_a = a;
    t.partner_b = b;
    cache.tables.push_back(std::move(t));
  };
  table(
      CacheTable::Half, d, [half](int c) { return c % half; }, 0, half);
  table(
      CacheTable::Interleaved, d, [](int c) { return c / 2; }, 0, 1);
  table(
      CacheTable::HalfWidth, half, [](int c) { return c; }, 0, 0);
  return cache;
}

}  // namespace rope
