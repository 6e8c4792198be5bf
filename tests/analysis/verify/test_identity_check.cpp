#include "rope/analysis/verify/identity_check.hpp"

#include <cmath>
#include <gtest/gtest.h>

#include "rope/core/apply.hpp"
#include "rope/core/error.hpp"
#include "rope/core/frequencies.hpp"
#include "rope/core/tolerance.hpp"

namespace rope {
namespace {

TEST(IdentityCheck, SidesEqualApplyRotaryOnTheSameDraws) {
  for (int d : {16, 128}) {
    const Eigen::VectorXd theta = frequencies(d, 1e4);
    const long max_position = 1000;
    const auto table = cos_sin_table<double>(theta, max_position);
    RandomLanes rng(batch_seed(9, 0));
    PairBatch batch;
    draw_pair_batch(rng, d, max_position, batch);
    ASSERT_EQ(batch.pairs, kCheckBatch);
    double lhs[kCheckBatch], rhs[kCheckBatch], scale[kCheckBatch];
    relative_position_sides(table, batch, lhs, rhs, scale);
    for (long t = 0; t < batch.pairs; ++t) {
      const Eigen::Map<const Eigen::VectorXd> q(batch.q.data() + t * d, d), k(batch.k.data() + t * d, d);
      const double m = static_cast<double>(batch.m[t]), n = static_cast<double>(batch.n[t]);
      ASSERT_LT(m, max_position);
      ASSERT_LT(n, max_position);
      const Eigen::VectorXd qv = q, kv = k;
      const double expected_lhs =
          apply_rotary(qv, theta, m, Layout::Interleaved).dot(apply_rotary(kv, theta, n, Layout::Interleaved));
      const double expected_rhs = qv.dot(apply_rotary(kv, theta, n - m, Layout::Interleaved));
      const double s = qv.norm() * kv.norm();
      const double tol = relative_tolerance(machine_epsilon<double>(), d, 2.0 * max_position) * s;
      EXPECT_NEAR(lhs[t], expected_lhs, tol) << "pair " << t;
      EXPECT_NEAR(rhs[t], expected_rhs, tol) << "pair " << t;
      EXPECT_NEAR(scale[t], s, 1e-12 * s);
    }
  }
}

TEST(IdentityCheck, PassesIsReproducibleAndRoundsUpToBatches) {
  const Eigen::VectorXd theta = frequencies(128, 1e4);
  const RelativeCheck a = check_relative_position(theta, 1000, 4096, 3);
  const RelativeCheck b = check_relative_position(theta, 1000, 4096, 3);
  const RelativeCheck c = check_relative_position(theta, 1000, 4096, 4);
  EXPECT_EQ(a.pairs, 1024);
  EXPECT_TRUE(a.check.passed()) << a.check.relative_error() << " > " << a.check.tolerance;
  EXPECT_GT(a.check.relative_error(), 0.0);
  EXPECT_EQ(a.check.relative_error(), b.check.relative_error());
  EXPECT_NE(a.check.relative_error(), c.check.relative_error());
  EXPECT_DOUBLE_EQ(a.check.tolerance, relative_tolerance(machine_epsilon<double>(), 128, 2 * 4096.0));
}

TEST(IdentityCheck, DetectsAWrongRotation) {
  // A table with one wrong row (the angle of position 3 off by 1e-6) must make the sides differ.
  const Eigen::VectorXd theta = frequencies(16, 1e4);
  auto table = cos_sin_table<double>(theta, 8);
  for (int i = 0; i < 8; ++i) {
    table.cos[3 * 8 + i] = std::cos(3 * theta[i] + 1e-6);
    table.sin[3 * 8 + i] = std::sin(3 * theta[i] + 1e-6);
  }
  RandomLanes rng(1);
  PairBatch batch;
  draw_pair_batch(rng, 16, 8, batch);
  double lhs[kCheckBatch], rhs[kCheckBatch], scale[kCheckBatch];
  relative_position_sides(table, batch, lhs, rhs, scale);
  double worst = 0;
  for (long t = 0; t < kCheckBatch; ++t) worst = std::max(worst, std::abs(lhs[t] - rhs[t]) / scale[t]);
  EXPECT_GT(worst, 1e-8);
}

TEST(IdentityCheck, RejectsBadArguments) {
  const Eigen::VectorXd theta = frequencies(8, 1e4);
  EXPECT_THROW(check_relative_position(theta, 0, 10, 1), InvalidArgument);
  EXPECT_THROW(check_relative_position(theta, 10, 0, 1), InvalidArgument);
}

}  // namespace
}  // namespace rope
